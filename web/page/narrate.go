package page

import (
	"fmt"
	"strings"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/views/catalog"
	"ctxsim/views/draw"
)

// frameView is one frame of a run as the page words it: its figures,
// blocks and history, in one language. It resolves narration placeholders
// and conditions, and fills catalog messages.
type frameView struct {
	l      *scenarios.Lesson
	p      sim.Policy
	frames []sim.Frame
	i      int // index of the frame
	f      *sim.Frame
	run    *sim.Replay
	ui     catalog.Messages
	conds  map[string]bool // conditions decided so far ("name:arg")
	style  draw.Style      // how the window is drawn: for a page, or a projector
	second bool            // the frame is a second window's (it draws no ghost)
	bs     []sim.Block     // the blocks of bsOf, copied once
	bsOf   *sim.Frame
}

// blocks are the frame's blocks (sim.Frame.Blocks makes a copy: a view
// makes it once).
func (v *frameView) blocks() []sim.Block {
	if v.bsOf != v.f {
		v.bs, v.bsOf = v.f.Blocks(), v.f
	}
	return v.bs
}

func newFrameView(l *scenarios.Lesson, p sim.Policy, r *sim.Replay, i int, ui catalog.Messages) *frameView {
	return &frameView{l: l, p: p, frames: r.Frames, i: i, f: &r.Frames[i], run: r, ui: ui, style: draw.Page}
}

// figure finds a figure of the frame or of the run; window is the
// lesson's.
func (v *frameView) figure(name string) (sim.Figure, bool) {
	if name == "window" {
		return sim.Figure{Name: name, Value: v.run.Window, Unit: sim.UnitTokens}, true
	}
	if g, ok := v.f.Figure(name); ok {
		return g, true
	}
	for _, g := range v.run.Figures {
		if g.Name == name {
			return g, true
		}
	}
	return sim.Figure{}, false
}

// format writes a figure in the page's language.
func (v *frameView) format(g sim.Figure) string {
	switch g.Unit {
	case sim.UnitTokens:
		if g.Name == "window" {
			return limitOf(v.l.Lesson, g.Value)
		}
		return sizeOf(v.l.Lesson, g.Value)
	case sim.UnitSigned:
		return signed(v.l.Lesson, g.Value)
	case sim.UnitPercent:
		return fmt.Sprintf("%d%%", g.Value)
	case sim.UnitChars:
		return exact(g.Value)
	case sim.UnitRatio:
		return fmt.Sprintf("%.2f", float64(g.Value)/1000)
	case sim.UnitTenths:
		return fmt.Sprintf("%.1f", float64(g.Value)/10)
	case sim.UnitText:
		return g.Str
	case sim.UnitKey:
		return v.ui.T(g.Str)
	case sim.UnitBlock:
		if b, ok := v.seen(g.Str); ok {
			return v.label(b)
		}
		return g.Str
	}
	return exact(g.Value)
}

// args turns figures into catalog arguments.
func (v *frameView) args(figs []sim.Figure) map[string]string {
	out := make(map[string]string, len(figs))
	for _, g := range figs {
		out[g.Name] = v.format(g)
	}
	return out
}

// frameArgs are every figure of the frame and the run, with total,
// window and session, as catalog arguments.
func (v *frameView) frameArgs() map[string]string {
	args := v.args(v.f.Figures)
	for k, g := range v.args(v.run.Figures) {
		args[k] = g
	}
	for _, n := range []string{"total", "window", "session"} {
		g, _ := v.figure(n)
		args[n] = v.format(g)
	}
	return args
}

// msg fills a catalog message with figures.
func (v *frameView) msg(m sim.Msg) string { return v.ui.F(m.Key, v.args(m.Args)) }

// label names a block in the page's language.
func (v *frameView) label(b *sim.Block) string {
	name := b.Label.In(v.ui.Lang)
	if b.LabelKey != "" {
		arg := name
		if arg == "" {
			arg = b.Tool
		}
		return v.ui.F(b.LabelKey, map[string]string{"0": arg})
	}
	if name == "" {
		return v.ui.T("kind." + string(b.Kind))
	}
	return name
}

// block finds a block of the current request (or the pending summary) by
// id, or by a figure that names a block.
func (v *frameView) block(ref string) (*sim.Block, bool) {
	if g, ok := v.figure(ref); ok && g.Unit == sim.UnitBlock {
		ref = g.Str
	}
	return v.f.Block(ref)
}

// seen finds a block by id (or figure) in this frame or an earlier one,
// latest first.
func (v *frameView) seen(ref string) (*sim.Block, bool) {
	if g, ok := v.figure(ref); ok && g.Unit == sim.UnitBlock {
		ref = g.Str
	}
	for j := v.i; j >= 0; j-- {
		if b, ok := v.frames[j].Block(ref); ok {
			return b, true
		}
	}
	return nil, false
}

// Value resolves a narration placeholder.
func (v *frameView) Value(name, arg string) (string, bool) {
	switch name {
	case "size":
		if b, ok := v.seen(arg); ok {
			return sizeOf(v.l.Lesson, b.Tokens), true
		}
		return "", false
	case "label":
		if b, ok := v.seen(arg); ok {
			return v.label(b), true
		}
		return "", false
	case "fact":
		for _, f := range v.l.Facts {
			if f.ID == arg {
				return f.Label.In(v.ui.Lang), true
			}
		}
		return "", false
	case "attr":
		id, attr, _ := strings.Cut(arg, ":")
		if b, ok := v.seen(id); ok {
			if n, ok := b.Attr(attr); ok {
				return exact(n), true
			}
		}
		return "", false
	case "param":
		return v.p.Get(arg), v.p.Get(arg) != ""
	case "step":
		return itoa(v.f.Step), true
	case "steps":
		return itoa(len(v.frames)), true
	}
	if arg != "" {
		return "", false
	}
	if g, ok := v.figure(name); ok {
		return v.format(g), true
	}
	return "", false
}

// Cond decides a narration condition, once per frame view.
func (v *frameView) Cond(name, arg string) (bool, bool) {
	k := name + ":" + arg
	if c, ok := v.conds[k]; ok {
		return c, true
	}
	c, ok := v.cond(name, arg)
	if ok {
		if v.conds == nil {
			v.conds = map[string]bool{}
		}
		v.conds[k] = c
	}
	return c, ok
}

func (v *frameView) cond(name, arg string) (bool, bool) {
	switch name {
	case "in":
		ref := refOf(v, arg)
		in := false
		v.f.EachBlock(func(b *sim.Block) bool { in = b.ID == ref; return !in })
		return in, true
	case "seen":
		_, ok := v.seen(arg)
		return ok, true
	case "fact":
		found := false
		v.f.EachBlock(func(b *sim.Block) bool { found = v.factIn(arg, b); return !found })
		return found, true
	case "holds":
		ref, fact, _ := strings.Cut(arg, ":")
		b, ok := v.block(ref)
		return ok && v.factIn(fact, b), true
	case "kept":
		s, ok := v.summary()
		return ok && v.factIn(arg, s), true
	case "card":
		s, ok := v.summary()
		return ok && s.Summary != nil && s.Summary.Card == arg, true
	case "policy":
		k, val, _ := strings.Cut(arg, "=")
		return v.p.Get(k) == val, true
	case "kind":
		return string(v.f.Kind) == arg, true
	case "error":
		return v.f.Error != "", true
	}
	if arg != "" {
		return false, false
	}
	g, ok := v.figure(name)
	return ok && (g.Unit == sim.UnitText || g.Unit == sim.UnitBlock || g.Value != 0), true
}

func refOf(v *frameView, ref string) string {
	if g, ok := v.figure(ref); ok && g.Unit == sim.UnitBlock {
		return g.Str
	}
	return ref
}

// summary is the summary a frame is about: the pending one, the one its
// compaction made, or the newest in the request.
func (v *frameView) summary() (*sim.Block, bool) {
	if v.f.Pending != nil {
		return v.f.Pending, true
	}
	if b, ok := v.block("summary-block"); ok {
		return b, true
	}
	var newest *sim.Block
	v.f.EachBlock(func(b *sim.Block) bool {
		if b.Summary != nil && b.Kind == sim.KindSummary {
			c := *b
			newest = &c
		}
		return true
	})
	return newest, newest != nil
}

// factIn reports whether a fact's pattern matches block b.
func (v *frameView) factIn(id string, b *sim.Block) bool {
	for _, f := range v.l.Facts {
		if f.ID == id && f.Pattern != nil && v.l.Holds(f, b.Content) {
			return true
		}
	}
	return false
}

// narration renders the frame's section: the first of its keys the lesson
// has, then the frame kind's generic section (@step, @crossed).
func (v *frameView) narration() (scenarios.Section, string, string, error) {
	sec, err := v.section()
	if err != nil {
		return sec, "", "", err
	}
	h, body, err := sec.Render(v)
	return sec, h, body, err
}

// section is the frame's section: the first of its keys the lesson has,
// then the frame kind's generic section.
func (v *frameView) section() (scenarios.Section, error) {
	keys := append(append([]string{}, v.f.Narration...), "@"+string(v.f.Kind))
	sec, ok := v.l.Section(v.ui.Lang, keys...)
	if !ok {
		return sec, fmt.Errorf("lesson %s: no narration for frame %d (any of %s)", v.l.ID, v.f.Step, strings.Join(keys, ", "))
	}
	return sec, nil
}

// checkNarration resolves a frame's narration, the about sections and the
// panels' prose (every condition, and every placeholder shown), as
// start-up does for every preset frame.
func (b *Builder) checkNarration(l *scenarios.Lesson, p sim.Policy, r *sim.Replay, i int, lang string) error {
	v := newFrameView(l, p, r, i, b.cat.For(lang))
	sec, err := v.section()
	if err != nil {
		return err
	}
	if err := sec.Check(v); err != nil {
		return err
	}
	about := append([]string{}, l.About...)
	for _, pn := range append(append([]sim.Panel{}, r.Frames[i].Panels...), r.Panels...) {
		if pn.Section != "" {
			about = append(about, pn.Section)
		}
	}
	for _, k := range about {
		if sec, ok := l.Section(lang, k); ok {
			if err := sec.Check(v); err != nil {
				return err
			}
		}
	}
	return nil
}
