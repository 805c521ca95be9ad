package transcript

import (
	"bytes"
	"encoding/json"
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
	off     int64     // offset of the line
	size    int       // length of the line without its line ending
	line    int       // 1-based line number
	time    time.Time // timestamp (zero if none or unparsable)
	self    int32     // id of its own uuid
	parent  int32     // id of parentUuid, -1 if null
	logical int32     // id of logicalParentUuid, -1 if none
	// prev is the node of the newest user, assistant or system record
	// before it in file order (-1 if none): what a compact boundary whose
	// logical parent is not in the file, or a record without a parentUuid
	// field (older releases), continues.
	prev     int32
	kind     recordKind
	follows  bool // continues prev when its parents are not in the file (a compact boundary; a record without parentUuid)
	results  bool // a user record that mentions tool_result blocks
	hasChild bool // a user/assistant/system record descends from it
}

// index is the record tree of a Claude Code file after pass 1. Uuids are
// interned to ids; owner maps an id to the node that has that uuid.
type index struct {
	nodes    []node
	ids      map[string]int32
	names    []string // id → uuid
	owner    []int32  // id → node index, -1 if no record has that uuid
	title    string   // the last summary record's text
	unrooted int      // user/assistant/system records without a uuid (off any chain)
	last     int32    // the newest user/assistant/system node so far
	side     bool     // a sub-agent's own file: its records are all sidechain records
	agentID  string   // the agentId of the first record that names one
	// progress maps an agent's id to the Task call that started it, as
	// the session's progress records say (agentId, parentToolUseID).
	progress map[string]string
}

// pass1Record is the part of a record pass 1 decodes.
type pass1Record struct {
	Type              string     `json:"type"`
	Subtype           string     `json:"subtype"`
	UUID              string     `json:"uuid"`
	ParentUUID        optString  `json:"parentUuid"`
	LogicalParentUUID string     `json:"logicalParentUuid"`
	IsSidechain       bool       `json:"isSidechain"`
	Timestamp         string     `json:"timestamp"`
	Summary           string     `json:"summary"`
	AgentID           string     `json:"agentId"`
	ParentToolUseID   string     `json:"parentToolUseID"`
	Data              agentField `json:"data"`
}

// optString is a JSON string that remembers whether its key was present
// (null counts as present and "").
type optString struct {
	set bool
	s   string
}

// UnmarshalJSON implements json.Unmarshaler.
func (o *optString) UnmarshalJSON(p []byte) error {
	o.set = true
	if string(p) == "null" {
		o.s = ""
		return nil
	}
	return json.Unmarshal(p, &o.s)
}

// agentField is the agentId inside an object (a progress record's data, a
// tool result's toolUseResult), read leniently: a value of any other shape,
// or without the key, is "" (only an object that mentions the key is
// decoded).
type agentField struct{ AgentID string }

// UnmarshalJSON implements json.Unmarshaler.
func (a *agentField) UnmarshalJSON(p []byte) error {
	if firstByte(p) != '{' || !bytes.Contains(p, []byte(`"agentId"`)) {
		return nil
	}
	var v struct {
		AgentID string `json:"agentId"`
	}
	if json.Unmarshal(p, &v) == nil {
		a.AgentID = v.AgentID
	}
	return nil
}

// indexFile reads every line of a Claude Code file and builds its tree,
// counting the records it will not show in b. side says the file is a
// sub-agent's own, whose records are all sidechain records.
func indexFile(r io.Reader, b *builder, side bool) (*index, error) {
	ix := &index{ids: map[string]int32{}, last: -1, side: side, progress: map[string]string{}}
	err := eachLine(r, b, func(line []byte, n int, off int64) error {
		var rec pass1Record
		if err := json.Unmarshal(line, &rec); err != nil {
			return lineError(b.path, n, err)
		}
		ix.add(&rec, b, node{off: off, size: len(line), line: n, results: bytes.Contains(line, []byte(`"tool_result"`))})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ix, nil
}

// add files one record: counted when it will not be shown, a node when it
// has a uuid.
func (ix *index) add(rec *pass1Record, b *builder, n node) {
	if ix.agentID == "" {
		ix.agentID = rec.AgentID
	}
	if id := rec.Data.AgentID; id != "" && rec.ParentToolUseID != "" && ix.progress[id] == "" {
		ix.progress[id] = rec.ParentToolUseID
	}
	if rec.IsSidechain && !ix.side {
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
	n.self, n.parent, n.logical = id, ix.id(rec.ParentUUID.s), ix.id(rec.LogicalParentUUID)
	n.prev = ix.last
	n.follows = (n.kind == kindSystem && rec.Subtype == "compact_boundary") || (!rec.ParentUUID.set && n.kind != kindOther)
	ix.owner[id] = int32(len(ix.nodes))
	if n.kind != kindOther {
		ix.last = int32(len(ix.nodes))
	}
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
	ix.names = append(ix.names, uuid)
	ix.owner = append(ix.owner, -1)
	return id
}

// up returns the node a node continues: its parent, else (at a compact
// boundary, whose parent is null) its logical parent; when neither is in the
// file, a compact boundary (and a record of a release without parentUuid)
// continues the newest user, assistant or system record before it in file
// order. -1 if none.
func (ix *index) up(n *node) int32 {
	for _, id := range [2]int32{n.parent, n.logical} {
		if id >= 0 && ix.owner[id] >= 0 {
			return ix.owner[id]
		}
	}
	if n.follows {
		return n.prev
	}
	return -1
}

// chain returns the nodes from the root to the newest leaf, and marks them.
// The results of parallel tool calls are on it too: Claude Code writes each
// call of one answer as a record of its own and each result as a child of
// its call's record, so every result but the one the conversation went on
// from is a dead end beside the chain; it follows its call's record.
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
	beside := map[int32][]int32{}
	for j := range ix.nodes {
		n := &ix.nodes[j]
		if p := ix.up(n); !on[j] && n.kind == kindUser && n.results && !n.hasChild && p >= 0 && on[p] {
			beside[p] = append(beside[p], int32(j))
		}
	}
	if len(beside) == 0 {
		return chain, on
	}
	full := make([]int32, 0, len(chain)+len(beside))
	for _, i := range chain {
		full = append(full, i)
		for _, j := range beside[i] {
			on[j] = true
			full = append(full, j)
		}
	}
	return full, on
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
// with the latest timestamp (ties: the later line), among the leaves whose
// chain holds a user or assistant record when any does; -1 if none.
func (ix *index) newestLeaf() int32 {
	talks := ix.chainsWithMessages()
	leaf, best := int32(-1), false
	for i := range ix.nodes {
		n := &ix.nodes[i]
		if n.kind == kindOther || n.hasChild {
			continue
		}
		t := talks[i] == reachYes
		switch {
		case leaf < 0, t && !best, t == best && !n.time.Before(ix.nodes[leaf].time):
			leaf, best = int32(i), t
		}
	}
	return leaf
}

// Whether a node's chain reaches a user or assistant record.
const (
	reachUnknown uint8 = iota
	reachYes
	reachNo
	reachWalking
)

// chainsWithMessages says for every node whether its chain (itself and what
// it continues) holds a user or assistant record. Each node is settled once.
func (ix *index) chainsWithMessages() []uint8 {
	state := make([]uint8, len(ix.nodes))
	var path []int32
	for i := range ix.nodes {
		path = path[:0]
		v := reachNo
		for p := int32(i); p >= 0; p = ix.up(&ix.nodes[p]) {
			if s := state[p]; s == reachYes || s == reachNo {
				v = s
				break
			} else if s == reachWalking { // a cycle
				break
			}
			if k := ix.nodes[p].kind; k == kindUser || k == kindAssistant {
				state[p], v = reachYes, reachYes
				break
			}
			state[p] = reachWalking
			path = append(path, p)
		}
		for _, p := range path {
			state[p] = v
		}
	}
	return state
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
