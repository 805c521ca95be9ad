package draw

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func row(id string, tokens int, name string) Row {
	return Row{Blocks: []Block{{ID: id, Tokens: tokens}}, Label: Label{Role: "tool", Name: name, Size: strconv.Itoa(tokens)}}
}

func TestFit(t *testing.T) {
	tests := []struct {
		text  string
		width float64
		want  string
	}{
		{"short", 100, "short"},
		{"src/parser.ts", 50, "src/p…"},
		{"日本語のテキスト", 50, "日本語…"},
		{"abc", 1, ""},
		{"file_read src", 70, "file_read…"},
	}
	for _, tt := range tests {
		if got := Fit(tt.text, Sans, 12, tt.width); got != tt.want {
			t.Errorf("Fit(%q, %v) = %q; want %q", tt.text, tt.width, got, tt.want)
		}
		if got := Fit(tt.text, Sans, 12, tt.width); got != "" && TextWidth(got, Sans, 12) > tt.width {
			t.Errorf("Fit(%q, %v) = %q is %.1f wide", tt.text, tt.width, got, TextWidth(got, Sans, 12))
		}
	}
}

func TestTextWidth(t *testing.T) {
	// A CJK character is as wide as the font size; a Latin letter narrower.
	if w := TextWidth("窓", Sans, 10); w < 10 {
		t.Errorf("TextWidth(窓) = %.2f; want ≥ 10", w)
	}
	if w, m := TextWidth("ii", Sans, 10), TextWidth("mm", Sans, 10); w >= m {
		t.Errorf("TextWidth(ii) = %.2f ≥ TextWidth(mm) = %.2f", w, m)
	}
	if w := TextWidth("abc", Mono, 10); w < 3*monoFloor*10 {
		t.Errorf("TextWidth(abc, Mono) = %.2f; want ≥ %.2f (the DejaVu Sans Mono floor)", w, 3*monoFloor*10)
	}
}

// TestScale: every block is tokens × scale tall and they stack in order.
func TestScale(t *testing.T) {
	w := Window{Tokens: 50000, Height: 500, Reserve: 60, Rows: []Row{
		row("system", 3000, "system prompt"), row("memory", 1000, "MEMORY.md"), row("task", 500, "task"),
		{Blocks: []Block{{ID: "call", Tokens: 300}, {ID: "result", Tokens: 19000}}, Label: Label{Name: "read src/parser.ts"}},
		row("log", 22100, "test log"), row("question", 7000, "q"),
	}}
	d := Lay(w, Page)
	if d.Scale != 0.01 {
		t.Fatalf("Scale = %v; want 0.01", d.Scale)
	}
	y := 0.0
	for _, r := range d.Rows {
		for _, b := range r.Blocks {
			if math.Abs(b.Y-y) > 1e-9 || math.Abs(b.H-float64(b.Tokens)*0.01) > 1e-9 {
				t.Errorf("block %s at %.2f, %.2f tall; want at %.2f, %.2f tall", b.ID, b.Y, b.H, y, float64(b.Tokens)*0.01)
			}
			y += b.H
		}
	}
	if d.Stack != 529 || d.Overflow != 29 || d.Clipped {
		t.Errorf("Stack, Overflow, Clipped = %v, %v, %v; want 529, 29, false", d.Stack, d.Overflow, d.Clipped)
	}
}

// TestLabels: tall rows are labelled inside, thin ones in the lane; a line
// across a label moves it, or sends it to the lane.
func TestLabels(t *testing.T) {
	tests := []struct {
		name   string
		rows   []Row
		lines  []Line
		inside []bool
	}{
		{"tall inside, thin in the lane", []Row{row("a", 3000, "system prompt"), row("b", 500, "task")}, nil, []bool{true, false}},
		{"a long name is cut, not dropped",
			[]Row{row("a", 5000, "a rather long name for a block that goes on")}, nil, []bool{true}},
		{"a line through a short row's label sends it to the lane",
			[]Row{row("a", 1900, "short")}, []Line{{Tokens: 950, Label: "50%"}}, []bool{false}},
		{"a line through a tall row's label moves the label",
			[]Row{row("a", 20000, "tall")}, []Line{{Tokens: 1000, Label: "line"}}, []bool{true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Lay(Window{Tokens: 50000, Height: 500, Reserve: 50, Rows: tt.rows, Lines: tt.lines}, Page)
			for i, want := range tt.inside {
				if got := d.Rows[i].Inside != nil; got != want {
					t.Errorf("row %d inside = %v; want %v", i, got, want)
				}
			}
			checkDrawing(t, d, len(tt.rows))
		})
	}
}

// TestGroups: when the lane cannot hold one label per thin row, neighbours
// share one, and the focus row keeps its own.
func TestGroups(t *testing.T) {
	var rows []Row
	for i := range 120 {
		rows = append(rows, row(fmt.Sprint("r", i), 60, fmt.Sprint("result ", i)))
	}
	rows[70].Focus = true
	w := Window{Tokens: 32000, Height: 500, Reserve: 40, Rows: rows, Lines: []Line{{Tokens: 27500, Label: "pressure"}},
		GroupText: func(rs []int) string { return fmt.Sprintf("%d blocks", len(rs)) }}
	d := Lay(w, Page)
	named := map[int]int{}
	for _, c := range d.Callouts {
		for r := c.First; r <= c.Last; r++ {
			named[r]++
		}
		if c.Group != (c.Last > c.First) {
			t.Errorf("callout %d–%d Group = %v", c.First, c.Last, c.Group)
		}
		if c.First <= 70 && c.Last >= 70 && c.Group {
			t.Errorf("the focus row 70 is in a group %d–%d", c.First, c.Last)
		}
	}
	for i := range rows {
		if named[i] != 1 {
			t.Errorf("row %d is named %d times in the lane; want once", i, named[i])
		}
	}
	if max := int((w.Height + w.Reserve) / Page.laneStep()); len(d.Callouts)+len(d.Lines) > max {
		t.Errorf("%d lane labels; the lane holds %d", len(d.Callouts)+len(d.Lines), max)
	}
	checkDrawing(t, d, len(rows))
}

// TestFullNames: a row the narration names keeps its whole name, inside
// its block or in the lane (on two lines if one cannot hold it), never in
// a group, however crowded the lane.
func TestFullNames(t *testing.T) {
	long := "file_read src/payment/callbacks/handlers.py"
	for _, st := range []Style{Page, Projector} {
		var rows []Row
		for i := range 60 {
			rows = append(rows, row(fmt.Sprint("r", i), 150, fmt.Sprint("result number ", i)))
		}
		rows[20].Full, rows[20].Label.Name = true, long
		rows[40].Full, rows[40].Label.Name = true, "session.go"
		rows = append(rows, row("big", 20000, long))
		rows[60].Full = true
		d := Lay(Window{Tokens: 50000, Height: 450, Reserve: 50, Rows: rows, GroupText: func(rs []int) string { return fmt.Sprint(len(rs), " blocks") }}, st)
		for _, i := range []int{20, 40, 60} {
			drawn := ""
			if in := d.Rows[i].Inside; in != nil {
				drawn = in.Name.Text
			}
			for _, c := range d.Callouts {
				if c.First == i && c.Last == i {
					drawn = c.Text.Text
					for _, m := range c.More {
						drawn += m.Text
					}
				}
				if c.Group && c.First <= i && i <= c.Last {
					t.Errorf("%s: named row %d is in a group", st.Name, i)
				}
			}
			if !strings.Contains(drawn, rows[i].Label.Name) {
				t.Errorf("%s: named row %d is drawn as %q; want its name %q whole", st.Name, i, drawn, rows[i].Label.Name)
			}
		}
		checkDrawing(t, d, len(rows))
	}
}

// TestWrap: lines fit, and together they are the text.
func TestWrap(t *testing.T) {
	for _, text := range []string{"Empty: between sessions nothing is in the window.", "空です。セッションとセッションの間、ウィンドウには何もありません。", "a",
		"このステップでは、ファイルに記録された呼び出しはセッションの横で動いていません。サブエージェントや圧縮の呼び出しがあれば、そのウィンドウがここに出ます。"} {
		for _, width := range []float64{150, 163, 180, 205} {
			lines := Wrap(text, Sans, 14, width)
			for i, l := range lines {
				r := []rune(l)
				body := l
				if last := r[len(r)-1]; strings.ContainsRune(noLineStart, last) {
					body = string(r[:len(r)-1]) // a closing mark hangs past the width
				}
				if TextWidth(body, Sans, 14) > width {
					t.Errorf("Wrap(%q, %v): line %q is wider than %v", text, width, l, width)
				}
				if i > 0 && strings.ContainsRune(noLineStart, r[0]) {
					t.Errorf("Wrap(%q, %v): line %q starts with a closing mark", text, width, l)
				}
			}
			if got := strings.Join(lines, ""); strings.ReplaceAll(got, " ", "") != strings.ReplaceAll(text, " ", "") {
				t.Errorf("Wrap(%q) = %q", text, lines)
			}
		}
	}
}

// TestRandomWindows lays out many windows and checks the invariants:
// exact scale, no overlapping lane labels, no line through a label, every
// text inside its room, every row named once.
func TestRandomWindows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"system prompt", "MEMORY.md copy", "task", "ack", "read request", "src/parser.ts",
		"file_read internal/auth/session.go", "bash go test -run TestRevoke ./...", "テストのログ", "summary"}
	for n := range 300 {
		window := []int{2000, 32000, 50000, 200000}[n%4]
		var rows []Row
		total := 0
		for i := range 1 + rng.IntN(60) {
			tok := 1 + rng.IntN(window/8)
			if rng.IntN(3) == 0 {
				tok = 1 + rng.IntN(window/200+1)
			}
			total += tok
			r := row(fmt.Sprint("b", i), tok, names[rng.IntN(len(names))])
			r.Focus = rng.IntN(10) == 0
			r.Full = rng.IntN(12) == 0
			if rng.IntN(4) == 0 {
				r.Label.Badges = []Badge{{Text: "T2·d12"}, {Text: "floor", Minor: true}}
			}
			if rng.IntN(3) == 0 {
				r.Excerpt = []string{"func parse(input string) (Node, error) {", "  // TODO: surrogate pairs", "}"}
			}
			rows = append(rows, r)
			if total > window*11/10 {
				break
			}
		}
		w := Window{Tokens: window, Height: 500, Reserve: 80, Rows: rows,
			Lines:     []Line{{Tokens: window * (1 + rng.IntN(99)) / 100, Label: "92% · 46.0k"}, {Tokens: window, Label: "limit"}},
			Marks:     []Mark{{Tokens: rng.IntN(total + 1), Text: "cache miss"}},
			GroupText: func(rs []int) string { return fmt.Sprintf("%d blocks · 9.9k", len(rs)) }}
		for _, s := range []Style{Page, Projector} {
			t.Run(fmt.Sprint(s.Name, n), func(t *testing.T) { checkDrawing(t, Lay(w, s), len(rows)) })
		}
	}
}

// checkDrawing asserts the invariants every drawing keeps.
func checkDrawing(t *testing.T, d Drawing, rows int) {
	t.Helper()
	s := d.Style
	limit := d.Height + d.Reserve
	step := s.laneStep()
	mid := (s.ascent() - s.descent()) / 2
	var centres []float64
	for _, l := range d.Lines {
		centres = append(centres, l.Label.Y-mid)
		if TextWidth(l.Label.Text, Mono, s.Small) > s.LaneW() {
			t.Errorf("line label %q is wider than the lane", l.Label.Text)
		}
	}
	for _, c := range d.Callouts {
		for _, sp := range append([]Span{c.Text}, c.More...) {
			centres = append(centres, sp.Y-mid)
			if TextWidth(sp.Text, Sans, s.Small) > s.LaneW() {
				t.Errorf("callout %q is wider than the lane", sp.Text)
			}
		}
	}
	for _, m := range d.Marks {
		centres = append(centres, m.Text.Y-mid)
	}
	for _, c := range d.Callouts {
		if sh := math.Abs(c.Text.Y - mid - c.Anchor); sh > s.maxShift()+step && c.Group {
			t.Errorf("group %d–%d is labelled %.0f from its rows", c.First, c.Last, sh)
		}
	}
	for i := range centres {
		if centres[i] < step/2-1e-6 || centres[i] > limit-step/2+1e-6 {
			t.Errorf("lane label at %.1f is outside the lane 0–%.0f", centres[i], limit)
		}
		for j := range i {
			if math.Abs(centres[i]-centres[j]) < step-1e-6 {
				t.Errorf("lane labels at %.1f and %.1f overlap", centres[j], centres[i])
			}
		}
	}
	named := map[int]bool{}
	for _, c := range d.Callouts {
		for r := c.First; r <= c.Last; r++ {
			named[r] = true
		}
	}
	for i, r := range d.Rows {
		if r.Inside == nil {
			if !named[i] && r.Y < limit {
				t.Errorf("row %d has no label", i)
			}
			continue
		}
		in := r.Inside
		if in.Y-s.ascent() < r.Y || in.Y+s.descent() > r.Y+r.H {
			t.Errorf("row %d's label (%.1f) is outside the row %.1f–%.1f", i, in.Y, r.Y, r.Y+r.H)
		}
		for _, l := range d.Lines {
			if l.Y >= in.Y-s.ascent()-lineClear+1e-6 && l.Y <= in.Y+s.descent()+lineClear-1e-6 {
				t.Errorf("line at %.1f crosses row %d's label at %.1f", l.Y, i, in.Y)
			}
		}
		left := in.Name.X + TextWidth(in.Name.Text, SansBold, s.Text)
		right := in.Size.X - TextWidth(in.Size.Text, Mono, s.Small)
		if len(in.Badges) > 0 {
			right = in.Badges[0].X
		}
		if left > right+1e-6 || in.Name.X < s.textX() {
			t.Errorf("row %d's name %q runs into its size or badges (%.1f > %.1f)", i, in.Name.Text, left, right)
		}
		if in.Role != nil && in.Role.X+TextWidth(in.Role.Text, Sans, s.Small) > in.Name.X {
			t.Errorf("row %d's role runs into its name", i)
		}
		for _, e := range r.Excerpt {
			if TextWidth(e.Text, Mono, s.Small) > s.textEnd()-s.textX() || e.Y > r.Y+r.H {
				t.Errorf("row %d's excerpt line %q does not fit", i, e.Text)
			}
		}
	}
	if len(d.Rows) != rows {
		t.Errorf("%d rows drawn; want %d", len(d.Rows), rows)
	}
}
