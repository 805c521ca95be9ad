package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// sniffSize is how much of the file detection looks at, and the size of the
// buffered reader the OpenAI decoder continues with.
const sniffSize = 64 << 10

// knownFormats is said in an unknown-format error.
const knownFormats = `known formats: claude-code (Claude Code session JSON Lines) and openai-chat (a JSON {"messages": [...]} object or a bare array of messages)`

// claudeKeys are top-level keys only Claude Code records have (the OpenAI
// object's top-level keys are messages, model, usage and the like).
var claudeKeys = map[string]bool{
	"type": true, "uuid": true, "parentUuid": true, "sessionId": true,
	"leafUuid": true, "isSidechain": true, "messageId": true,
}

// detect skips a byte-order mark and leading white space in br and returns
// the format of what follows: forced, when it is not "", else guessed from the
// first bytes. An empty file is an error whatever the format.
func detect(br *bufio.Reader, path string, forced Format) (Format, error) {
	if err := skipSpace(br); err != nil {
		if err == io.EOF {
			return "", &Error{File: path, Msg: "empty file"}
		}
		return "", fmt.Errorf("read transcript %s: %w", path, err)
	}
	switch forced {
	case ClaudeCode, OpenAIChat:
		return forced, nil
	case "":
	default:
		return "", &Error{File: path, Msg: fmt.Sprintf("unknown format %q forced; %s", forced, knownFormats)}
	}
	prefix, _ := br.Peek(sniffSize) // fewer bytes at the end of a short file
	f, why := guess(prefix)
	if f == "" {
		return "", &Error{File: path, Msg: fmt.Sprintf("unknown format: %s; %s", why, knownFormats)}
	}
	return f, nil
}

// skipSpace discards a UTF-8 byte-order mark and white space, returning io.EOF
// when nothing else is left.
func skipSpace(br *bufio.Reader) error {
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		br.Discard(3) //nolint:errcheck // the bytes were peeked
	}
	for {
		c, err := br.ReadByte()
		if err != nil {
			return err
		}
		if !isSpace(c) {
			return br.UnreadByte()
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// guess returns the format of a file starting with prefix (no leading white
// space), or "" and what the start looks like.
func guess(prefix []byte) (Format, string) {
	switch prefix[0] {
	case '[':
		return OpenAIChat, ""
	case '{':
	default:
		return "", fmt.Sprintf("the file starts with %q, not a JSON object or array", clip(prefix, 24))
	}
	f, keys, err := sniffObject(prefix)
	switch {
	case f != "":
		return f, ""
	case err == nil:
		return "", fmt.Sprintf("the first JSON object has keys %s and none that says which format it is", strings.Join(keys, ", "))
	}
	// The start is broken or longer than the prefix: go by the first line, and
	// let the chosen reader report what is wrong with it.
	line, _, _ := bytes.Cut(prefix, []byte("\n"))
	for k := range claudeKeys {
		if bytes.Contains(line, []byte(`"`+k+`"`)) {
			return ClaudeCode, ""
		}
	}
	return OpenAIChat, ""
}

// sniffObject reads the top-level keys of the JSON object at the start of p
// until one says the format. It returns the keys seen and the error that
// stopped it (nil when the object ended without a telling key).
func sniffObject(p []byte) (Format, []string, error) {
	dec := json.NewDecoder(bytes.NewReader(p))
	if _, err := dec.Token(); err != nil {
		return "", nil, err
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", keys, err
		}
		k, _ := t.(string)
		switch {
		case k == "messages":
			return OpenAIChat, keys, nil
		case claudeKeys[k]:
			return ClaudeCode, keys, nil
		}
		keys = append(keys, fmt.Sprintf("%q", clip([]byte(k), 24)))
		if err := skipValue(dec); err != nil {
			return "", keys, err
		}
	}
	_, err := dec.Token() // the closing brace, or a syntax error
	return "", keys, err
}

// skipValue reads past the next JSON value without keeping it.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
	}
}

// clip returns at most n bytes of p for an error message.
func clip(p []byte, n int) string {
	if len(p) > n {
		p = p[:n]
	}
	return string(p)
}
