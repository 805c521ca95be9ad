package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// oaMessage is one element of an OpenAI messages array.
type oaMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []oaToolCall    `json:"tool_calls"`
	ToolCallID string          `json:"tool_call_id"`
	Model      string          `json:"model"` // not in the API; some logs add it
	Usage      *oaUsage        `json:"usage"`
}

type oaToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"` // a JSON string; some logs store the object
	} `json:"function"`
	Custom struct { // type "custom": free-form input
		Name  string `json:"name"`
		Input string `json:"input"`
	} `json:"custom"`
}

type oaUsage struct {
	PromptTokens        tokenCount `json:"prompt_tokens"`
	CompletionTokens    tokenCount `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens tokenCount `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// usage converts OpenAI's figures: prompt_tokens includes the cached tokens,
// so Input is the uncached rest and InputTotal is prompt_tokens.
func (u *oaUsage) usage() *Usage {
	prompt, cached := int(u.PromptTokens), 0
	if d := u.PromptTokensDetails; d != nil {
		cached = min(int(d.CachedTokens), prompt)
	}
	return &Usage{Input: prompt - cached, CacheRead: cached, Output: int(u.CompletionTokens)}
}

// oaPart is one part of a content array.
type oaPart struct {
	Type    string `json:"type"`
	Text    string `json:"text"`
	Refusal string `json:"refusal"`
}

// budgetReader refuses to read more than a budget of bytes past the point
// where the current value started, so that one element of a JSON array is
// held in memory only up to Options.MaxLine.
type budgetReader struct {
	r     io.Reader
	n     int64 // bytes read
	limit int64 // no reading past this offset
}

func (br *budgetReader) Read(p []byte) (int, error) {
	if br.n >= br.limit {
		return 0, errTooLong
	}
	if rest := br.limit - br.n; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := br.r.Read(p)
	br.n += int64(n)
	return n, err
}

// allow lets the next value be up to max bytes long.
func (br *budgetReader) allow(max int) {
	br.limit = br.n + int64(max)
	if br.limit < br.n { // overflow: no limit
		br.limit = math.MaxInt64
	}
}

// oaReader decodes an OpenAI file value by value.
type oaReader struct {
	dec    *json.Decoder
	budget *budgetReader
	b      *builder
	file   io.ReaderAt // the file, to say on which line a problem is
	start  int64       // offset in file where the decoder starts
	model  string      // the file's top-level model
}

// readOpenAI reads an OpenAI Chat Completions file: {"messages": [...]} or a
// bare array, one element at a time. r continues where detection stopped in
// f.
func readOpenAI(r *bufio.Reader, b *builder, f sessionFile) error {
	budget := &budgetReader{r: r}
	o := &oaReader{dec: json.NewDecoder(budget), budget: budget, b: b, file: f}
	if pos, err := f.Seek(0, io.SeekCurrent); err == nil {
		o.start = pos - int64(r.Buffered())
	}
	budget.allow(b.maxLine)
	tok, err := o.dec.Token()
	if err != nil {
		return o.fileError("the file does not start with JSON", err)
	}
	switch tok {
	case json.Delim('['):
		err = o.messages()
	case json.Delim('{'):
		err = o.object()
	default:
		return o.fileError("the file is not a JSON object or array", nil)
	}
	if err != nil {
		return err
	}
	if _, err := o.dec.Token(); err != io.EOF {
		return o.fileError("there is more after the JSON value", err)
	}
	o.fillModel()
	return nil
}

// object reads the keys of the top-level object; it needs "messages".
func (o *oaReader) object() error {
	seen := false
	for o.dec.More() {
		o.budget.allow(o.b.maxLine)
		t, err := o.dec.Token()
		if err != nil {
			return o.fileError("broken JSON in the top-level object", err)
		}
		key, _ := t.(string)
		switch key {
		case "messages":
			seen = true
			err = o.messagesValue()
		case "model":
			if err = o.dec.Decode(&o.model); err != nil {
				err = o.fileError(`"model" is not a string`, err)
			}
		case "usage":
			err = o.topUsage()
		default:
			if err = skipValue(o.dec); err != nil {
				err = o.fileError(fmt.Sprintf("broken JSON in %q", clip([]byte(key), 40)), err)
			}
		}
		if err != nil {
			return err
		}
	}
	if _, err := o.dec.Token(); err != nil {
		return o.fileError("the top-level object does not end", err)
	}
	if !seen {
		return o.fileError(`the object has no "messages" array`, nil)
	}
	return nil
}

// topUsage reads the file's top-level usage.
func (o *oaReader) topUsage() error {
	var u oaUsage
	if err := o.dec.Decode(&u); err != nil {
		return o.fileError(`"usage" is not an object`, err)
	}
	o.b.s.Usage = u.usage()
	return nil
}

// messagesValue reads the value of "messages", which must be an array.
func (o *oaReader) messagesValue() error {
	t, err := o.dec.Token()
	if err != nil || t != json.Delim('[') {
		return o.fileError(`"messages" is not an array`, err)
	}
	return o.messages()
}

// messages reads the elements of the messages array, its '[' read.
func (o *oaReader) messages() error {
	i := 0
	for ; o.dec.More(); i++ {
		o.budget.allow(o.b.maxLine)
		var m oaMessage
		if err := o.dec.Decode(&m); err != nil {
			return o.elementError(i+1, err)
		}
		if err := o.b.record(i + 1); err != nil {
			return err
		}
		if err := o.message(&m, i+1); err != nil {
			return err
		}
	}
	if _, err := o.dec.Token(); err != nil {
		return o.elementError(i+1, err)
	}
	return nil
}

// message adds one message; line is its array index + 1.
func (o *oaReader) message(m *oaMessage, line int) error {
	b := o.b
	text := partsText(m.Content)
	switch m.Role {
	case "system", "developer":
		b.s.System = joinText(b.s.System, b.text(text))
	case "user":
		return b.user(User, text, time.Time{}, line)
	case "assistant":
		msg := Message{Text: text, Model: m.Model, Line: line, Calls: calls(m.ToolCalls)}
		if m.Usage != nil {
			msg.Usage = m.Usage.usage()
		}
		return b.assistant(msg)
	case "tool":
		return b.toolResult(Message{CallID: m.ToolCallID, Text: text, Line: line})
	default:
		b.skip(typeName(m.Role)) // "function" (legacy) and unknown roles
	}
	return nil
}

// calls converts OpenAI tool calls.
func calls(tcs []oaToolCall) []Call {
	if len(tcs) == 0 {
		return nil
	}
	out := make([]Call, 0, len(tcs))
	for _, tc := range tcs {
		c := Call{ID: tc.ID, Name: tc.Function.Name, Args: argsJSON(tc.Function.Arguments)}
		if c.Name == "" && tc.Custom.Name != "" {
			c.Name, c.Args = tc.Custom.Name, tc.Custom.Input
		}
		out = append(out, c)
	}
	return out
}

// argsJSON is a call's arguments as compact JSON: the JSON in the string the
// API sends, compacted; a string that is not JSON is kept as it is.
func argsJSON(raw json.RawMessage) string {
	if firstByte(raw) != '"' {
		return compactJSON(raw)
	}
	var s string
	if json.Unmarshal(raw, &s) != nil || strings.TrimSpace(s) == "" {
		return "{}"
	}
	var buf bytes.Buffer
	if json.Compact(&buf, []byte(s)) != nil {
		return s
	}
	return buf.String()
}

// partsText is a content value as text: a string, or its parts joined, with a
// placeholder for each part that is not text ("[image_url]").
func partsText(raw json.RawMessage) string {
	switch firstByte(raw) {
	case '"':
		var s string
		json.Unmarshal(raw, &s) //nolint:errcheck // the element decoded, so the string is valid
		return s
	case '[':
		var parts []oaPart
		if json.Unmarshal(raw, &parts) != nil {
			return ""
		}
		texts := make([]string, 0, len(parts))
		for _, p := range parts {
			switch {
			case isTextPart(p.Type):
				texts = append(texts, p.Text)
			case p.Type == "refusal":
				texts = append(texts, p.Refusal)
			default:
				texts = append(texts, placeholder(p.Type))
			}
		}
		return strings.Join(texts, "\n\n")
	}
	return ""
}

// isTextPart says whether a content part of this type is text: "text"
// (Chat Completions), "input_text" and "output_text" (Responses API, Codex),
// "inputText" (Codex's dynamic tools).
func isTextPart(typ string) bool {
	return typ == "text" || typ == "inputText" || strings.HasSuffix(typ, "_text")
}

// fillModel gives the file's model to the assistant messages that name none.
func (o *oaReader) fillModel() {
	if o.model == "" {
		return
	}
	for i := range o.b.s.Messages {
		if m := &o.b.s.Messages[i]; m.Role == Assistant && m.Model == "" {
			m.Model = o.model
		}
	}
}

// elementError is the *Error for an array element that did not decode.
func (o *oaReader) elementError(n int, err error) error {
	msg := fmt.Sprintf("message %d: %s", n, describeJSON(err))
	if errors.Is(err, errTooLong) {
		msg = fmt.Sprintf("message %d is longer than the maximum of %s", n, byteSize(o.b.maxLine))
	}
	return &Error{File: o.b.path, Line: n, Msg: msg, Err: err}
}

// fileError is the *Error for a problem outside the messages array, at the
// line of the byte where the decoder stopped.
func (o *oaReader) fileError(what string, err error) error {
	at := o.start + o.dec.InputOffset()
	msg := fmt.Sprintf("%s (near byte %d)", what, at)
	switch {
	case errors.Is(err, errTooLong):
		msg += fmt.Sprintf(": a value is longer than the maximum of %s", byteSize(o.b.maxLine))
	case err != nil && err != io.EOF:
		msg += ": " + describeJSON(err)
	}
	return &Error{File: o.b.path, Line: lineAt(o.file, at), Msg: msg, Err: err}
}

// lineAt is the 1-based line of the byte at offset off of r (its last line
// when off is past the end).
func lineAt(r io.ReaderAt, off int64) int {
	line := 1
	buf := make([]byte, 64<<10)
	for pos := int64(0); pos < off; {
		n, err := r.ReadAt(buf[:min(int64(len(buf)), off-pos)], pos)
		line += bytes.Count(buf[:n], []byte("\n"))
		pos += int64(n)
		if err != nil || n == 0 {
			break
		}
	}
	return line
}
