package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ccRecord is the part of a Claude Code record pass 2 decodes.
type ccRecord struct {
	Type             string         `json:"type"`
	Subtype          string         `json:"subtype"`
	SessionID        string         `json:"sessionId"`
	Cwd              string         `json:"cwd"`
	Version          string         `json:"version"`
	IsCompactSummary bool           `json:"isCompactSummary"`
	CompactMetadata  *ccCompactMeta `json:"compactMetadata"`
	Message          *ccMessage     `json:"message"`
	ToolUseResult    agentField     `json:"toolUseResult"`
}

type ccCompactMeta struct {
	Trigger    string     `json:"trigger"`
	PreTokens  tokenCount `json:"preTokens"`
	PostTokens tokenCount `json:"postTokens"`
}

type ccMessage struct {
	Content json.RawMessage `json:"content"`
	Model   string          `json:"model"`
	ID      string          `json:"id"`
	Usage   *ccUsage        `json:"usage"`
}

// ccUsage is Anthropic's usage; its other fields (nested objects among them)
// are ignored.
type ccUsage struct {
	Input         tokenCount `json:"input_tokens"`
	CacheRead     tokenCount `json:"cache_read_input_tokens"`
	CacheCreation tokenCount `json:"cache_creation_input_tokens"`
	Output        tokenCount `json:"output_tokens"`
}

// ccBlock is one content block; which fields are set depends on Type.
type ccBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// tokenCount is a token figure read leniently: any JSON number (rounded
// down, clamped to 0…1<<31-1), anything else 0. A strange usage field should
// not make a session unreadable.
type tokenCount int

// UnmarshalJSON implements json.Unmarshaler.
func (c *tokenCount) UnmarshalJSON(p []byte) error {
	f, err := strconv.ParseFloat(string(p), 64)
	switch {
	case err != nil || f < 0 || math.IsNaN(f):
		*c = 0
	case f > 1<<31-1:
		*c = 1<<31 - 1
	default:
		*c = tokenCount(f)
	}
	return nil
}

// readClaudeCode reads a Claude Code JSONL file in two passes: the tree, then
// the records on the chosen chain. It returns the index and the chain.
func readClaudeCode(f sessionFile, b *builder, side bool) (*index, []int32, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, nil, fmt.Errorf("read transcript %s: %w", b.path, err)
	}
	ix, err := indexFile(f, b, side)
	if err != nil {
		return nil, nil, err
	}
	b.s.Title = ix.title
	chain, on := ix.chain()
	countOffBranch(ix, on, b)
	var buf []byte
	for _, i := range chain {
		n := &ix.nodes[i]
		if cap(buf) < n.size {
			buf = make([]byte, n.size)
		}
		buf = buf[:n.size]
		if _, err := f.ReadAt(buf, n.off); err != nil {
			return nil, nil, &Error{File: b.path, Line: n.line, Msg: "cannot read the record again: " + err.Error(), Err: err}
		}
		if err := decodeRecord(buf, n, b); err != nil {
			return nil, nil, err
		}
		if b.at != nil {
			b.at[ix.names[n.self]] = len(b.s.Messages) - 1
		}
	}
	return ix, chain, nil
}

// countOffBranch counts the user, assistant and system records off the chain.
func countOffBranch(ix *index, on []bool, b *builder) {
	off := ix.unrooted
	for i := range ix.nodes {
		if ix.nodes[i].kind != kindOther && !on[i] {
			off++
		}
	}
	if off > 0 {
		b.s.Skipped["off-branch"] += off
	}
}

// decodeRecord adds one record of the chain to the session.
func decodeRecord(line []byte, n *node, b *builder) error {
	var rec ccRecord
	if err := json.Unmarshal(line, &rec); err != nil {
		return lineError(b.path, n.line, err)
	}
	b.stamp(n.time)
	if rec.SessionID != "" {
		b.s.ID = rec.SessionID
	}
	if rec.Cwd != "" {
		b.s.Cwd = rec.Cwd
	}
	if rec.Version != "" {
		b.s.Version = rec.Version
	}
	switch n.kind {
	case kindSystem:
		return systemRecord(&rec, n, b)
	case kindUser:
		return userRecord(&rec, n, b)
	case kindAssistant:
		return assistantRecord(&rec, n, b)
	}
	return nil
}

// systemRecord records a compaction boundary; other system records (command
// output, durations, API errors) are not messages to the model.
func systemRecord(rec *ccRecord, n *node, b *builder) error {
	if rec.Subtype != "compact_boundary" {
		b.skip("system")
		return nil
	}
	c := Compaction{Time: n.time, Line: n.line}
	if m := rec.CompactMetadata; m != nil {
		c.Trigger, c.PreTokens, c.PostTokens = m.Trigger, int(m.PreTokens), int(m.PostTokens)
	}
	return b.compaction(c)
}

// userRecord adds a user record: the compact summary to its compaction, one
// Tool message per tool_result block, then a User message for the rest.
func userRecord(rec *ccRecord, n *node, b *builder) error {
	blocks, text, err := content(rec.Message)
	if err != nil {
		return contentError(b, n, err)
	}
	var parts []string
	if text != "" {
		parts = append(parts, text)
	}
	for _, bl := range blocks {
		if bl.Type != "tool_result" {
			parts = appendBlockText(parts, bl, b)
			continue
		}
		if rec.IsCompactSummary {
			continue
		}
		res := Message{CallID: bl.ToolUseID, IsError: bl.IsError, Text: resultText(bl.Content), Time: n.time, Line: n.line}
		if err := b.toolResult(res); err != nil {
			return err
		}
		if id := rec.ToolUseResult.AgentID; id != "" && b.agents != nil {
			b.agents[id] = bl.ToolUseID
		}
	}
	all := strings.Join(parts, "\n\n")
	switch {
	case rec.IsCompactSummary:
		return b.compactSummary(all, n.time, n.line)
	case all != "":
		return b.user(User, all, n.time, n.line)
	case len(blocks) == 0:
		b.skip("empty")
	}
	return nil
}

// assistantRecord adds an assistant record, merged with the previous one
// when both are parts of one API message.
func assistantRecord(rec *ccRecord, n *node, b *builder) error {
	blocks, text, err := content(rec.Message)
	if err != nil {
		return contentError(b, n, err)
	}
	m := Message{Time: n.time, Line: n.line}
	var parts []string
	if text != "" {
		parts = append(parts, text)
	}
	for _, bl := range blocks {
		if bl.Type == "tool_use" {
			m.Calls = append(m.Calls, Call{ID: bl.ID, Name: bl.Name, Args: compactJSON(bl.Input)})
			continue
		}
		parts = appendBlockText(parts, bl, b)
	}
	m.Text = strings.Join(parts, "\n\n")
	if msg := rec.Message; msg != nil {
		m.Model, m.APIID = msg.Model, msg.ID
		if u := msg.Usage; u != nil {
			m.Usage = &Usage{Input: int(u.Input), CacheRead: int(u.CacheRead), CacheCreation: int(u.CacheCreation), Output: int(u.Output)}
		}
	}
	return b.assistant(m)
}

// contentError is the *Error for a message content that did not decode.
func contentError(b *builder, n *node, err error) error {
	return &Error{File: b.path, Line: n.line, Msg: "message content: " + describeJSON(err), Err: err}
}

// content decodes a message's content: a string, or an array of blocks.
func content(msg *ccMessage) ([]ccBlock, string, error) {
	if msg == nil {
		return nil, "", nil
	}
	raw := msg.Content
	switch firstByte(raw) {
	case '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return nil, s, err
	case '[':
		var blocks []ccBlock
		err := json.Unmarshal(raw, &blocks)
		return blocks, "", err
	}
	return nil, "", nil // null, absent, or something that is no content
}

// appendBlockText appends what a non-tool block shows as text: its text, a
// placeholder for an image or another kind of block; thinking is counted and
// left out (the API drops it from later requests).
func appendBlockText(parts []string, bl ccBlock, b *builder) []string {
	switch bl.Type {
	case "text":
		if bl.Text != "" {
			parts = append(parts, bl.Text)
		}
	case "thinking", "redacted_thinking":
		b.skip("thinking")
	default:
		parts = append(parts, placeholder(bl.Type))
	}
	return parts
}

// placeholder stands for a block without text: "[image]", "[document]".
func placeholder(typ string) string {
	switch typ {
	case "":
		return "[block]"
	case "image", "image_url", "input_image": // Anthropic's and OpenAI's names
		return "[image]"
	case "input_audio":
		return "[audio]"
	}
	return "[" + typ + "]"
}

// resultText is a tool result's content as text: a string, or its text parts
// joined with placeholders for the others.
func resultText(raw json.RawMessage) string {
	switch firstByte(raw) {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(raw, &parts) != nil {
			return ""
		}
		texts := make([]string, 0, len(parts))
		for _, p := range parts {
			if p.Type == "text" {
				texts = append(texts, p.Text)
			} else {
				texts = append(texts, placeholder(p.Type))
			}
		}
		return strings.Join(texts, "\n\n")
	}
	return ""
}

// compactJSON is raw JSON without insignificant space ("{}" when absent).
func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	var buf bytes.Buffer
	buf.Grow(len(raw))
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}

// firstByte is the first byte of a JSON value that is not white space, 0 if none.
func firstByte(raw []byte) byte {
	for _, c := range raw {
		if !isSpace(c) {
			return c
		}
	}
	return 0
}

// byteSize writes a byte count for a person: "64 MiB", "1000 bytes".
func byteSize(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
