// Package recorder asks a model for the summary of every summary card of
// a lesson (ctxsim record) and stores what it returned beside the lesson,
// in recordings.yaml, with where each came from: the model, the endpoint,
// the date and the prompt. The loader adds them to the cards as recorded
// versions, after the versions written for the lesson, so the lesson shows
// them next to those.
package recorder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"ctxsim/authoring/summarizer"
	"ctxsim/scenarios"
	"ctxsim/scenarios/lessonfile"
	"ctxsim/sim"
)

// File is the name of the recordings file in a lesson directory.
const File = lessonfile.RecordingsFile

// Summarizer is what Record needs of a summarizer client.
type Summarizer interface {
	SummarizeWith(ctx context.Context, prompt, conversation string) (summarizer.Summary, error)
}

// Options say which lesson to record and how.
type Options struct {
	Dir        string // the directory that holds the lesson directories (scenarios/ for the built-in ones)
	ID         string // the lesson id: Dir/ID holds lesson.yaml
	N          int    // recordings per card
	Summarizer Summarizer
	Tokens     sim.Tokenizer
	Log        io.Writer // progress, one line per call; nil for none
}

// Report says what Record wrote.
type Report struct {
	Path     string // the recordings file
	Cards    int
	Takes    int
	Authored int // versions written for the lesson, per card
	Versions int // all versions per card once the recordings are loaded
}

// Record asks the summarizer N times for every card of the lesson, writes
// the recordings file (replacing an earlier one) and loads the lesson again
// to check it. Nothing is written when a call fails.
func Record(ctx context.Context, o Options) (*Report, error) {
	if o.N < 1 || o.N > 20 {
		return nil, fmt.Errorf("record: -n must be from 1 to 20, got %d", o.N)
	}
	lesson, err := scenarios.LoadDir(os.DirFS(o.Dir), o.ID, o.Dir, nil, o.Tokens)
	if err != nil {
		return nil, fmt.Errorf("record: load %s: %w", filepath.Join(o.Dir, o.ID), err)
	}
	cards := lesson.Cards()
	if len(cards) == 0 {
		return nil, fmt.Errorf("record: lesson %s has no summary cards (summaries.yaml of compaction, compression or history)", o.ID)
	}
	rep := &Report{Path: filepath.Join(o.Dir, o.ID, File), Cards: len(cards), Authored: authored(cards[0])}
	var out []lessonfile.Take
	for _, c := range cards {
		conv, err := conversation(lesson.Lesson, cards, c)
		if err != nil {
			return nil, fmt.Errorf("record: card %s: %w", c.ID, err)
		}
		prompt := c.Prompt
		if prompt == "" {
			prompt = summarizer.Prompt
		}
		for i := range o.N {
			if o.Log != nil {
				fmt.Fprintf(o.Log, "recording card %s (%d of %d)\n", c.ID, i+1, o.N)
			}
			s, err := o.Summarizer.SummarizeWith(ctx, prompt, conv)
			if err != nil {
				return nil, fmt.Errorf("record: card %s: %w", c.ID, err)
			}
			out = append(out, lessonfile.Take{Card: c.ID, Content: s.Text, Model: s.Model, Endpoint: s.Endpoint, API: string(s.API),
				Date: s.Date.UTC().Format(time.RFC3339), Prompt: s.Prompt})
			rep.Takes++
		}
	}
	if err := write(rep.Path, o.ID, out); err != nil {
		return nil, err
	}
	again, err := scenarios.LoadDir(os.DirFS(o.Dir), o.ID, o.Dir, nil, o.Tokens)
	if err != nil {
		return nil, fmt.Errorf("record: the lesson does not load with its recordings (%s): %w", rep.Path, err)
	}
	rep.Versions = len(again.Cards()[0].Versions)
	return rep, nil
}

// authored counts a card's versions written for the lesson: those before
// the recordings an earlier run added.
func authored(c sim.Card) int {
	if c.CountFrom > 0 {
		return c.CountFrom - 1
	}
	return len(c.Versions)
}

// conversation renders what a card summarizes: its covered messages (an
// earlier card by its first version), one paragraph each, bounded.
func conversation(l *sim.Lesson, cards []sim.Card, c sim.Card) (string, error) {
	var t summarizer.Transcript
	for _, id := range c.Covers {
		who, text, err := covered(l, cards, id)
		if err != nil {
			return "", err
		}
		if !t.Add(who, text) {
			break
		}
	}
	return t.String(), nil
}

// covered is a covered block's speaker and text.
func covered(l *sim.Lesson, cards []sim.Card, id string) (string, string, error) {
	if m, ok := l.Message(id); ok {
		who := string(m.Role)
		if m.Tool != "" {
			who += " " + m.Tool
		}
		text := m.Content
		if m.Answer != nil {
			text = m.Answer.Found
		}
		if text == "" {
			return "", "", fmt.Errorf("message %s has no text in the lesson files (a file operation's result is made at replay)", id)
		}
		return who, text, nil
	}
	for _, c := range cards {
		if c.ID == id && len(c.Versions) > 0 {
			return "summary", c.Versions[0].Content, nil
		}
	}
	return "", "", fmt.Errorf("covers %s, which is neither a message nor a card", id)
}

// write stores the recordings atomically: a temporary file renamed over
// the old one.
func write(path, id string, out []lessonfile.Take) error {
	head := "# Summaries recorded by `ctxsim record` for lesson " + id + ": model output, each with the model, the\n" +
		"# endpoint, the date and the prompt it was asked with. The lesson shows them after its own versions.\n"
	data, err := lessonfile.Encode(lessonfile.Recordings{Recordings: out}, head)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), File+".*")
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("record: write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("record: %w", err)
	}
	return nil
}
