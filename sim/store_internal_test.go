package sim

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"
)

// TestSameBlockFields: two blocks that differ in any one field are
// different versions, except in the per-frame flags, which a frame keeps
// apart from the blocks it shares. A field added to Block is covered
// without a change here: sameBlock must compare it, or this fails.
func TestSameBlockFields(t *testing.T) {
	perFrame := map[string]bool{"New": true, "Selected": true, "Touched": true, "Spotlight": true, "Cached": true, "FirstChanged": true}
	kept := map[string]bool{"ref": true} // the harness's note of where a block is stored
	bt := reflect.TypeFor[Block]()
	for i := range bt.NumField() {
		sf := bt.Field(i)
		var a, b Block
		v := reflect.NewAt(sf.Type, unsafe.Pointer(uintptr(unsafe.Pointer(&b))+sf.Offset)).Elem()
		if !setSome(v) {
			t.Fatalf("Block.%s (%s): no value to try; teach setSome its type", sf.Name, sf.Type)
		}
		if got, want := sameBlock(&a, &b), perFrame[sf.Name] || kept[sf.Name]; got != want {
			t.Errorf("sameBlock of blocks that differ in %s = %v; want %v", sf.Name, got, want)
		}
		if perFrame[sf.Name] != (flagsOf(&b) != 0) {
			t.Errorf("flagsOf of a block with only %s set = %b; the per-frame flags are %v", sf.Name, flagsOf(&b), perFrame)
		}
	}
}

// setSome sets v to a value other than its zero value.
func setSome(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Int, reflect.Int8, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		m.SetMapIndex(reflect.ValueOf("en").Convert(v.Type().Key()), reflect.ValueOf("x").Convert(v.Type().Elem()))
		v.Set(m)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if !setAny(p.Elem()) {
			return false
		}
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		if !setAny(s.Index(0)) {
			return false
		}
		v.Set(s)
	default:
		return false
	}
	return true
}

// setAny sets some field of a struct (or the value itself) to non-zero.
func setAny(v reflect.Value) bool {
	if v.Kind() != reflect.Struct {
		return setSome(v)
	}
	for i := range v.NumField() {
		if v.Field(i).CanSet() && setSome(v.Field(i)) {
			return true
		}
	}
	return false
}

// longSession is a recorded-looking session of n turns (a user message, a
// model's answer with provider usage) with no compaction.
func longSession(t *testing.T, n int, mechs ...Mechanism) *Lesson {
	var steps []Step
	for i := range n {
		steps = append(steps, Step{ID: fmt.Sprintf("t%d", i), Type: StepMessages, Messages: []Message{
			msg(fmt.Sprintf("u%d", i), RoleUser, 10, fmt.Sprintf("question %d", i)),
			{ID: fmt.Sprintf("a%d", i), Role: RoleAssistant, Tokens: 20, Content: fmt.Sprintf("answer %d", i), Usage: &Usage{Input: 100 + 30*i}},
		}})
	}
	return handLesson(t, 10_000_000, steps, mechs...)
}

// TestHeldLinear: a replay keeps each block once, plus what a frame shows
// differently (the provider's count on the one new answer): twice the
// session's length keeps twice the blocks, where drawing every frame's
// request draws four times as many.
func TestHeldLinear(t *testing.T) {
	mechs := []Mechanism{Compaction{Threshold: 92, Presets: []int{92}, Tail: 2}, ProviderUsage{}, PromptCache{}}
	held, drawn := map[int]int{}, map[int]int{}
	for _, n := range []int{200, 400} {
		l := longSession(t, n, mechs...)
		r, err := Run(l, l.DefaultPolicy(), wordCount{})
		if err != nil {
			t.Fatal(err)
		}
		held[n] = r.Held()
		for i := range r.Frames {
			drawn[n] += r.Frames[i].BlockCount()
		}
		t.Logf("%d turns: %d frames, held %d, drawn %d, spans/marks/over of last %d/%d/%d", n, len(r.Frames), held[n], drawn[n], len(r.Frames[len(r.Frames)-1].req.spans), len(r.Frames[len(r.Frames)-1].req.marks), len(r.Frames[len(r.Frames)-1].req.over))
		if blocks := 1 + 2*n; held[n] > 2*blocks {
			t.Errorf("%d turns (%d blocks, %d frames): the replay holds %d blocks; want at most %d", n, blocks, len(r.Frames), held[n], 2*blocks)
		}
	}
	if held[400] > 2*held[200]+2 {
		t.Errorf("held %d blocks for 200 turns, %d for 400; want at most twice", held[200], held[400])
	}
	if drawn[400] < 3*drawn[200] {
		t.Errorf("frames draw %d blocks for 200 turns, %d for 400: the session should draw about four times as many", drawn[200], drawn[400])
	}
}
