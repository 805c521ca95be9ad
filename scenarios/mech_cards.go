package scenarios

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"ctxsim/scenarios/lessonfile"
	"ctxsim/sim"
)

// cards reads the summary cards of a mechanism and checks them against the
// block ids of the trace; strategies are the strategies a card may serve
// (none: a compaction card names no strategy). Summaries recorded by
// ctxsim record (recordings.yaml) are added as versions.
func (b *builder) cards(p, file string, strategies []string) ([]sim.Card, int) {
	out, versions := b.readCards(p, file, strategies)
	if b.err != nil {
		return out, versions
	}
	return b.addRecordings(out, versions)
}

// readCards reads a cards file.
func (b *builder) readCards(p, file string, strategies []string) ([]sim.Card, int) {
	data, err := b.files.read(file)
	if err != nil {
		b.fail(p, "cannot read %s: %v", file, err)
		return nil, 0
	}
	var raw lessonfile.Summaries
	f, err := lessonfile.Decode(b.files.name(file), data, &raw)
	if err != nil {
		b.failWith(err)
		return nil, 0
	}
	cb := &builder{f: f, counted: b.counted}
	for k := range raw.Prompts {
		if !slices.Contains(strategies, k) {
			cb.fail("prompts."+k, "names no strategy whose cards this file holds (%s)", strings.Join(strategies, ", "))
		}
	}
	var out []sim.Card
	versions := 0
	seen := map[string]bool{}
	seenStrategy := map[[2]string]bool{}
	for i, rc := range raw.Cards {
		path := fmt.Sprintf("cards[%d]", i)
		if !lessonID.MatchString(rc.ID) || seen[rc.ID] || b.ids[rc.ID] != "" {
			cb.fail(path+".id", "must be a unique id matching %s, not a message id, got %q", lessonID, rc.ID)
		}
		if len(rc.Covers) == 0 {
			cb.fail(path+".covers", "must list the ids of the blocks the summary replaces")
		}
		for j, id := range rc.Covers {
			if b.ids[id] == "" && !seen[id] {
				cb.fail(fmt.Sprintf("%s.covers[%d]", path, j), "names unknown block %q (a message id or an earlier card id)", id)
			}
		}
		seen[rc.ID] = true
		if cb.counted || rc.Tokens != 0 {
			// In a trace-sized lesson a card may leave its size out: it is
			// then its text's o200k_base count (a summary shown whole).
			cb.size(path, rc.Tokens)
		}
		switch {
		case len(rc.Versions) == 0:
			cb.fail(path+".versions", "needs at least one version of the summary text")
		case versions != 0 && len(rc.Versions) != versions:
			cb.fail(path+".versions", "must hold as many versions as the other cards (%d), got %d", versions, len(rc.Versions))
		}
		versions = max(versions, len(rc.Versions))
		switch {
		case len(strategies) == 0 && rc.Strategy != "":
			cb.fail(path+".strategy", "a compaction card serves no strategy; remove it")
		case len(strategies) > 0 && !slices.Contains(strategies, rc.Strategy):
			cb.fail(path+".strategy", "must be one of %s (the strategies that summarize a result), got %q", strings.Join(strategies, ", "), rc.Strategy)
		case len(strategies) > 0 && len(rc.Covers) != 1:
			cb.fail(path+".covers", "a %s card covers exactly one tool result", rc.Strategy)
		case len(strategies) > 0 && seenStrategy[[2]string{rc.Strategy, rc.Covers[0]}]:
			cb.fail(path+".covers", "%s already has a %s card", rc.Covers[0], rc.Strategy)
		}
		if len(strategies) > 0 && len(rc.Covers) == 1 {
			seenStrategy[[2]string{rc.Strategy, rc.Covers[0]}] = true
			if b.ids[rc.Covers[0]] != "" && !b.results[rc.Covers[0]] {
				cb.fail(path+".covers[0]", "%q is not a tool result of the trace: a %s card summarizes one", rc.Covers[0], rc.Strategy)
			}
		}
		prompt := rc.Prompt
		if prompt == "" {
			prompt = raw.Prompts[rc.Strategy]
		}
		if prompt == "" {
			prompt = raw.Prompt
		}
		card := sim.Card{ID: rc.ID, Covers: rc.Covers, Tokens: rc.Tokens, Strategy: rc.Strategy, Prompt: prompt, Opaque: rc.Opaque}
		if rc.Opaque && len(strategies) > 0 {
			cb.fail(path+".opaque", "marks a compaction's recorded summary whose text the file does not hold; a %s card is not one", rc.Strategy)
		}
		for j, rv := range rc.Versions {
			vp := fmt.Sprintf("%s.versions[%d]", path, j)
			if rv.Content == "" {
				cb.fail(vp+".content", "is required")
			}
			prov := rv.Provenance
			if len(prov) == 0 {
				prov = raw.Provenance
			}
			if !inEvery(prov) {
				cb.fail(vp+".provenance", "needs %s (or a file-level provenance): say who wrote or recorded it, and when", everyLanguage())
			}
			card.Versions = append(card.Versions, sim.CardText{Content: rv.Content, Provenance: prov, ModelWritten: rv.ModelWritten})
		}
		out = append(out, card)
	}
	if cb.err != nil && b.err == nil {
		b.err = cb.err
	}
	return out, versions
}

// addRecordings adds the summaries ctxsim record stored in recordings.yaml
// to the cards they name, as recorded versions with their provenance.
func (b *builder) addRecordings(cards []sim.Card, versions int) ([]sim.Card, int) {
	const file = lessonfile.RecordingsFile
	data, err := b.files.read(file)
	if errors.Is(err, fs.ErrNotExist) {
		return cards, versions
	}
	if err != nil {
		b.fail("", "cannot read %s: %v", file, err)
		return cards, versions
	}
	var raw lessonfile.Recordings
	f, err := lessonfile.Decode(b.files.name(file), data, &raw)
	if err != nil {
		b.failWith(err)
		return cards, versions
	}
	rb := &builder{f: f}
	for i, rr := range raw.Recordings {
		p := fmt.Sprintf("recordings[%d]", i)
		j := slices.IndexFunc(cards, func(c sim.Card) bool { return c.ID == rr.Card })
		date, derr := time.Parse(time.RFC3339, rr.Date)
		switch {
		case j < 0:
			rb.fail(p+".card", "names no summary card of the lesson, got %q", rr.Card)
		case rr.Content == "":
			rb.fail(p+".content", "is required: the summary the model returned")
		case rr.Model == "" || rr.Endpoint == "":
			rb.fail(p, "needs model and endpoint: where the summary came from")
		case derr != nil:
			rb.fail(p+".date", "must be an RFC 3339 time: %v", derr)
		}
		if j < 0 || rb.err != nil {
			continue
		}
		if cards[j].CountFrom == 0 {
			cards[j].CountFrom = len(cards[j].Versions) + 1
		}
		prov, err := takeProvenance(rr, date)
		if err != nil {
			rb.fail(p, "cannot say where it came from: %v", err)
			continue
		}
		cards[j].Versions = append(cards[j].Versions, sim.CardText{Content: rr.Content, ModelWritten: true, Provenance: prov})
		b.hasRecordings = true
	}
	for i, c := range cards {
		if i > 0 && len(c.Versions) != len(cards[0].Versions) && rb.err == nil {
			rb.fail("recordings", "every card needs as many recordings: %s has %d versions, %s %d (run ctxsim record for the whole lesson)",
				cards[0].ID, len(cards[0].Versions), c.ID, len(c.Versions))
		}
	}
	if rb.err != nil && b.err == nil {
		b.err = rb.err
	}
	if len(cards) > 0 {
		versions = len(cards[0].Versions)
	}
	return cards, versions
}

// takeProvenance says where a take (a summary `ctxsim record` asked a
// model for) came from, in every
// language.
func takeProvenance(r lessonfile.Take, date time.Time) (sim.Text, error) {
	t, err := texts()
	if err != nil {
		return nil, err
	}
	return t.Text("recorded-provenance", struct{ Model, Endpoint, API, Day string }{r.Model, r.Endpoint, r.API, date.UTC().Format("2006-01-02")})
}
