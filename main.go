// Command ctxsim serves the ctxsim lessons: a simulator of how an LLM
// agent's context window fills, gets compacted and remembers.
//
//	ctxsim serve [-addr HOST:PORT] [-lessons DIR] [-rooms nats://HOST:PORT] [-trusted-proxy CIDR[,CIDR]]
//	             [-host NAME[,NAME]] [-max-streams N] [-max-client-streams N] [-max-client-rooms N]
//	ctxsim export [-lessons DIR] [-base /PATH/] DIR
//	ctxsim import [-o DIR] [-id ID] [-format F] [-window N] [-no-redact] [-summarizer URL -summarizer-model M] FILE
//	ctxsim record -lesson ID -summarizer URL -summarizer-model M [-n 5] [-lessons DIR]
package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"os"

	"ctxsim/authoring/summarizer"
	"ctxsim/internal/cli"
)

func main() { cli.Main("ctxsim", run) }

// run parses args and runs the subcommand they name; main only calls it,
// tests can too. Each subcommand has its file: serve.go, export.go,
// import.go, record.go.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	sub, ok := subcommands[args[0]]
	if !ok {
		return errors.New(usage)
	}
	return sub.run(ctx, cli.Flags(args[0], sub.usage, stderr), args[1:], stdout, stderr)
}

// subcommands are ctxsim's subcommands by name, with what their -h prints
// above the flags ("": the flag package's "Usage of NAME:"). Each gets its
// flag set, declares its flags on it and parses args with them.
var subcommands = map[string]struct {
	usage string
	run   func(ctx context.Context, fs *flag.FlagSet, args []string, stdout, stderr io.Writer) error
}{
	"serve":  {"", runServe},
	"export": {exportUsage, runExport},
	"import": {importUsage, runImport},
	"record": {recordUsage, runRecord},
}

// usage is ctxsim's help.
const usage = `usage:
  ctxsim serve [-addr HOST:PORT] [-lessons DIR] [-rooms nats://HOST:PORT] [-trusted-proxy CIDR[,CIDR]]
               [-host NAME[,NAME]] [-max-streams N] [-max-client-streams N] [-max-client-rooms N]
  ctxsim export [-lessons DIR] [-base /PATH/] DIR
  ctxsim import [-o DIR] [-id ID] [-format claude-code|openai-chat] [-window N] [-no-redact]
                [-summarizer URL -summarizer-model MODEL [-summarizer-key-env VAR]] FILE
  ctxsim record -lesson ID -summarizer URL -summarizer-model MODEL [-summarizer-key-env VAR] [-n 5] [-lessons DIR]`

// The flags several subcommands take.

// lessonsFlag defines -lessons, the directory of lessons serve and export
// add to the built-in ones. (record's -lessons is where the lesson it
// records is, by default the built-in lessons' sources.)
func lessonsFlag(fs *flag.FlagSet) *string {
	return fs.String("lessons", "", "directory of extra lessons (same format as scenarios/)")
}

// summarizerFlags are -summarizer, -summarizer-model and
// -summarizer-key-env: the model endpoint import and record have write
// summaries.
type summarizerFlags struct{ url, model, keyEnv *string }

// addSummarizerFlags defines the summarizer flags on fs; urlUsage says
// what the endpoint is for, and required marks -summarizer and its model
// as required in their help.
func addSummarizerFlags(fs *flag.FlagSet, urlUsage string, required bool) summarizerFlags {
	req := ""
	if required {
		req = " (required)"
	}
	return summarizerFlags{
		url:    fs.String("summarizer", "", urlUsage+req),
		model:  fs.String("summarizer-model", "", "model name for -summarizer"+req),
		keyEnv: fs.String("summarizer-key-env", "CTXSIM_SUMMARIZER_KEY", "environment variable holding the -summarizer API key"),
	}
}

// client is the summarizer the flags name; nil without -summarizer.
func (f summarizerFlags) client() (*summarizer.Client, error) {
	if *f.url == "" {
		return nil, nil
	}
	return summarizer.New(*f.url, *f.model, os.Getenv(*f.keyEnv))
}
