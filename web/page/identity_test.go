package page

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/web/internal/testlessons"
)

// truthConds are the narration conditions whose answer a run's identity
// decides: frameView.cond's own names; any other name is a figure's, true
// where the figure is not zero (narrationIdentity keeps that). A lesson
// with a condition of another kind has no identity shorter than its runs.
var truthConds = map[string]bool{"in": true, "seen": true, "fact": true, "holds": true, "kept": true, "card": true, "policy": true, "kind": true, "error": true}

// narrationIdentity is what the truth check of l's run r under p can
// read, hashed; ok is false when it cannot tell (see truthConds). It is
// every exported field of every frame, its blocks and the run's panels
// and figures, except that a figure's value counts only as zero, one or
// another number, and the threshold line only by its label: the check
// reads a figure's value only where it fills a placeholder (marked and
// skipped), decides a condition on it (zero or not) or finds a mechanical
// excerpt (one). Also hashed: what p answers to the narration's
// {?policy:k=v} conditions and whether each parameter is set ({param:…}
// fills a value). Two runs of one identity give the check the same text
// wherever it looks, so a sweep checks one of them.
//
// The hash is maphash's 64 bits under one seed per test binary: among the
// few thousand runs of a sweep, two identities collide with a chance
// under 1e-12.
func narrationIdentity(l *scenarios.Lesson, p sim.Policy, r *sim.Replay) (id uint64, ok bool) {
	h := &identityHash{strs: map[stringKey]uint64{}}
	h.h.SetSeed(identitySeed)
	for _, secs := range l.Narration {
		for _, sec := range secs {
			for _, c := range sec.Chunks {
				for _, cd := range c.Conds {
					if !truthConds[cd.Name] && cd.Arg != "" {
						return id, false
					}
					if cd.Name == "policy" {
						k, v, _ := strings.Cut(cd.Arg, "=")
						fmt.Fprintf(&h.h, "%s=%t;", cd.Arg, p.Get(k) == v)
					}
				}
			}
		}
	}
	for _, pr := range l.Params() {
		fmt.Fprintf(&h.h, "%s:%t;", pr.Name, p.Get(pr.Name) != "")
	}
	h.value(reflect.ValueOf([]any{r.Window, r.Panels, r.Figures}))
	for i := range r.Frames {
		f := r.Frames[i]
		f.Line.Tokens = 0
		h.value(reflect.ValueOf(&f))
		h.value(reflect.ValueOf(f.Blocks()))
	}
	return h.h.Sum64(), true
}

// identitySeed is the seed of every narrationIdentity of the test binary.
var identitySeed = maphash.MakeSeed()

// identityHash hashes values by their exported fields; a string's text is
// hashed once (a run's frames share their blocks' texts).
type identityHash struct {
	h    maphash.Hash
	strs map[stringKey]uint64
	buf  [8]byte
}

type stringKey struct {
	p *byte
	n int
}

var figureType = reflect.TypeFor[sim.Figure]()

func (w *identityHash) int(n int64) {
	binary.LittleEndian.PutUint64(w.buf[:], uint64(n))
	w.h.Write(w.buf[:])
}

func (w *identityHash) string(s string) {
	w.int(int64(len(s)))
	if len(s) < 64 {
		w.h.WriteString(s)
		return
	}
	k := stringKey{unsafe.StringData(s), len(s)}
	d, ok := w.strs[k]
	if !ok {
		d = maphash.String(identitySeed, s)
		w.strs[k] = d
	}
	w.int(int64(d))
}

func (w *identityHash) value(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			w.int(-1)
			return
		}
		w.int(1)
		w.value(v.Elem())
	case reflect.Struct:
		if v.Type() == figureType {
			g := v.Interface().(sim.Figure)
			w.string(g.Name)
			w.int(int64(g.Unit))
			w.string(g.Str)
			w.int(int64(min(max(g.Value, -1), 2))) // zero, one, or another number
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				w.value(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		w.int(int64(v.Len()))
		for i := range v.Len() {
			w.value(v.Index(i))
		}
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		w.int(int64(len(keys)))
		for _, k := range keys {
			w.value(k)
			w.value(v.MapIndex(k))
		}
	case reflect.String:
		w.string(v.String())
	case reflect.Bool:
		if v.Bool() {
			w.int(1)
		} else {
			w.int(0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.int(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		w.int(int64(v.Uint()))
	case reflect.Float32, reflect.Float64:
		w.int(int64(math.Float64bits(v.Float())))
	default:
		panic(fmt.Sprintf("narrationIdentity: cannot hash a %s", v.Type()))
	}
}

// TestNarrationIdentity: runs that differ in the threshold's figures
// only (compaction off) share an identity; runs that compact at other
// steps do not; a narration with a condition the identity cannot decide
// has none.
func TestNarrationIdentity(t *testing.T) {
	ls, err := testlessons.Imported()
	if err != nil {
		t.Fatal(err)
	}
	b, err := testlessons.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	l := ls[slices.IndexFunc(ls, func(l *scenarios.Lesson) bool { return l.ID == "session-grouped" })]
	id := func(compaction, threshold string) uint64 {
		t.Helper()
		p, err := l.With(l.DefaultPolicy(), "compaction", compaction)
		if err == nil {
			p, err = l.With(p, "threshold", threshold)
		}
		if err != nil {
			t.Fatal(err)
		}
		r, err := sim.Run(l.Lesson, p, b.Tokens)
		if err != nil {
			t.Fatal(err)
		}
		v, ok := narrationIdentity(l, p, r)
		if !ok {
			t.Fatalf("%s: no identity", p)
		}
		return v
	}
	if id("off", "50") != id("off", "51") {
		t.Errorf("compaction off: thresholds 50 and 51 have other identities")
	}
	if id("on", "10") == id("on", "90") {
		t.Errorf("compaction on: thresholds 10 and 90 share an identity")
	}
	odd := *l
	odd.Narration = map[string]map[string]scenarios.Section{"en": {"x": {Chunks: []scenarios.Chunk{{Conds: []scenarios.Cond{{Name: "over", Arg: "90"}}}}}}}
	p := l.DefaultPolicy()
	r, err := sim.Run(l.Lesson, p, b.Tokens)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := narrationIdentity(&odd, p, r); ok {
		t.Errorf("a narration with {?over:90} has an identity")
	}
}
