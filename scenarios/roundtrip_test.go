package scenarios

import (
	"io/fs"
	"os"
	"path"
	"reflect"
	"testing"
	"testing/fstest"

	"ctxsim/internal/tokens"
	"ctxsim/scenarios/lessonfile"
)

// TestEncodeRoundTrip: every shipped and test lesson, decoded into lessonfile types
// (each mechanism's configuration into its own type) and encoded again,
// loads to the same lesson; and encoding what the encoder wrote gives the
// same bytes.
func TestEncodeRoundTrip(t *testing.T) {
	tok, err := tokens.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []fs.FS{Builtin(), os.DirFS("testdata")} {
		files, err := fs.Glob(src, "*/"+lessonfile.LessonFile)
		if err != nil || len(files) == 0 {
			t.Fatalf("no lessons: %v", err)
		}
		for _, p := range files {
			roundTrip(t, src, p, tok)
		}
	}
}

func roundTrip(t *testing.T, src fs.FS, p string, tok *tokens.Counter) {
	dir := path.Dir(p)
	t.Run(dir, func(t *testing.T) {
		data, err := fs.ReadFile(src, p)
		if err != nil {
			t.Fatal(err)
		}
		enc := encodeTyped(t, p, data)
		if again := encodeTyped(t, p, enc); string(again) != string(enc) {
			t.Errorf("encoding the encoded file changed it:\n%.400s\n---\n%.400s", enc, again)
		}
		fsys := fstest.MapFS{}
		others, _ := fs.Glob(src, dir+"/*")
		results, _ := fs.Glob(src, dir+"/results/*")
		for _, o := range append(others, results...) {
			if b, err := fs.ReadFile(src, o); err == nil {
				fsys[o] = &fstest.MapFile{Data: b}
			}
		}
		fsys[p] = &fstest.MapFile{Data: enc}
		want, err := LoadDir(src, dir, "scenarios", nil, tok)
		if err != nil {
			t.Fatal(err)
		}
		got, err := LoadDir(fsys, dir, "scenarios", nil, tok)
		if err != nil {
			t.Fatalf("the encoded lesson does not load: %v", err)
		}
		if f := differs(got, want); f != "" {
			t.Errorf("the encoded lesson loads to another lesson: %s differs", f)
		}
	})
}

// encodeTyped decodes lesson.yaml, decodes each mechanism's configuration
// with its builder's type, and encodes the result.
func encodeTyped(t *testing.T, name string, data []byte) []byte {
	t.Helper()
	l, f, err := lessonfile.DecodeLesson(name, data)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range l.Mechanisms {
		c, err := mechanismKinds[m.Name].decode(f, "mechanisms."+m.Name, m.Node)
		if err != nil {
			t.Fatal(err)
		}
		l.Mechanisms[i] = lessonfile.Mechanism{Name: m.Name, Config: c}
	}
	out, err := lessonfile.Encode(l, "")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// differs names an exported field of the two lessons' engine data, or
// their parameters, that differ ("" for none). The rest is memos filled
// by replays.
func differs(a, b *Lesson) string {
	va, vb := reflect.ValueOf(*a.Lesson), reflect.ValueOf(*b.Lesson)
	for i := range va.NumField() {
		if f := va.Type().Field(i); f.IsExported() && !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			return f.Name
		}
	}
	switch {
	case !reflect.DeepEqual(a.Params(), b.Params()):
		return "Params"
	case a.Draw != b.Draw:
		return "Draw"
	}
	return ""
}
