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
const knownFormats = `known formats: claude-code (Claude Code session JSON Lines), codex (Codex CLI rollout JSON Lines), ` +
	`openai-chat (a JSON {"messages": [...]} object or a bare array of messages) and gemini-cli (Gemini CLI session JSON Lines)`

// claudeKeys are top-level keys only Claude Code records have (the OpenAI
// object's top-level keys are messages, model, usage and the like).
var claudeKeys = map[string]bool{
	"uuid": true, "parentUuid": true, "leafUuid": true, "isSidechain": true, "messageId": true,
}

// detect skips a byte-order mark and leading white space in br and returns
// the format of what follows: forced, when it is not "", else guessed from the
// first bytes. An empty file is an error whatever the format; a file that is
// not JSON names the line where its first character is.
func detect(br *bufio.Reader, path string, forced Format) (Format, error) {
	line, err := skipSpace(br)
	if err != nil {
		if err == io.EOF {
			return "", &Error{File: path, Msg: "empty file"}
		}
		return "", fmt.Errorf("read transcript %s: %w", path, err)
	}
	switch forced {
	case ClaudeCode, OpenAIChat, Codex, GeminiCLI:
		return forced, nil
	case "":
	default:
		return "", &Error{File: path, Line: line, Msg: fmt.Sprintf("unknown format %q forced; %s", forced, knownFormats)}
	}
	prefix, _ := br.Peek(sniffSize) // fewer bytes at the end of a short file
	f, why := guess(prefix)
	if f == "" {
		return "", &Error{File: path, Line: line, Msg: fmt.Sprintf("unknown format: %s; %s", why, knownFormats)}
	}
	return f, nil
}

// skipSpace discards a UTF-8 byte-order mark and white space, returning the
// line of the first other byte, or io.EOF when nothing else is left.
func skipSpace(br *bufio.Reader) (int, error) {
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		br.Discard(3) //nolint:errcheck // the bytes were peeked
	}
	line := 1
	for {
		c, err := br.ReadByte()
		if err != nil {
			return line, err
		}
		if c == '\n' {
			line++
		}
		if !isSpace(c) {
			return line, br.UnreadByte()
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// sniffRecords is how many records at the start detection looks at for one
// that says the format.
const sniffRecords = 20

// guess returns the format of a file starting with prefix (no leading white
// space), or "" and what the start looks like. It goes by the top-level
// keys of the first records (a JSON Lines file's first lines, a JSON file's
// object).
func guess(prefix []byte) (Format, string) {
	switch prefix[0] {
	case '[':
		return OpenAIChat, ""
	case '{':
	default:
		return "", fmt.Sprintf("the file starts with %q, not a JSON object or array", clip(prefix, 24))
	}
	dec := json.NewDecoder(bytes.NewReader(prefix))
	var first []string
	for i := 0; i < sniffRecords; i++ {
		keys, err := objectKeys(dec)
		if i == 0 {
			first = keys
		}
		if f := formatOf(keys); f != "" {
			return f, ""
		}
		if err != nil {
			if i == 0 {
				return guessLine(prefix), ""
			}
			break
		}
	}
	quoted := make([]string, 0, len(first))
	for _, k := range first {
		quoted = append(quoted, fmt.Sprintf("%q", clip([]byte(k), 24)))
	}
	return "", fmt.Sprintf("the first JSON object has keys %s and none that says which format it is", strings.Join(quoted, ", "))
}

// guessLine guesses the format of a file whose first record is broken or
// longer than the prefix from the keys its first line names, and lets the
// chosen reader report what is wrong with it.
func guessLine(prefix []byte) Format {
	line, _, _ := bytes.Cut(prefix, []byte("\n"))
	var seen []string
	for _, k := range []string{"payload", "type", "projectHash", "messages", "uuid", "parentUuid", "leafUuid", "isSidechain", "messageId", "sessionId"} {
		if bytes.Contains(line, []byte(`"`+k+`"`)) {
			seen = append(seen, k)
		}
	}
	if f := formatOf(seen); f != "" {
		return f
	}
	return OpenAIChat
}

// formatOf is the format whose first record has these top-level keys, ""
// if they do not say.
func formatOf(keys []string) Format {
	has := map[string]bool{}
	for _, k := range keys {
		has[k] = true
	}
	switch {
	case has["payload"] && has["type"]:
		return Codex // {"timestamp", "type", "payload"}
	case has["projectHash"] || has["$set"]:
		return GeminiCLI // the session header, or a metadata update
	case has["messages"]:
		return OpenAIChat
	}
	for k := range has {
		if claudeKeys[k] {
			return ClaudeCode
		}
	}
	if has["type"] && (has["sessionId"] || has["summary"]) {
		return ClaudeCode // {"type":"summary",…}, {"type":"mode","sessionId":…}
	}
	return ""
}

// objectKeys reads the top-level keys of the next JSON value of dec, an
// object. It returns the keys seen and the error that stopped it (nil when
// the object ended).
func objectKeys(dec *json.Decoder) ([]string, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if t != json.Delim('{') {
		return nil, fmt.Errorf("not an object")
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys, err
		}
		k, _ := t.(string)
		keys = append(keys, k)
		if err := skipValue(dec); err != nil {
			return keys, err
		}
	}
	_, err = dec.Token() // the closing brace, or a syntax error
	return keys, err
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
