package sim

import (
	"cmp"
	"slices"
	"sync"
)

// ProviderUsage is the usage mechanism of a recorded session: where the
// file records the provider's count of a model call (its usage), that
// count is the truth the window is drawn with.
//
//   - What the file does not hold (the system prompt, the tool
//     definitions, memory files, the environment) is a block of kind
//     KindUnseen in the header: the lesson's system block when the file
//     holds no system prompt, else a block of its own after it. It is
//     sized from the first recorded request (what that request held less
//     what the file holds) and, after a compaction, from the first
//     recorded request after it; compaction never touches it.
//   - Each message is sized by the provider: the growth between two
//     recorded requests is shared among the messages added between them,
//     in proportion to their o200k_base counts (largest remainder, so the
//     sums are exact). At every recorded model call of the session as
//     recorded, the request's total is then the provider's count.
//   - What no recorded request sizes (the messages after the last one,
//     those a compaction took before a request counted them) keeps its
//     o200k_base count and is marked an estimate; so is every block of a
//     session that records no usage.
//
// The frame that shows a recorded model call's request (a step shown as
// its request) carries the provider's count and its prompt-cache split
// (Frame.Provider) and a panel beside the window; where the replayed
// request is the recorded one, the prefix the provider read from its
// cache is marked on the window.
type ProviderUsage struct {
	// Asides are model calls the file records beside the session's own:
	// the call that wrote a compaction's summary, a Task call's
	// sub-agent. A frame shows each as its second window, sized by the
	// provider's count of its (last) request.
	Asides []Aside `yaml:"asides,omitempty"`
	memo   *calibrationMemo
}

// Aside is a model call a recorded session's file records beside the
// session's own: its last request, as the second window of the frames
// that show it.
type Aside struct {
	// Kind is AsideCompactor (the call that wrote the summary of card At:
	// shown beside the summary) or AsideSubagent (the sub-agent of the
	// Task call whose tool_use id is At: shown on the frame its result
	// enters).
	Kind  string `yaml:"kind"`
	At    string `yaml:"at"`
	File  string `yaml:"file"`            // its file, beside the session's
	Model string `yaml:"model,omitempty"` // the model it ran on
	// Messages are what its request held that the file records: the
	// sub-agent's conversation up to its last request (the assistant
	// messages with the usage of the requests they answered), or what the
	// compactor was sent after the session's own messages.
	Messages []AsideMessage `yaml:"messages"`
	Usage    AsideUsage     `yaml:"usage"` // the provider's count of its (last) request
}

// The kinds of Aside.
const (
	AsideCompactor = "compactor"
	AsideSubagent  = "subagent"
)

// AsideMessage is one message of an Aside's request.
type AsideMessage struct {
	ID      string      `yaml:"id"`
	Role    Role        `yaml:"role"`
	Kind    Kind        `yaml:"kind,omitempty"` // text (default), tool_call or tool_result
	Label   string      `yaml:"label"`
	Content string      `yaml:"content"`
	Usage   *AsideUsage `yaml:"usage,omitempty"` // an assistant message: the request it answered
}

// AsideUsage is the provider's count of an Aside's request.
type AsideUsage struct {
	Input         int `yaml:"input"`
	CacheRead     int `yaml:"cache_read"`
	CacheCreation int `yaml:"cache_creation"`
}

func (u AsideUsage) usage() *Usage {
	return &Usage{Input: u.Input, CacheRead: u.CacheRead, CacheCreation: u.CacheCreation}
}

// calibrationMemo keeps a lesson's calibration and its asides' windows,
// computed at its first replay: they depend on the trace only.
type calibrationMemo struct {
	once   sync.Once
	c      *calibration
	asides []*SecondWindow
}

// Memoized is u computing its lesson's calibration once, at the first
// replay, for every replay after (loaders build the mechanism with it).
func (u ProviderUsage) Memoized() ProviderUsage {
	u.memo = &calibrationMemo{}
	return u
}

// Name is "usage".
func (ProviderUsage) Name() string { return "usage" }

// texts are what the asides' messages say.
func (u ProviderUsage) texts() []string {
	var out []string
	for _, a := range u.Asides {
		for _, m := range a.Messages {
			out = append(out, m.Content)
		}
	}
	return out
}

// Params: none.
func (ProviderUsage) Params() []Param { return nil }

func (u ProviderUsage) start(h *harness) hooks {
	if !h.l.Counted {
		// A lesson whose trace gives every size keeps them: the panel
		// shows the provider's count beside the replay's.
		return &usageRun{cal: &calibration{}, sized: true}
	}
	var c *calibration
	var asides []*SecondWindow
	if u.memo != nil {
		u.memo.once.Do(func() { u.memo.c, u.memo.asides = calibrate(h.l, h.tok), u.windows(h.tok) })
		c, asides = u.memo.c, u.memo.asides
	} else {
		c, asides = calibrate(h.l, h.tok), u.windows(h.tok)
	}
	if c.requests > 0 {
		h.calib = c
	}
	r := &usageRun{cal: c, asides: u.Asides, windows: asides}
	for _, st := range h.l.Trace {
		r.requests = r.requests || st.ShowRequest
	}
	return r
}

// Calibrated reports whether l sizes its blocks by the provider's
// recorded counts: it counts its texts, has the usage mechanism, and its
// trace records the usage of a model call.
func (l *Lesson) Calibrated() bool {
	if _, ok := l.Mechanism("usage"); !ok || !l.Counted {
		return false
	}
	for _, st := range l.Trace {
		for _, m := range st.Messages {
			if m.Usage != nil {
				return true
			}
		}
	}
	return false
}

// calibration is what a recorded session's usage says of its blocks.
type calibration struct {
	sizes    map[string]int  // the provider's size of each block a recorded request sized, by id
	estimate map[string]bool // blocks of the trace no recorded request sized: their o200k_base count
	// base is the unseen block's size after k compactions (base[0]: at
	// the session's start); delta is what it changes by when a block
	// enters (a request smaller than what entered before it).
	base     []int
	delta    map[string]int
	requests int // model calls whose usage the trace records
}

// Badge and attribute names of a calibrated lesson.
const (
	badgeEstimate = "estimate" // a block sized by its o200k_base count where the provider's is not known
	unseenID      = "unseen"   // the unseen block of a session whose file holds a system prompt
)

// size gives b, a block of the trace or a card, the provider's size when
// a recorded request sized it, else marks it an estimate.
func (c *calibration) size(b *Block) {
	if n, ok := c.sizes[b.ID]; ok {
		b.Tokens = n
		return
	}
	if c.estimate[b.ID] {
		b.Badges = append(b.Badges, Badge{Key: badgeEstimate, Tone: "muted", Minor: true})
	}
}

// unseenAfter is the unseen block's size after k compactions.
func (c *calibration) unseenAfter(k int) int {
	if len(c.base) == 0 {
		return 0
	}
	return c.base[min(k, len(c.base)-1)]
}

// pending is a block a recorded request has not sized yet: its id, its
// o200k_base count, and whether its text is not what the provider read
// (an opaque summary: sized by what the request holds beyond the rest).
type pending struct {
	id     string
	count  int
	opaque bool
}

// calibrate walks the trace as the session happened (compacting where it
// did) and sizes its blocks from the recorded usage.
func calibrate(l *Lesson, tok Tokenizer) *calibration {
	w := &walk{c: &calibration{sizes: map[string]int{}, estimate: map[string]bool{}, delta: map[string]int{}}, fresh: true}
	if l.System.Kind != KindUnseen {
		w.header = tok.Count(l.System.Content)
	}
	cards := map[string]*Card{}
	for _, m := range l.Mechanisms {
		if cm, ok := m.(Compaction); ok {
			for i := range cm.Cards {
				cards[cm.Cards[i].ID] = &cm.Cards[i]
			}
		}
	}
	for _, st := range l.Trace {
		switch st.Type {
		case StepCompact:
			card := cards[st.Card]
			if card == nil || len(card.Versions) == 0 {
				continue
			}
			w.compact(pending{id: card.ID, count: tok.Count(card.Versions[0].Content), opaque: card.Opaque})
		case StepMessages:
			for i := range st.Messages {
				m := &st.Messages[i]
				if m.Role == RoleAssistant && !m.Continues && m.Usage != nil {
					w.request(m.Usage.InputTotal())
				}
				w.pending = append(w.pending, pending{id: m.ID, count: tok.Count(m.Content)})
			}
		}
	}
	w.unsized()
	return w.c
}

// walk is the session as recorded, as calibrate walks it.
type walk struct {
	c       *calibration
	header  int       // the system block's o200k_base count (0 when it is the unseen block)
	unseen  int       // the unseen block now
	known   int       // the conversation's blocks sized so far
	pending []pending // blocks entered since the last recorded request
	comps   int       // compactions so far
	fresh   bool      // no recorded request since the session started or compacted
}

// unsized marks the pending blocks as estimates: no recorded request
// sized them.
func (w *walk) unsized() {
	for _, p := range w.pending {
		w.c.estimate[p.id] = true
	}
	w.pending = w.pending[:0]
}

// compact is a recorded compaction: the conversation becomes its summary.
func (w *walk) compact(summary pending) {
	w.unsized()
	w.known, w.comps, w.fresh = 0, w.comps+1, true
	w.pending = append(w.pending, summary)
}

// request is a recorded model call of p tokens: the blocks entered since
// the last one are sized.
func (w *walk) request(p int) {
	w.c.requests++
	n := make([]int, len(w.pending))
	sum := 0
	for i, b := range w.pending {
		n[i] = b.count
		sum += b.count
	}
	if w.fresh {
		w.fresh = false
		w.first(p, n, sum)
		for len(w.c.base) <= w.comps {
			w.c.base = append(w.c.base, w.unseen) // a segment without a request keeps the size before it
		}
		w.c.base[w.comps] = w.unseen
		return
	}
	g := p - w.header - w.unseen - w.known
	if g >= 0 || len(w.pending) == 0 {
		w.settle(share(max(g, 0), n))
		return
	}
	// The request is smaller than the one before: something the file does
	// not hold left it (a thinking block the provider drops). What entered
	// keeps its o200k_base count; the unseen block shrinks by the rest.
	d := g - sum
	w.c.delta[w.pending[0].id] += d
	w.unseen += d
	w.settle(n)
}

// first sizes the first recorded request of the session or after a
// compaction: what entered keeps its o200k_base count and the unseen
// block is the rest, but for an opaque summary, which is the rest.
func (w *walk) first(p int, n []int, sum int) {
	for i, b := range w.pending {
		if !b.opaque {
			continue
		}
		if rest := p - w.header - w.unseen - w.known - (sum - n[i]); rest >= 0 {
			n[i] = rest
			w.settle(n)
			return
		}
	}
	u := p - w.header - w.known - sum
	if u < 0 {
		// The file holds more than the provider counted: what it holds
		// shares the request, and nothing is unseen.
		u, n = 0, share(max(p-w.header-w.known, 0), n)
	}
	w.unseen = u
	w.settle(n)
}

// settle gives the pending blocks their sizes.
func (w *walk) settle(sizes []int) {
	for i, b := range w.pending {
		w.c.sizes[b.id] = sizes[i]
		w.known += sizes[i]
	}
	w.pending = w.pending[:0]
}

// share divides n among weights in proportion, by largest remainder: the
// parts sum to n exactly. Without weights it divides n equally.
func share(n int, weights []int) []int {
	out := make([]int, len(weights))
	total := 0
	for _, w := range weights {
		total += w
	}
	if total == 0 {
		weights = slices.Repeat([]int{1}, len(weights))
		total = len(weights)
	}
	if total == 0 {
		return out
	}
	order := make([]int, len(weights)) // by remainder, largest first; ties to the earlier block
	given := 0
	for i, w := range weights {
		out[i] = n * w / total
		given += out[i]
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return n*weights[b]%total - n*weights[a]%total })
	for _, i := range order[:n-given] {
		out[i]++
	}
	return out
}

type usageRun struct {
	base
	asides   []Aside
	windows  []*SecondWindow // each aside's request, as drawn
	cal      *calibration
	sized    bool // the trace gives every size: no calibration, no estimates
	requests bool // the trace shows steps as their requests: the request frames carry the provider's count
	comps    int
	unseen   int // the unseen block's size now
}

// sessionStart puts the unseen block in the header: the system block when
// it is the unseen one, else a block of its own after it.
func (r *usageRun) sessionStart(h *harness) {
	if r.cal.requests == 0 {
		return
	}
	r.comps = 0
	r.setUnseen(h, r.cal.unseenAfter(0))
}

// setUnseen sizes the unseen block.
func (r *usageRun) setUnseen(h *harness, n int) {
	r.unseen = max(n, 0)
	if h.system != nil && h.system.Kind == KindUnseen {
		h.system.Tokens = r.unseen
		return
	}
	for i := range h.injected {
		if h.injected[i].ID == unseenID {
			h.injected[i].Tokens = r.unseen
			return
		}
	}
	if r.unseen > 0 {
		h.injected = append(h.injected, Block{ID: unseenID, Role: RoleSystem, Kind: KindUnseen, LabelKey: "block.unseen",
			Tokens: r.unseen, Origin: &Msg{Key: "unseen"}})
	}
}

// afterCompaction sizes the unseen block as the first request after the
// session's own compaction found it.
func (r *usageRun) afterCompaction(h *harness) {
	if r.cal.requests == 0 {
		return
	}
	r.comps++
	r.setUnseen(h, r.cal.unseenAfter(r.comps))
}

// entered applies a change of the unseen part the recording dates to this
// block, and carries the provider's count on an answer.
func (r *usageRun) entered(h *harness, b *Block) {
	if d, ok := r.cal.delta[b.ID]; ok {
		r.setUnseen(h, r.unseen+d)
	}
	if u := b.Usage; u != nil && b.Role == RoleAssistant {
		b.Attrs = append(b.Attrs, Attr{"provider_input", u.InputTotal()})
	}
}

// frame carries the provider's count on the frame that shows a recorded
// model call's request, with a panel beside it; it says so where sizes
// are estimates.
func (r *usageRun) frame(h *harness, f *Frame, fc frameCtx) {
	estimates := 0
	for i := range f.req.count() {
		for _, bd := range f.req.view(i).Badges {
			if bd.Key == badgeEstimate {
				estimates++
			}
		}
	}
	switch {
	case r.sized:
	case r.cal.requests == 0:
		f.Legend = "legend.usage-none"
	case estimates > 0:
		f.Figures = append(f.Figures, count("estimates", estimates))
		f.Legend = "legend.usage-estimates"
	}
	r.aside(f)
	if fc.request {
		f.Figures = append(f.Figures, count("request", 1)) // narration's {?request}: the frame is a model call's request
		if m := h.next; m != nil && m.Usage != nil {
			r.request(f, *m.Usage)
		}
		return
	}
	if !r.requests {
		r.answered(f)
	}
}

// request puts the provider's count of the request f shows on it.
func (r *usageRun) request(f *Frame, u Usage) {
	p := u.InputTotal()
	f.Provider = &ProviderCount{Tokens: p, Input: u.Input, CacheRead: u.CacheRead, CacheWritten: u.CacheCreation, Matches: f.Total == p}
	f.Figures = append(f.Figures, tokens("provider-input", p), tokens("replay-input", f.Total), tokens("provider-read", u.CacheRead),
		tokens("provider-written", u.CacheCreation), tokens("provider-new", u.Input))
	if f.Total != p {
		f.Figures = append(f.Figures, signedTokens("provider-diff", f.Total-p), count("differs", 1))
	}
	rows := []Row{
		{Key: "provider", Values: []Figure{tokens("tokens", p)}, Emph: true,
			Note: &Msg{Key: "panel.usage.provider.parts", Args: []Figure{tokens("input", u.Input), tokens("read", u.CacheRead), tokens("write", u.CacheCreation)}}},
		{Key: "window", Values: []Figure{tokens("tokens", f.Total)}},
	}
	if f.Total != p && p > 0 {
		rows = append(rows, Row{Key: "difference", Values: []Figure{signedTokens("tokens", f.Total-p), percent("pct", (f.Total-p)*100/p)}})
	}
	f.Panels = append(f.Panels, Panel{ID: "usage", Tone: "info", Rows: rows})
	if f.Provider.Matches {
		// The request is the recorded one: its first CacheRead tokens came
		// from the provider's cache.
		at := 0
		for i := range f.req.count() {
			at += f.req.view(i).Tokens
			f.req.setFlag(i, flagCached, at <= u.CacheRead)
		}
	}
}

// answered puts a panel on a frame that adds a recorded model call's
// message, in a lesson whose steps are not shown as their requests: the
// provider's input for that call, and the request as this replay counts
// it (the blocks before the message).
func (r *usageRun) answered(f *Frame) {
	before := 0
	for i := range f.req.count() {
		b := f.req.view(i)
		if u := b.Usage; u != nil && f.req.flagsAt(i)&flagNew != 0 && b.Role == RoleAssistant {
			provider := u.InputTotal()
			f.Figures = append(f.Figures, tokens("provider-input", provider), tokens("replay-input", before))
			rows := []Row{
				{Key: "provider", Values: []Figure{tokens("tokens", provider)}, Emph: true,
					Note: &Msg{Key: "panel.usage.provider.parts", Args: []Figure{tokens("input", u.Input), tokens("read", u.CacheRead), tokens("write", u.CacheCreation)}}},
				{Key: "replay", Values: []Figure{tokens("tokens", before)}},
			}
			if before > 0 && provider != before {
				rows = append(rows, Row{Key: "difference", Values: []Figure{signedTokens("tokens", provider-before), percent("pct", (provider-before)*100/before)}})
			}
			f.Panels = append(f.Panels, Panel{ID: "usage", Tone: "info", Rows: rows})
			return
		}
		before += b.Tokens
	}
}

// windows draws each aside's request: what its file records, sized by the
// provider's counts as the session's own requests are (its messages
// calibrated by its recorded usage, with a block of what its file does not
// hold); a compactor's request is the session's own, drawn as one block,
// then what it was sent.
func (u ProviderUsage) windows(tok Tokenizer) []*SecondWindow {
	out := make([]*SecondWindow, len(u.Asides))
	for i, a := range u.Asides {
		if a.Kind == AsideCompactor {
			out[i] = compactorWindow(a, tok)
		} else {
			out[i] = subagentWindow(a, tok)
		}
	}
	return out
}

// compactorWindow is the compaction call's request: the session's own
// messages (what the main window holds, one block), then what it was
// sent to summarize them, at the provider's count.
func compactorWindow(a Aside, tok Tokenizer) *SecondWindow {
	total := a.Usage.usage().InputTotal()
	sw := &SecondWindow{LabelKey: "ui.window-compactor", LegendKey: "legend.compactor", IdleKey: "ui.second-idle-aside", Total: total}
	rest := total
	var sent []Block
	for _, m := range a.Messages {
		b := asideBlock(m, tok)
		rest -= b.Tokens
		sent = append(sent, b)
	}
	// The session's part: what the provider read of it from the prompt
	// cache (the main session's own requests wrote it), then the rest.
	read := min(a.Usage.CacheRead, max(rest, 0))
	var session []Block
	if read > 0 {
		session = append(session, Block{ID: a.At + "-session-read", Role: RoleUser, Kind: KindText, LabelKey: "block.compactor-read",
			Tokens: read, Origin: &Msg{Key: "compactor-session"}, Cached: true})
	}
	if rest > read {
		session = append(session, Block{ID: a.At + "-session", Role: RoleUser, Kind: KindText, LabelKey: "block.compactor-session",
			Tokens: rest - read, Origin: &Msg{Key: "compactor-session"}})
	}
	sw.Blocks = append(session, sent...)
	return sw
}

// subagentWindow is a sub-agent's last recorded request: its messages
// calibrated by its own usage, after the block of what its file does not
// hold.
func subagentWindow(a Aside, tok Tokenizer) *SecondWindow {
	l := &Lesson{Counted: true, System: Message{ID: "system", Kind: KindUnseen}}
	st := Step{Type: StepMessages}
	last := -1
	for i, m := range a.Messages {
		msg := Message{ID: m.ID, Role: m.Role, Kind: cmp.Or(m.Kind, KindText), Content: m.Content}
		if m.Usage != nil {
			msg.Usage, last = m.Usage.usage(), i
		}
		st.Messages = append(st.Messages, msg)
	}
	l.Trace = []Step{st}
	c := calibrate(l, tok)
	unseen := c.unseenAfter(0)
	for i, m := range a.Messages {
		if last >= 0 && i >= last {
			break
		}
		unseen += c.delta[m.ID]
	}
	sw := &SecondWindow{LabelKey: "ui.window-subagent", LegendKey: "legend.subagent-recorded", IdleKey: "ui.second-idle-aside"}
	sw.Blocks = append(sw.Blocks, Block{ID: a.At + "-unseen", Role: RoleSystem, Kind: KindUnseen, LabelKey: "block.unseen",
		Tokens: unseen, Origin: &Msg{Key: "unseen"}})
	for i, m := range a.Messages {
		if last >= 0 && i >= last {
			break // the request is what came before its answer
		}
		b := asideBlock(m, tok)
		if n, ok := c.sizes[m.ID]; ok {
			b.Tokens = n
		}
		sw.Blocks = append(sw.Blocks, b)
	}
	for _, b := range sw.Blocks {
		sw.Total += b.Tokens
	}
	if last >= 0 {
		markRead(sw.Blocks, a.Messages[last].Usage.CacheRead)
	}
	return sw
}

// asideBlock is an aside's message as a block, sized by its o200k_base
// count.
func asideBlock(m AsideMessage, tok Tokenizer) Block {
	return Block{ID: m.ID, Role: m.Role, Kind: cmp.Or(m.Kind, KindText), Label: Text{Fallback: m.Label}, Content: m.Content,
		Tokens: tok.Count(m.Content), Origin: &Msg{Key: OriginImported}}
}

// markRead marks the blocks wholly inside the first read tokens: what the
// provider read from its cache.
func markRead(bs []Block, read int) {
	at := 0
	for i := range bs {
		at += bs[i].Tokens
		bs[i].Cached = at <= read
	}
}

// aside shows an aside's window as the frame's second window: a
// compactor's beside the summary it wrote, a sub-agent's on the frame its
// result enters.
func (r *usageRun) aside(f *Frame) {
	if f.Second != nil {
		return
	}
	for i, a := range r.asides {
		var show bool
		switch a.Kind {
		case AsideCompactor:
			g, ok := f.Figure("summary-block") // the compaction's own frame hook named it (the pending block comes after)
			show = f.Kind == FrameSummary && ok && g.Str == a.At
		case AsideSubagent:
			for j := range f.req.count() {
				if b := f.req.view(j); f.req.flagsAt(j)&flagNew != 0 && b.Role == RoleTool && b.ToolUseID == a.At {
					show = true
				}
			}
		}
		if show {
			sw := *r.windows[i]
			f.Second = &sw
			return
		}
	}
}
