package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// A Codex CLI rollout is JSON Lines of {"timestamp", "type", "payload"}
// (codex-rs/protocol RolloutItem): session_meta, turn_context, response_item
// (the items of the model's history: messages, reasoning, tool calls and
// their outputs), compacted (the history replaced, with the summary) and
// event_msg (what the UI was told; token_count among them carries the
// provider's counts).

// cxLine is one rollout line.
type cxLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// cxItem is a response item (ResponseItem), and the payloads of the other
// line types, with the fields this reader uses; fields whose shape changed
// between releases are kept raw and read leniently.
type cxItem struct {
	Type             string          `json:"type"`
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	Name             string          `json:"name"`
	Namespace        string          `json:"namespace"`
	Arguments        json.RawMessage `json:"arguments"`
	Input            json.RawMessage `json:"input"`
	CallID           string          `json:"call_id"`
	ID               string          `json:"id"`
	Output           json.RawMessage `json:"output"`
	Action           json.RawMessage `json:"action"`
	Tools            json.RawMessage `json:"tools"`
	EncryptedContent string          `json:"encrypted_content"`

	// session_meta, turn_context
	Model            string          `json:"model"`
	Cwd              string          `json:"cwd"`
	CLIVersion       string          `json:"cli_version"`
	Instructions     json.RawMessage `json:"instructions"`
	BaseInstructions json.RawMessage `json:"base_instructions"`

	// compacted
	Message            string   `json:"message"`
	ReplacementHistory []cxItem `json:"replacement_history"`

	// event_msg
	Info               *cxTokenInfo `json:"info"`
	ModelContextWindow tokenCount   `json:"model_context_window"`
}

// cxTokenInfo is a token_count event's info (TokenUsageInfo).
type cxTokenInfo struct {
	Total              cxTokenUsage `json:"total_token_usage"`
	Last               cxTokenUsage `json:"last_token_usage"`
	ModelContextWindow tokenCount   `json:"model_context_window"`
}

// cxTokenUsage is TokenUsage: input_tokens includes the cached tokens (and
// the tokens written to the cache, where a release records them).
type cxTokenUsage struct {
	Input         tokenCount `json:"input_tokens"`
	Cached        tokenCount `json:"cached_input_tokens"`
	CacheWrite    tokenCount `json:"cache_write_input_tokens"`
	CacheCreation tokenCount `json:"cache_creation_input_tokens"`
	Output        tokenCount `json:"output_tokens"`
	Total         tokenCount `json:"total_tokens"`
}

// usage converts OpenAI's figures to disjoint parts whose sum is the
// request's input_tokens.
func (u cxTokenUsage) usage() *Usage {
	in, cached := int(u.Input), min(int(u.Cached), int(u.Input))
	written := min(int(max(u.CacheWrite, u.CacheCreation)), in-cached)
	return &Usage{Input: in - cached - written, CacheRead: cached, CacheCreation: written, Output: int(u.Output)}
}

// estimate says whether the figures are the harness's own estimate of the
// history (Codex writes one after a compaction: only total_tokens set), not
// the provider's count of a request.
func (u cxTokenUsage) estimate() bool { return u.Input == 0 && u.Output == 0 && u.Cached == 0 }

// cxReader reads a rollout line by line.
type cxReader struct {
	b        *builder
	model    string       // the model of the last turn_context
	sample   int          // the model's answers so far: one API message each
	total    cxTokenUsage // total_token_usage of the last token_count (a repeat says nothing new)
	pending  *Usage       // a provider count no answer on the chain took (a compaction's own call, if one follows)
	estimate int          // the harness's estimate since the last response item, 0 if none
	meta     bool         // a session_meta was read
	line     int          // line being read
	at       time.Time    // its timestamp
	open     int          // index in Messages of the answer the next token_count counts, -1 if none
	just     bool         // a compacted record was read and no item since (its context_compacted event is no other compaction)
}

// readCodex reads a Codex CLI rollout.
func readCodex(f sessionFile, b *builder) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("read transcript %s: %w", b.path, err)
	}
	b.lenient = true
	c := &cxReader{b: b, open: -1}
	return eachLine(f, b, func(line []byte, n int, _ int64) error {
		c.line = n
		var l cxLine
		if err := json.Unmarshal(line, &l); err != nil {
			return lineError(b.path, n, err)
		}
		c.at = parseTime(l.Timestamp)
		return c.rolloutItem(&l)
	})
}

// eachLine calls fn with every line that is not blank, its number and its
// offset, counting each as a record.
func eachLine(r io.Reader, b *builder, fn func(line []byte, n int, off int64) error) error {
	lr := newLineReader(r, b.maxLine)
	for {
		line, off, err := lr.next()
		switch {
		case err == io.EOF:
			return nil
		case errors.Is(err, errTooLong):
			return &Error{File: b.path, Line: lr.line, Msg: "line is longer than the maximum of " + byteSize(b.maxLine), Err: err}
		case err != nil:
			return &Error{File: b.path, Line: lr.line + 1, Msg: "cannot read: " + err.Error(), Err: err}
		}
		if lr.line == 1 {
			line, off = trimBOM(line, off)
		}
		if isBlank(line) {
			continue
		}
		if err := b.record(lr.line); err != nil {
			return err
		}
		if err := fn(line, lr.line, off); err != nil {
			return err
		}
	}
}

// payload decodes a line's payload, an object.
func (c *cxReader) payload(l *cxLine) (*cxItem, error) {
	var it cxItem
	if err := json.Unmarshal(l.Payload, &it); err != nil {
		e := lineError(c.b.path, c.line, err)
		e.Msg = "payload: " + e.Msg
		return nil, e
	}
	return &it, nil
}

// rolloutItem reads one line.
func (c *cxReader) rolloutItem(l *cxLine) error {
	switch l.Type {
	case "session_meta", "turn_context", "response_item", "compacted", "event_msg":
	default:
		c.b.skip(typeName(l.Type))
		return nil
	}
	it, err := c.payload(l)
	if err != nil {
		return err
	}
	switch l.Type {
	case "session_meta":
		c.sessionMeta(it)
	case "turn_context":
		c.turnContext(it)
	case "response_item":
		return c.responseItem(it)
	case "compacted":
		return c.compacted(it)
	case "event_msg":
		return c.event(it)
	}
	return nil
}

// sessionMeta reads the session's id, directory, version and instructions
// (the system prompt) from the first session_meta.
func (c *cxReader) sessionMeta(it *cxItem) {
	if c.meta {
		c.b.skip("session_meta")
		return
	}
	c.meta = true
	s := c.b.s
	s.ID, s.Version = it.ID, it.CLIVersion
	if it.Cwd != "" {
		s.Cwd = it.Cwd
	}
	if text := textOf(it.BaseInstructions); text != "" {
		s.System = c.b.text(text)
	} else if text := textOf(it.Instructions); text != "" {
		s.System = c.b.text(text)
	}
}

// textOf is a value that is a string or an object with a text: the
// instructions' two shapes.
func textOf(raw json.RawMessage) string {
	switch firstByte(raw) {
	case '"':
		var s string
		json.Unmarshal(raw, &s) //nolint:errcheck // "" if it is not a string
		return s
	case '{':
		var v struct {
			Text string `json:"text"`
		}
		json.Unmarshal(raw, &v) //nolint:errcheck // "" if it has none
		return v.Text
	}
	return ""
}

// turnContext reads the model of the turn and the directory.
func (c *cxReader) turnContext(it *cxItem) {
	if it.Model != "" {
		c.model = it.Model
	}
	if it.Cwd != "" {
		c.b.s.Cwd = it.Cwd
	}
}

// responseItem adds one item of the model's history.
func (c *cxReader) responseItem(it *cxItem) error {
	c.b.stamp(c.at)
	c.just, c.estimate = false, 0
	m, ok := c.item(it, true)
	if !ok {
		return nil
	}
	if c.pending != nil {
		c.b.skip("token_count:unattached")
		c.pending = nil
	}
	switch m.Role {
	case Tool:
		return c.b.toolResult(m)
	case Assistant:
		m.Model, m.APIID = c.model, fmt.Sprintf("sample-%d", c.sample)
		if err := c.b.assistant(m); err != nil {
			return err
		}
		c.open = c.b.merge
		return nil
	}
	if err := c.b.user(m.Role, m.Text, m.Time, m.Line); err != nil {
		return err
	}
	c.sample++ // the next answer is another API message
	return nil
}

// item converts a response item to a message (not yet redacted); false for
// an item that is not one (reasoning, snapshots, unknown types: counted
// when count is true).
func (c *cxReader) item(it *cxItem, count bool) (Message, bool) {
	skip := func(kind string) (Message, bool) {
		if count {
			c.b.skip(kind)
		}
		return Message{}, false
	}
	m := Message{Time: c.at, Line: c.line}
	switch it.Type {
	case "message":
		m.Text = partsText(it.Content)
		switch it.Role {
		case "assistant":
			m.Role = Assistant
		case "user":
			m.Role = User
		case "developer", "system":
			m.Role = Developer
		default:
			return skip("message:" + typeName(it.Role))
		}
	case "function_call", "custom_tool_call", "local_shell_call", "tool_search_call":
		m.Role, m.Calls = Assistant, []Call{cxCall(it)}
	case "web_search_call", "image_generation_call":
		m.Role, m.Text = Assistant, cxPlaceholder(it)
	case "function_call_output", "custom_tool_call_output", "tool_search_output":
		m.Role, m.CallID, m.Text = Tool, it.CallID, cxOutput(it)
	default: // reasoning (not sent again after its turn), ghost_snapshot (not sent), and types this reader does not know
		return skip(typeName(it.Type))
	}
	return m, true
}

// cxCall is the tool call of a call item.
func cxCall(it *cxItem) Call {
	name := it.Name
	if it.Namespace != "" && name != "" {
		name = it.Namespace + "." + name
	}
	id := it.CallID
	if id == "" {
		id = it.ID
	}
	switch it.Type {
	case "custom_tool_call":
		return Call{ID: id, Name: name, Args: objectJSON(rawText(it.Input))}
	case "local_shell_call":
		return Call{ID: id, Name: "local_shell", Args: objectJSON(compactJSON(it.Action))}
	case "tool_search_call":
		return Call{ID: id, Name: "tool_search", Args: objectJSON(compactJSON(it.Arguments))}
	}
	return Call{ID: id, Name: name, Args: objectJSON(argsJSON(it.Arguments))}
}

// objectJSON keeps a call's input a JSON object, as Call.Args promises: an
// object as it is, anything else (a custom tool's free-form input, a value
// that is no object) as {"input": …}.
func objectJSON(s string) string {
	if firstByte([]byte(s)) == '{' && json.Valid([]byte(s)) {
		return s
	}
	v := json.RawMessage(s)
	if !json.Valid(v) {
		v = quote(s)
	}
	return `{"input":` + string(v) + `}`
}

// rawText is a value that is a string as the string, anything else as
// compact JSON.
func rawText(raw json.RawMessage) string {
	if firstByte(raw) == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	if firstByte(raw) == 0 || string(raw) == "null" {
		return ""
	}
	return compactJSON(raw)
}

// cxPlaceholder stands for a hosted tool's item: "[web_search_call: query]".
func cxPlaceholder(it *cxItem) string {
	var a struct {
		Query string `json:"query"`
		URL   string `json:"url"`
	}
	json.Unmarshal(it.Action, &a) //nolint:errcheck // no detail then
	if d := a.Query + a.URL; d != "" {
		return "[" + it.Type + ": " + d + "]"
	}
	return placeholder(it.Type)
}

// cxOutput is a tool output as text: a string, content items (text parts
// joined, placeholders for images), or an object with content or text.
func cxOutput(it *cxItem) string {
	if it.Type == "tool_search_output" {
		return rawText(it.Tools)
	}
	raw := it.Output
	switch firstByte(raw) {
	case '"':
		return rawText(raw)
	case '[':
		return partsText(raw)
	case '{':
		var o struct {
			Content json.RawMessage `json:"content"`
			Text    string          `json:"text"`
			Type    string          `json:"type"`
		}
		if json.Unmarshal(raw, &o) == nil {
			switch {
			case o.Text != "":
				return o.Text
			case len(o.Content) > 0:
				return partsText(o.Content)
			case o.Type != "":
				return placeholder(o.Type)
			}
		}
		return compactJSON(raw)
	}
	return ""
}

// compacted records a compaction: the history replaced by
// replacement_history (the user messages Codex kept, and the summary: an
// encrypted compaction item, or a user message holding it), and, in older
// releases, the summary as message.
func (c *cxReader) compacted(it *cxItem) error {
	b := c.b
	b.stamp(c.at)
	comp := Compaction{Time: c.at, Line: c.line, Summary: b.text(it.Message), Estimate: c.estimate}
	for i := range it.ReplacementHistory {
		r := &it.ReplacementHistory[i]
		switch r.Type {
		case "compaction", "compaction_summary", "context_compaction":
			comp.Encrypted = true
			comp.EncryptedBytes += len(r.EncryptedContent)
			continue
		}
		m, ok := c.item(r, false)
		if !ok {
			continue
		}
		m.Text = b.text(m.Text)
		if m.Role == User && m.Text == comp.Summary && comp.Summary != "" {
			continue // the summary itself, already in Summary
		}
		if err := b.lim.message(b, m); err != nil {
			return err
		}
		comp.Replacement = append(comp.Replacement, m)
	}
	if c.pending != nil {
		comp.Call = &CompactCall{Model: c.model, Usage: c.pending, Through: len(b.s.Messages) - 1, Time: c.at}
		c.pending = nil
	}
	if err := b.compaction(comp); err != nil {
		return err
	}
	c.just, c.open, c.estimate = true, -1, 0
	c.sample++
	return nil
}

// event reads the events that matter to the window: token counts and
// compactions; the others repeat response items for the UI and are counted.
func (c *cxReader) event(it *cxItem) error {
	switch it.Type {
	case "token_count":
		c.tokenCount(it.Info)
	case "task_started":
		if w := int(it.ModelContextWindow); w > 0 {
			c.b.s.Window = w
		}
	case "context_compacted":
		if !c.just { // a compaction the rollout holds no compacted record of
			if err := c.compacted(&cxItem{}); err != nil {
				return err
			}
		}
		c.just = false
	default:
		c.b.skip("event_msg:" + typeName(it.Type))
	}
	return nil
}

// tokenCount gives the provider's count of the last request to the answer
// it produced: the open answer, else (no answer since) it is kept for the
// compaction that may follow. A repeated count (the same totals) and the
// harness's own estimates are not the provider's counts of a request.
func (c *cxReader) tokenCount(info *cxTokenInfo) {
	b := c.b
	if info == nil {
		b.skip("token_count:empty")
		return
	}
	if w := int(info.ModelContextWindow); w > 0 {
		b.s.Window = w
	}
	switch {
	case info.Last.estimate():
		c.estimate = int(info.Last.Total)
		b.skip("token_count:estimate")
		return
	case info.Total == c.total:
		b.skip("token_count:repeat")
		return
	}
	c.total = info.Total
	u := info.Last.usage()
	if c.open >= 0 && b.s.Messages[c.open].Usage == nil {
		b.s.Messages[c.open].Usage = u
		b.usageOf[b.s.Messages[c.open].APIID] = true
	} else {
		c.pending = u
	}
	c.open, b.merge = -1, -1
	c.sample++
}
