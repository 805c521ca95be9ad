package transcript

import (
	"encoding/json"
	"errors"
	"io"
	"time"
)

// recordKind is what the chain cares about in a Claude Code record's type.
type recordKind uint8

const (
	kindOther     recordKind = iota // attachment, progress, …: on the chain, never a message
	kindUser                        // user
	kindAssistant                   // assistant
	kindSystem                      // system (a compact_boundary among them)
)

func kindOf(typ string) recordKind {
	switch typ {
	case "user":
		return kindUser
	case "assistant":
		return kindAssistant
	case "system":
		return kindSystem
	}
	return kindOther
}

// node is what pass 1 keeps of a record with a uuid: enough to choose the
// chain and to read the record again in pass 2.
type node struct {
	off      int64     // offset of the line
	size     int       // length of the line without its line ending
	line     int       // 1-based line number
	time     time.Time // timestamp (zero if none or unparsable)
	parent   int32     // id of parentUuid, -1 if null
	logical  int32     // id of logicalParentUuid, -1 if none
	kind     recordKind
	hasChild bool // a user/assistant/system record descends from it
}

// index is the record tree of a Claude Code file after pass 1. Uuids are
// interned to ids; owner maps an id to the node that has that uuid.
type index struct {
	nodes    []node
	ids      map[string]int32
	owner    []int32 // id → node index, -1 if no record has that uuid
	title    string  // the last summary record's text
	unrooted int     // user/assistant/system records without a uuid (off any chain)
}

// pass1Record is the part of a record pass 1 decodes.
type pass1Record struct {
	Type              string `json:"type"`
	UUID              string `json:"uuid"`
	ParentUUID        string `json:"parentUuid"`
	LogicalParentUUID string `json:"logicalParentUuid"`
	IsSidechain       bool   `json:"isSidechain"`
	Timestamp         string `json:"timestamp"`
	Summary           string `json:"summary"`
}

// indexFile reads every line of a Claude Code file and builds its tree,
// counting the records it will not show in b.
func indexFile(r io.Reader, b *builder, maxLine int) (*index, error) {
	ix := &index{ids: map[string]int32{}}
	lr := newLineReader(r, maxLine)
	for {
		line, off, err := lr.next()
		switch {
		case err == io.EOF:
			return ix, nil
		case errors.Is(err, errTooLong):
			return nil, &Error{File: b.path, Line: lr.line, Msg: "line is longer than the maximum of " + byteSize(maxLine), Err: err}
		case err != nil:
			return nil, &Error{File: b.path, Line: lr.line + 1, Msg: "cannot read: " + err.Error(), Err: err}
		}
		if lr.line == 1 {
			line, off = trimBOM(line, off)
		}
		if isBlank(line) {
			continue
		}
		var rec pass1Record
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, lineError(b.path, lr.line, err)
		}
		b.s.Records++
		ix.add(&rec, b, node{off: off, size: len(line), line: lr.line})
	}
}

// add files one record: counted when it will not be shown, a node when it
// has a uuid.
func (ix *index) add(rec *pass1Record, b *builder, n node) {
	if rec.IsSidechain {
		b.skip("sidechain")
		return
	}
	if rec.Type == "summary" {
		ix.title = rec.Summary
		return
	}
	n.kind = kindOf(rec.Type)
	if rec.UUID == "" {
		ix.countUnrooted(n.kind, rec.Type, b)
		return
	}
	id := ix.id(rec.UUID)
	if ix.owner[id] >= 0 {
		b.skip("duplicate")
		return
	}
	if n.kind == kindOther {
		b.skip(typeName(rec.Type))
	}
	n.time = parseTime(rec.Timestamp)
	n.parent, n.logical = ix.id(rec.ParentUUID), ix.id(rec.LogicalParentUUID)
	ix.owner[id] = int32(len(ix.nodes))
	ix.nodes = append(ix.nodes, n)
}

// countUnrooted counts a record without a uuid: by its type, or as off-branch
// for a message-like record no chain can reach.
func (ix *index) countUnrooted(kind recordKind, typ string, b *builder) {
	if kind == kindOther {
		b.skip(typeName(typ))
		return
	}
	ix.unrooted++
}

// typeName is the key of Session.Skipped for a record type.
func typeName(typ string) string {
	if typ == "" {
		return "untyped"
	}
	return typ
}

// id interns a uuid; "" is -1.
func (ix *index) id(uuid string) int32 {
	if uuid == "" {
		return -1
	}
	if id, ok := ix.ids[uuid]; ok {
		return id
	}
	id := int32(len(ix.owner))
	ix.ids[uuid] = id
	ix.owner = append(ix.owner, -1)
	return id
}

// up returns the node a node continues: its parent, else (at a compact
// boundary, whose parent is null) its logical parent; -1 if none is in the file.
func (ix *index) up(n *node) int32 {
	for _, id := range [2]int32{n.parent, n.logical} {
		if id >= 0 && ix.owner[id] >= 0 {
			return ix.owner[id]
		}
	}
	return -1
}

// chain returns the nodes from the root to the newest leaf, and marks them.
func (ix *index) chain() (chain []int32, on []bool) {
	ix.markChildren()
	leaf := ix.newestLeaf()
	on = make([]bool, len(ix.nodes))
	for i := leaf; i >= 0 && !on[i]; i = ix.up(&ix.nodes[i]) {
		on[i] = true
		chain = append(chain, i)
	}
	for l, r := 0, len(chain)-1; l < r; l, r = l+1, r-1 {
		chain[l], chain[r] = chain[r], chain[l]
	}
	return chain, on
}

// markChildren sets hasChild on every node a user, assistant or system
// record descends from. Other records (attachments, progress) between them
// pass the mark up; a node already marked stops it, so each node is visited
// a bounded number of times.
func (ix *index) markChildren() {
	for i := range ix.nodes {
		if ix.nodes[i].kind == kindOther {
			continue
		}
		for p := ix.up(&ix.nodes[i]); p >= 0; p = ix.up(&ix.nodes[p]) {
			q := &ix.nodes[p]
			if q.hasChild {
				break
			}
			q.hasChild = true
			if q.kind != kindOther {
				break
			}
		}
	}
}

// newestLeaf is the user, assistant or system node nothing descends from,
// with the latest timestamp (ties: the later line); -1 if none.
func (ix *index) newestLeaf() int32 {
	leaf := int32(-1)
	for i := range ix.nodes {
		n := &ix.nodes[i]
		if n.kind == kindOther || n.hasChild {
			continue
		}
		if leaf < 0 || !n.time.Before(ix.nodes[leaf].time) {
			leaf = int32(i)
		}
	}
	return leaf
}

// parseTime reads an RFC 3339 timestamp; anything else is the zero time.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// trimBOM drops a UTF-8 byte-order mark at the start of the first line.
func trimBOM(line []byte, off int64) ([]byte, int64) {
	if len(line) >= 3 && line[0] == 0xef && line[1] == 0xbb && line[2] == 0xbf {
		return line[3:], off + 3
	}
	return line, off
}

// isBlank reports whether a line holds only white space.
func isBlank(line []byte) bool {
	for _, c := range line {
		if !isSpace(c) {
			return false
		}
	}
	return true
}
