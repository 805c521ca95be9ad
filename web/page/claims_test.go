package page

import (
	"html"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"ctxsim/scenarios"
	"ctxsim/sim"
)

// claim is a sentence the narration has written (or once wrote) about what
// the blocks hold, and what must be true of the frame wherever a page shows
// it. Each predicate reads the frame's blocks (or the lesson's trace)
// here, apart from the narration's own conditions, so it decides the
// sentence independently. The fidelity review of 594ee4d found each of the
// older sentences false in some state.
type claim struct {
	lesson  string
	phrases []string // words of the sentence, in any language
	says    string   // what the sentence claims
	holds   func(c claimFrame) bool
	// retired: the lesson no longer says it (594ee4d did, falsely); the
	// claim stays so that the sentence cannot come back untrue. A claim not
	// retired must be shown somewhere, or its phrases are stale.
	retired bool
}

// claimFrame is one frame of a run, for a claim's predicate.
type claimFrame struct {
	l      *scenarios.Lesson
	p      sim.Policy
	r      *sim.Replay
	i      int
	f      *sim.Frame
	window int
}

// block is the frame's block id, or nil.
func (c claimFrame) block(id string) *sim.Block {
	b, ok := c.f.Block(id)
	if !ok {
		return nil
	}
	return b
}

// holdsFact matches a fact's pattern against text.
func (c claimFrame) holdsFact(id, text string) bool {
	for _, f := range c.l.Facts {
		if f.ID == id && f.Pattern != nil {
			return f.Pattern.MatchString(text)
		}
	}
	return false
}

var (
	monthName   = regexp.MustCompile(`January|February|March|April|May|June|July|August|September|October|November|December`)
	yearIn      = regexp.MustCompile(`\b(19|20)\d\d\b`)
	reportFacts = []string{"founders-all", "sutskever-date", "schulman-now", "karpathy-now", "brockman-now"}
)

var claims = []claim{
	{lesson: "compression-strategies", phrases: []string{"no page summary has a month", "どのページ要約にも、月も"}, retired: true,
		says: "no summary in the window names a month",
		holds: func(c claimFrame) bool {
			return !slices.ContainsFunc(c.f.Blocks(), func(b sim.Block) bool { return b.Kind == sim.KindSummary && monthName.MatchString(b.Content) })
		}},
	{lesson: "compression-strategies", phrases: []string{"nothing in the window holds what the report will need", "報告に必要になるものはウィンドウのどこにもありません"},
		says: "no block holds any of the report's facts",
		holds: func(c claimFrame) bool {
			for _, b := range c.f.Blocks() {
				for _, id := range reportFacts {
					if c.holdsFact(id, b.Content) {
						return false
					}
				}
			}
			return true
		}},
	{lesson: "compression-strategies", phrases: []string{"every move with its date", "日付つきのすべての移籍"}, retired: true,
		says: "every person's line of the summary of r-4 has a date",
		holds: func(c claimFrame) bool {
			b := c.block("r-4")
			if b == nil {
				return false
			}
			for _, line := range strings.Split(b.Content, "\n") {
				if strings.HasPrefix(line, "- ") && !yearIn.MatchString(line) {
					return false
				}
			}
			return true
		}},
	{lesson: "compression-strategies", phrases: []string{"It kept what the report needs:", "報告に必要なものを残しています"},
		says: "the summary of r-4 holds every fact the report needs",
		holds: func(c claimFrame) bool {
			b := c.block("r-4")
			return b != nil && !slices.ContainsFunc(reportFacts, func(id string) bool { return !c.holdsFact(id, b.Content) })
		}},
	{lesson: "compression-strategies", phrases: []string{"The page summaries named some founders", "「ほか」としていました。つないだ"}, retired: true,
		says: "r-1 has page summaries and its merged text was cut (one strategy cannot do both)",
		holds: func(c claimFrame) bool {
			b := c.block("r-1")
			return b != nil && strings.HasPrefix(b.Content, "per-result") && strings.Contains(b.Content, "merged input was cut")
		}},
	{lesson: "compression-strategies", phrases: []string{"The page summaries name some founders", "ページ要約は創業者の何人かを挙げて「ほか」としていて"},
		says: "r-1 is page summaries that name founders \"among others\"",
		holds: func(c claimFrame) bool {
			b := c.block("r-1")
			return b != nil && strings.HasPrefix(b.Content, "per-result") && strings.Contains(b.Content, "among others")
		}},
	{lesson: "compression-strategies", phrases: []string{"The merged pages were cut before the end of the list", "つないだページは一覧の終わりの手前で切られ"},
		says: "r-1's merged input was cut and its summary ends with \"and others\"",
		holds: func(c claimFrame) bool {
			b := c.block("r-1")
			return b != nil && strings.Contains(b.Content, "merged input was cut") && strings.Contains(b.Content, "and others")
		}},
	{lesson: "compression-strategies", phrases: []string{"the tail of every long search", "長い検索はどれも末尾を失い",
		"Every search whose merged pages were too long for the summarizer was cut", "要約器に入りきらない長さの検索は"},
		says: "the searches whose merged input was cut are the longest: each longer than every one that fit whole",
		holds: func(c claimFrame) bool {
			longestWhole, shortestCut := 0, -1
			for _, b := range c.f.Blocks() {
				n, ok := b.Attr("chars")
				if b.Kind != sim.KindSummary || !ok {
					continue
				}
				if strings.Contains(b.Content, "merged input was cut") {
					if shortestCut < 0 || n < shortestCut {
						shortestCut = n
					}
				} else {
					longestWhole = max(longestWhole, n)
				}
			}
			return shortestCut > longestWhole
		}},
	{lesson: "compression-strategies", phrases: []string{"The Brockman pages were longer and were cut", "Brockman のページはそれより長く"},
		says: "r-3 has more characters than r-2, and its merged input was cut",
		holds: func(c claimFrame) bool {
			b2, b3 := c.block("r-2"), c.block("r-3")
			if b2 == nil || b3 == nil {
				return false
			}
			n2, _ := b2.Attr("chars")
			n3, _ := b3.Attr("chars")
			return n3 > n2 && strings.Contains(b3.Content, "merged input was cut")
		}},
	{lesson: "compression-strategies", phrases: []string{"His return was at the end of the pages", "復帰はページの末尾",
		"His return was on the last page of the Brockman search", "復帰は Brockman の検索の最後のページ"},
		says: "the Brockman search's last page (its last [n] line) reports his return",
		holds: func(c claimFrame) bool {
			m, ok := c.l.Message("r-3")
			if !ok {
				return false
			}
			last := ""
			for _, line := range strings.Split(m.Content, "\n") {
				if strings.HasPrefix(line, "[") {
					last = line
				}
			}
			return strings.Contains(last, "returned")
		}},
	{lesson: "subagent-isolation", phrases: []string{"the price of isolation the seed names", "原文の挙げる隔離の代価です"}, retired: true,
		says:  "the seed names this price (it names another: the sub-agent cannot see the main agent's context)",
		holds: func(claimFrame) bool { return false }},
	{lesson: "sliding-window", phrases: []string{"sits at the end of the window", "ウィンドウの末尾にあり"}, retired: true,
		says: "the repeated read is the last block of the window",
		holds: func(c claimFrame) bool {
			return len(c.f.Blocks()) > 0 && c.f.Blocks()[len(c.f.Blocks())-1].ID == "r-reread-1"
		}},
	{lesson: "sliding-window", phrases: []string{"The read it repeated (", "くり返した読み取り（"},
		says: "the repeated read is among the 10 most recent messages",
		holds: func(c claimFrame) bool {
			i := slices.IndexFunc(c.f.Blocks(), func(b sim.Block) bool { return b.ID == "r-reread-1" })
			return i >= 0 && len(c.f.Blocks())-i <= 10
		}},
	{lesson: "context-memory", phrases: []string{"goes to the summarizer", "will summarize a summary", "conversation is summarized",
		"要約器へ渡ります", "要約をさらに要約することになります", "会話の古い部分を先に要約します"},
		says: "this compaction's summary is a summary, not a mechanical excerpt",
		holds: func(c claimFrame) bool {
			for _, f := range c.r.Frames[c.i:] {
				if f.Kind == sim.FrameSummary {
					return f.Pending != nil && f.Pending.Summary != nil && !f.Pending.Summary.Mechanical
				}
			}
			return false
		}},
	{lesson: "context-memory", phrases: []string{"its largest message, “", "その中で最も大きい「"},
		says: "the kept tail is why the window is above the line: the header and the summary alone are not",
		holds: func(c claimFrame) bool {
			th, _ := strconv.Atoi(c.p.Get("threshold"))
			header, summary := 0, 0
			for _, b := range c.f.Blocks() {
				switch {
				case b.Role == sim.RoleSystem || b.Kind == sim.KindMemory:
					header += b.Tokens
				case b.Summary != nil:
					summary = b.Tokens // the newest
				}
			}
			return header+summary <= c.window*th/100
		}},
}

// TestNarrationClaims: wherever a page shows one of the claims above, in
// any frame of any preset policy (and threshold and alpha from 1 to 100)
// and in every language, the frame makes it true.
func TestNarrationClaims(t *testing.T) {
	s := newFixture(t)
	for _, l := range s.lessons {
		var mine []claim
		for _, c := range claims {
			if c.lesson == l.ID {
				mine = append(mine, c)
			}
		}
		if len(mine) == 0 {
			continue
		}
		t.Run(l.ID, func(t *testing.T) {
			t.Parallel()
			checkClaims(t, s, l, mine)
		})
	}
}

func checkClaims(t *testing.T, s *fixture, l *scenarios.Lesson, mine []claim) {
	fails := 0
	shown := make([]int, len(mine))
	for _, p := range truthPolicies(l) {
		r, err := s.runOnce(l, p)
		if err != nil {
			t.Fatalf("Run(%s): %v", p, err)
		}
		for i := range r.Frames {
			for _, lang := range languages() {
				v := newFrameView(l, p, r, i, s.cat.For(lang))
				sec, err := v.section()
				if err != nil {
					t.Fatal(err)
				}
				h, body, err := sec.Render(v)
				if err != nil {
					t.Fatal(err)
				}
				text := html.UnescapeString(h + "\n" + replaceSpans(body, '<', '>', ""))
				for k, c := range mine {
					for _, ph := range c.phrases {
						if !strings.Contains(text, ph) {
							continue
						}
						shown[k]++
						if c.holds(claimFrame{l: l, p: p, r: r, i: i, f: &r.Frames[i], window: r.Window}) {
							continue
						}
						if fails++; fails <= 20 {
							t.Errorf("/%s/%s/%s/%d (%s): says %q, but it is not true that %s", lang, l.ID, p, i+1, sec.Key, ph, c.says)
						}
					}
				}
			}
		}
	}
	if fails > 20 {
		t.Errorf("%d false claims in all, 20 shown", fails)
	}
	for k, c := range mine {
		if shown[k] == 0 && !c.retired {
			t.Errorf("no frame says any of %q: the claim's phrases are stale", c.phrases)
		}
	}
}
