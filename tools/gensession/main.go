// Command gensession writes a synthetic session in Claude Code's JSON Lines
// format, for benchmarks and screenshots of `ctxsim import`. Every text in
// it says it is synthetic: it is not a recording.
//
//	go run ./tools/gensession -turns 200 -rounds 24 -compact-every 8 > /tmp/synthetic.jsonl
package main

import (
	"flag"
	"fmt"
	"os"

	"ctxsim/authoring/transcript/synth"
)

func main() {
	turns := flag.Int("turns", 200, "user turns (2 + 2 × rounds records each)")
	rounds := flag.Int("rounds", 24, "tool calls per turn")
	every := flag.Int("compact-every", 8, "turns between compactions (0: none)")
	chars := flag.Int("result-chars", 2000, "mean characters of a tool result")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	n, err := synth.Write(os.Stdout, synth.Options{Turns: *turns, Rounds: *rounds, CompactEvery: *every, ResultChars: *chars, Seed: *seed})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gensession:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "gensession: %d records\n", n)
}
