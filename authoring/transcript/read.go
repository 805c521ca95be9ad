package transcript

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Read reads the session in the file at path, and the files Claude Code
// wrote beside it (<dir>/<session>/subagents/agent-*.jsonl) when they are
// there.
//
// The format is opt.Format, or detected from the first bytes when it is "".
// A problem with the content (broken JSON, a tool result without its call, a
// line over opt.MaxLine, a session past a limit, an empty file, an unknown
// format) is an *Error with its line; a file that cannot be opened or read is
// a wrapped I/O error.
func Read(path string, opt Options) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	defer f.Close()
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	return read(source{path: path, base: base, f: f}, sidecars{fsys: os.DirFS(dir), stem: stem(base), dir: dir}, opt)
}

// ReadFS reads the session in the file name of fsys, and the files beside it
// at SidecarName(name, …). Nothing is written anywhere: an uploaded session
// and its sub-agent files can be read from memory through Files. Errors name
// the file as name.
func ReadFS(fsys fs.FS, name string, opt Options) (*Session, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	defer f.Close()
	rf, err := seekable(f, name)
	if err != nil {
		return nil, err
	}
	dir, base := path.Split(name)
	return read(source{path: name, base: base, f: rf}, sidecars{fsys: fsys, stem: path.Join(dir, stem(base))}, opt)
}

// SidecarName is where ReadFS looks for a file Claude Code writes beside
// the session main (a sub-agent's agent-<id>.jsonl and its .meta.json, the
// compaction call's agent-acompact-<id>.jsonl): <session>/subagents/<base>.
func SidecarName(main, base string) string {
	dir, b := path.Split(main)
	return path.Join(dir, stem(b), "subagents", path.Base(base))
}

// Files is an in-memory set of session files by slash-separated name, an
// fs.FS for ReadFS: an upload reads through it without touching the disk.
type Files map[string][]byte

// Open opens a file of files (directories are not listed; Glob finds files).
func (files Files) Open(name string) (fs.File, error) {
	data, ok := files[name]
	if !ok || !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memFile{Reader: bytes.NewReader(data), name: path.Base(name), size: int64(len(data))}, nil
}

// Glob lists the names of files that match pattern, sorted.
func (files Files) Glob(pattern string) ([]string, error) {
	if _, err := path.Match(pattern, ""); err != nil {
		return nil, err
	}
	var out []string
	for name := range files {
		if ok, _ := path.Match(pattern, name); ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// memFile is an open file of Files.
type memFile struct {
	*bytes.Reader
	name string
	size int64
}

func (f *memFile) Stat() (fs.FileInfo, error) { return memInfo{f.name, f.size}, nil }
func (f *memFile) Close() error               { return nil }

type memInfo struct {
	name string
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return 0o400 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

// sessionFile is what the readers need of a file: reading from the start,
// and (Claude Code's second pass) reading again at an offset.
type sessionFile interface {
	io.ReadSeeker
	io.ReaderAt
}

// seekable returns f as a sessionFile, reading it into memory when its file
// system cannot seek.
func seekable(f fs.File, name string) (sessionFile, error) {
	if sf, ok := f.(sessionFile); ok {
		return sf, nil
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("read transcript %s: %w", name, err)
	}
	return bytes.NewReader(data), nil
}

// source is the main file of a session.
type source struct {
	path string // as given, for errors
	base string // base name, for Session.File
	f    sessionFile
}

// sidecars is where the files beside a session are: stem is the session's
// name without its extension, the directory Claude Code writes them into;
// dir is the directory fsys stands for in errors ("" for ReadFS).
type sidecars struct {
	fsys fs.FS
	stem string
	dir  string
}

// stem is a file name without its extension.
func stem(base string) string { return strings.TrimSuffix(base, path.Ext(base)) }

// read reads a session from its main file, then the files beside it.
func read(src source, side sidecars, opt Options) (*Session, error) {
	if opt.MaxLine <= 0 {
		opt.MaxLine = defaultMaxLine
	}
	b := newBuilder(src.path, src.base, opt, newLimits(opt))
	br := bufio.NewReaderSize(src.f, sniffSize)
	format, err := detect(br, src.path, opt.Format)
	if err != nil {
		return nil, err
	}
	b.s.Format = format
	switch format {
	case ClaudeCode:
		err = readClaudeSession(src.f, b, side)
	case Codex:
		err = readCodex(src.f, b)
	case GeminiCLI:
		err = readGemini(src.f, b)
	default:
		err = readOpenAI(br, b, src.f)
	}
	if err != nil {
		return nil, err
	}
	return b.finish(), nil
}
