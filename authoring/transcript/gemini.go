package transcript

import (
	"encoding/json"
	"fmt"
	"io"
)

// A Gemini CLI session in its JSON Lines form (0.40 and later): a header
// {sessionId, projectHash, startTime, …}, then one record per message
// {id, timestamp, type: user|gemini|info|error, content, tokens, model,
// toolCalls}, and {"$set": …} updates of the header.

// gmRecord is one line of a Gemini CLI session.
type gmRecord struct {
	ID          string          `json:"id"`
	SessionID   string          `json:"sessionId"`
	ProjectHash string          `json:"projectHash"`
	Set         json.RawMessage `json:"$set"`
	Timestamp   string          `json:"timestamp"`
	Type        string          `json:"type"`
	Content     json.RawMessage `json:"content"`
	Model       string          `json:"model"`
	Tokens      *struct {
		Input  tokenCount `json:"input"`
		Output tokenCount `json:"output"`
		Cached tokenCount `json:"cached"`
	} `json:"tokens"`
	ToolCalls []gmToolCall `json:"toolCalls"`
}

// gmToolCall is a tool call of a gemini record, with its result.
type gmToolCall struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Args   json.RawMessage `json:"args"`
	Status string          `json:"status"`
	Result []struct {
		FunctionResponse struct {
			Response json.RawMessage `json:"response"`
		} `json:"functionResponse"`
	} `json:"result"`
}

// readGemini reads a Gemini CLI session.
func readGemini(f sessionFile, b *builder) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("read transcript %s: %w", b.path, err)
	}
	seen := map[string]bool{}
	return eachLine(f, b, func(line []byte, n int, _ int64) error {
		var r gmRecord
		if err := json.Unmarshal(line, &r); err != nil {
			return lineError(b.path, n, err)
		}
		switch {
		case r.ProjectHash != "" || (r.SessionID != "" && r.Type == ""):
			b.s.ID = r.SessionID
			return nil
		case len(r.Set) > 0:
			b.skip("$set")
			return nil
		case r.ID != "" && seen[r.ID]:
			b.skip("duplicate")
			return nil
		}
		seen[r.ID] = true
		return geminiMessage(&r, b, n)
	})
}

// geminiMessage adds a user or gemini record; the others (info, error) are
// counted.
func geminiMessage(r *gmRecord, b *builder, line int) error {
	at := parseTime(r.Timestamp)
	b.stamp(at)
	text := geminiText(r.Content)
	switch r.Type {
	case "user":
		return b.user(User, text, at, line)
	case "gemini":
	default:
		b.skip(typeName(r.Type))
		return nil
	}
	m := Message{Text: text, Model: r.Model, APIID: r.ID, Time: at, Line: line}
	if t := r.Tokens; t != nil {
		in, cached := int(t.Input), min(int(t.Cached), int(t.Input))
		m.Usage = &Usage{Input: in - cached, CacheRead: cached, Output: int(t.Output)}
	}
	for _, tc := range r.ToolCalls {
		m.Calls = append(m.Calls, Call{ID: tc.ID, Name: tc.Name, Args: compactJSON(tc.Args)})
	}
	if err := b.assistant(m); err != nil {
		return err
	}
	b.merge = -1 // one record is one answer
	for _, tc := range r.ToolCalls {
		if len(tc.Result) == 0 {
			continue
		}
		res := Message{CallID: tc.ID, IsError: tc.Status == "error", Time: at, Line: line}
		for _, part := range tc.Result {
			res.Text = joinText(res.Text, geminiResponse(part.FunctionResponse.Response))
		}
		if err := b.toolResult(res); err != nil {
			return err
		}
	}
	return nil
}

// geminiText is a record's content: a string, or parts with text.
func geminiText(raw json.RawMessage) string {
	if firstByte(raw) != '[' {
		return rawText(raw)
	}
	var parts []struct {
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &parts) //nolint:errcheck // no text then
	out := ""
	for _, p := range parts {
		out = joinText(out, p.Text)
	}
	return out
}

// geminiResponse is a function response as text: its output, else its JSON.
func geminiResponse(raw json.RawMessage) string {
	var r struct {
		Output string `json:"output"`
	}
	if json.Unmarshal(raw, &r) == nil && r.Output != "" {
		return r.Output
	}
	return rawText(raw)
}
