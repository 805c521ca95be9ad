package cli

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"
)

func TestExitStatus(t *testing.T) {
	for _, tt := range []struct {
		err    error
		status int
		stderr string
	}{
		{nil, 0, ""},
		{ErrHelped, 0, ""},
		{ErrUsage, 2, ""},
		{fmt.Errorf("parse: %w", ErrUsage), 2, ""},
		{errors.New("no URL"), 1, "tool: no URL\n"},
		{flag.ErrHelp, 1, "tool: flag: help requested\n"}, // ctxsim's subcommands return it as is
	} {
		var stderr strings.Builder
		if got := exitStatus("tool", tt.err, &stderr); got != tt.status || stderr.String() != tt.stderr {
			t.Errorf("exitStatus(%v) = %d, %q; want %d, %q", tt.err, got, stderr.String(), tt.status, tt.stderr)
		}
	}
}

func TestFlagsUsage(t *testing.T) {
	var stderr strings.Builder
	fs := Flags("cmd", "usage: cmd [-n N] FILE", &stderr)
	fs.Int("n", 5, "how many")
	if err := fs.Parse([]string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	if want := "usage: cmd [-n N] FILE\n  -n int\n    \thow many (default 5)\n"; stderr.String() != want {
		t.Errorf("help = %q; want %q", stderr.String(), want)
	}
	stderr.Reset()
	fs = Flags("cmd", "", &stderr)
	if err := fs.Parse([]string{"-h"}); !errors.Is(err, flag.ErrHelp) || stderr.String() != "Usage of cmd:\n" {
		t.Errorf("-h without usage: %v, %q; want the flag package's own line", err, stderr.String())
	}
}

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want error
	}{
		{[]string{"-n", "3"}, nil},
		{[]string{"-h"}, ErrHelped},
		{[]string{"-nope"}, ErrUsage},
		{[]string{"-n", "x"}, ErrUsage},
	} {
		fs := Flags("cmd", "", &strings.Builder{})
		fs.Int("n", 5, "how many")
		if err := Parse(fs, tt.args); err != tt.want {
			t.Errorf("Parse(%q) = %v; want %v", tt.args, err, tt.want)
		}
	}
}

func TestParseOne(t *testing.T) {
	for _, tt := range []struct {
		args      []string
		arg, err  string
		usageLine bool
	}{
		{[]string{"dir"}, "dir", "", false},
		{[]string{"-n", "2", "dir"}, "dir", "", false},
		{nil, "", "cmd: give one directory", true},
		{[]string{"a", "b"}, "", "cmd: give one directory", true},
		{[]string{"-nope", "dir"}, "", "flag provided but not defined: -nope", true},
	} {
		var stderr strings.Builder
		fs := Flags("cmd", "usage: cmd DIR", &stderr)
		fs.Int("n", 5, "how many")
		arg, err := ParseOne(fs, tt.args, "give one directory")
		if arg != tt.arg || (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
			t.Errorf("ParseOne(%q) = %q, %v; want %q, %q", tt.args, arg, err, tt.arg, tt.err)
		}
		if got := strings.Contains(stderr.String(), "usage: cmd DIR"); got != tt.usageLine {
			t.Errorf("ParseOne(%q) printed the usage: %v; want %v", tt.args, got, tt.usageLine)
		}
	}
}
