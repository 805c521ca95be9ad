// Package cli is what ctxsim's commands share around their own work: the
// process (signals, standard streams, exit status) and a command's flag
// set. The ctxsim command and the tools under tools/ use it.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Command is what a command does: it reads args (the command line without
// the program's name) and writes to stdout and stderr until it is done or
// ctx ends.
type Command func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// Errors that end a command with their message printed already: Main
// prints nothing more.
var (
	// ErrUsage is a command-line error: exit status 2.
	ErrUsage = errors.New("usage")
	// ErrHelped is -h, the help printed: exit status 0.
	ErrHelped = errors.New("help printed")
)

// Main runs cmd on the process's arguments and standard streams, under a
// context that an interrupt or SIGTERM cancels, and ends the process:
// status 0 when cmd returns nil or ErrHelped, 2 when it returns ErrUsage,
// else 1 after printing "name: " and the error on stderr.
func Main(name string, cmd Command) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := cmd(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitStatus(name, err, os.Stderr))
}

// exitStatus is the status a command that returned err exits with; it
// prints the error, prefixed by name, on stderr when the status is 1.
func exitStatus(name string, err error, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, ErrHelped):
		return 0
	case errors.Is(err, ErrUsage):
		return 2
	}
	fmt.Fprintln(stderr, name+":", err)
	return 1
}

// Flags is the flag set of a command or subcommand called name: it parses
// with flag.ContinueOnError, writes its errors and help to stderr, and
// -h prints usage (when not "") above the flags' defaults; with usage ""
// it prints the flag package's own "Usage of name:" line instead.
func Flags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if usage != "" {
		fs.Usage = func() {
			fmt.Fprintln(stderr, usage)
			fs.PrintDefaults()
		}
	}
	return fs
}

// Parse parses args into fs the way the flag package's own
// flag.ExitOnError ends a command: -h with status 0, a flag error with
// status 2. It returns ErrHelped or ErrUsage for them (fs printed their
// message), for the command to return to Main.
func Parse(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return ErrHelped
	case err != nil:
		return ErrUsage
	}
	return nil
}

// ParseOne parses args into fs, wanting exactly one argument after the
// flags, which it returns. Without it, it prints fs's usage and returns an
// error "NAME: " and what (such as "give one output directory").
func ParseOne(fs *flag.FlagSet, args []string, what string) (string, error) {
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return "", errors.New(fs.Name() + ": " + what)
	}
	return fs.Arg(0), nil
}
