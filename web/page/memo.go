package page

import (
	"fmt"
	"sync"

	"ctxsim/sim"
	"ctxsim/views"
	"ctxsim/web/internal/lru"
)

// frameMemo keeps, for a static copy, what the pages of one frame share: its
// window drawing and its headline, by preset run, frame and language. A
// static copy renders every page of every preset run, and one frame's window
// is drawn on its page, its presenter view, the comparisons and the handout,
// its headline on the step track of every step near it. Windows are kept in
// an LRU (Site lists the pages of one policy together, so the windows they
// share are recent); headlines, a few thousand strings, all. The live
// server keeps whole pages instead.
type frameMemo struct {
	windows   *lru.Cache[*views.Window] // frameKey.String() → window, cost 1
	headlines sync.Map                  // frameKey → string
}

// memoWindows is how many windows a static copy keeps: the frames of a few
// policies, which is what the pages rendered at once share.
const memoWindows = 128

func newFrameMemo() *frameMemo { return &frameMemo{windows: lru.New[*views.Window](memoWindows)} }

type frameKey struct {
	run   *sim.Replay
	i     int
	lang  string
	style string
}

func (k frameKey) String() string { return fmt.Sprintf("%p/%d/%s/%s", k.run, k.i, k.lang, k.style) }

// memoFor returns the memo for v's frame, nil when frames are not kept (a
// live server, a typed policy's run).
func (b *Builder) memoFor(v *frameView) (*frameMemo, frameKey) {
	if b.memo == nil || !b.runs.IsKept(v.run) {
		return nil, frameKey{}
	}
	return b.memo, frameKey{v.run, v.i, v.ui.Lang, v.style.Name}
}

// windowView draws a frame's window to scale, once per frame in a static
// copy. Pages share the result and never change it.
func (b *Builder) windowView(v *frameView) views.Window {
	m, k := b.memoFor(v)
	if m == nil {
		return b.drawFrame(v)
	}
	w, _ := m.windows.GetOrMake(k.String(), func() (*views.Window, int64, error) {
		w := b.drawFrame(v)
		return &w, 1, nil
	})
	return *w
}

// headlineOf is a frame's narration headline, once per frame in a static
// copy.
func (b *Builder) headlineOf(v *frameView) string {
	m, k := b.memoFor(v)
	if m == nil {
		return v.headline()
	}
	if h, ok := m.headlines.Load(k); ok {
		return h.(string)
	}
	h := v.headline()
	m.headlines.Store(k, h)
	return h
}
