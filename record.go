package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"ctxsim/authoring/recorder"
	"ctxsim/internal/tokens"
)

// recordUsage is what `ctxsim record -h` prints above the flags.
const recordUsage = "usage: ctxsim record -lesson ID -summarizer URL -summarizer-model MODEL [-n 5] [-lessons DIR]\n\nflags:"

// runRecord is `ctxsim record`: a model writes each summary card of a
// lesson n times; the outputs are stored beside the lesson with where they
// came from, and the lesson shows them next to its own versions.
func runRecord(ctx context.Context, fs *flag.FlagSet, args []string, stdout, stderr io.Writer) error {
	id := fs.String("lesson", "", "id of the lesson whose summary cards to record (required)")
	dir := fs.String("lessons", "scenarios", "directory holding the lesson's directory (scenarios: the built-in lessons' sources)")
	sumFlags := addSummarizerFlags(fs, "endpoint: …/v1/chat/completions (OpenAI-compatible) or …/v1/messages (Anthropic-compatible)", true)
	n := fs.Int("n", 5, "recordings per card, 1 to 20")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("record: unexpected argument %q", fs.Arg(0))
	case *id == "":
		return errors.New("record: -lesson is required")
	case *sumFlags.url == "":
		return errors.New("record: -summarizer is required")
	}
	c, err := sumFlags.client()
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	tok, err := tokens.New()
	if err != nil {
		return err
	}
	rep, err := recorder.Record(ctx, recorder.Options{Dir: *dir, ID: *id, N: *n, Summarizer: c, Tokens: tok, Log: stderr})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ctxsim: recorded %d summaries for the %d summary cards of lesson %s into %s\n", rep.Takes, rep.Cards, *id, rep.Path)
	fmt.Fprintf(stdout, "  each card now has %d versions: 1–%d written for the lesson, %d–%d recorded (choose one with rec=N)\n",
		rep.Versions, rep.Authored, rep.Authored+1, rep.Versions)
	return nil
}
