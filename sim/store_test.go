package sim_test

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	"ctxsim/sim"
)

// TestClosedFramesAsEmitted: every frame of every preset run of every
// shipped lesson gives back, once closed into the blocks the run's frames
// share, exactly the blocks its mechanisms left it with when it was
// emitted: flags, badges and attributes included.
func TestClosedFramesAsEmitted(t *testing.T) {
	tok, err := loadTok()
	if err != nil {
		t.Fatal(err)
	}
	ls, err := loadBuiltins()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range slices.Sorted(maps.Keys(ls)) {
		l := ls[id]
		for _, p := range l.PresetPolicies() {
			r, open, err := sim.RunOpen(l, p, tok)
			if err != nil {
				t.Fatal(err)
			}
			for i := range r.Frames {
				got := r.Frames[i].Blocks()
				if len(got) == 0 && len(open[i]) == 0 {
					continue
				}
				if !reflect.DeepEqual(got, open[i]) {
					t.Fatalf("%s under %s, frame %d: closed blocks differ from the emitted ones:\n got %+v\nwant %+v", id, p, i+1, got, open[i])
				}
				var each []sim.Block
				r.Frames[i].EachBlock(func(b *sim.Block) bool { each = append(each, *b); return true })
				if !reflect.DeepEqual(each, open[i]) {
					t.Fatalf("%s under %s, frame %d: EachBlock differs from the emitted blocks:\n got %+v\nwant %+v", id, p, i+1, each, open[i])
				}
				for j := range got {
					b, ok := r.Frames[i].Block(got[j].ID)
					if !ok || !reflect.DeepEqual(*b, got[j]) && firstWithID(got, got[j].ID) == j {
						t.Fatalf("%s under %s, frame %d: Block(%s) = %+v, %v; want %+v", id, p, i+1, got[j].ID, b, ok, got[j])
					}
				}
			}
		}
	}
}

func firstWithID(bs []sim.Block, id string) int {
	return slices.IndexFunc(bs, func(b sim.Block) bool { return b.ID == id })
}
