package transcript

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
)

// Redaction kinds, the keys of Session.Redactions.
const (
	kindAPIKey = "api-key"
	kindBearer = "bearer"
	kindEmail  = "email"
	kindHome   = "home"
)

// secretPattern is one kind of secret: a regexp, the submatch to replace, and
// checks that keep ordinary words and code out.
type secretPattern struct {
	kind  string
	re    *regexp.Regexp
	group int                            // submatch replaced (0: the whole match)
	with  string                         // replacement
	hint  func(string) bool              // cheap test: false when the pattern cannot match (skips the regexp on large texts)
	keep  func(match, group string) bool // whether a candidate really is a secret
}

// secretPatterns are applied in order. The key prefixes are the providers'
// documented ones; each candidate must also look random (mixed letters and
// digits), so "sk-learn-compatible-estimators" or "Bearer authentication"
// stay as they are.
var secretPatterns = []secretPattern{
	{
		kind: kindAPIKey,
		re: regexp.MustCompile(`\b(?:sk-[A-Za-z0-9_-]{20,}|(?:AKIA|ASIA)[0-9A-Z]{16}\b|gh[pousr]_[A-Za-z0-9]{30,}|` +
			`github_pat_[A-Za-z0-9_]{30,}|xox[abposr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}|[rs]k_(?:live|test)_[A-Za-z0-9]{16,})`),
		with: "[redacted]",
		hint: containsAny("sk-", "AKIA", "ASIA", "hp_", "ho_", "hu_", "hs_", "hr_", "github_pat_", "xox", "AIza", "k_live_", "k_test_"),
		keep: func(m, _ string) bool {
			return strings.HasPrefix(m, "AKIA") || strings.HasPrefix(m, "ASIA") || charClasses(m) >= 2
		},
	},
	{
		// A quoted value of 20+ characters assigned to a key, token, secret or
		// password, with lower and upper case letters and digits: a literal
		// secret in code or config, not a variable name.
		kind:  kindAPIKey,
		re:    regexp.MustCompile(`(?i)\b[a-z0-9_]*(?:api[_-]?key|secret|token|password|passwd)[a-z0-9_]*["']?\s*[:=]\s*["']([^"'\s]{20,})["']`),
		group: 1,
		with:  "[redacted]",
		hint:  containsAny("ey", "EY", "ecret", "ECRET", "oken", "OKEN", "assw", "ASSW"),
		keep:  func(_, v string) bool { return charClasses(v) == 3 },
	},
	{
		kind:  kindBearer,
		re:    regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)`),
		group: 1,
		with:  "[redacted]",
		hint:  containsAny("earer", "EARER"),
		keep:  func(_, token string) bool { return charClasses(token) >= 2 },
	},
	{
		kind: kindEmail,
		re:   regexp.MustCompile(`\b[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}\b`),
		with: "[email]",
		hint: containsAny("@"),
		keep: isEmail,
	},
}

// containsAny returns a hint that is true when s contains one of subs.
func containsAny(subs ...string) func(string) bool {
	return func(s string) bool {
		for _, sub := range subs {
			if strings.Contains(s, sub) {
				return true
			}
		}
		return false
	}
}

// charClasses counts the classes of ASCII characters in s among lower case
// letters, upper case letters and digits.
func charClasses(s string) int {
	var lower, upper, digit int
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z':
			lower = 1
		case 'A' <= c && c <= 'Z':
			upper = 1
		case '0' <= c && c <= '9':
			digit = 1
		}
	}
	return lower + upper + digit
}

// fileTLDs are file extensions that look like top-level domains in
// "icon@2x.png" or "pkg@v1.go".
var fileTLDs = map[string]bool{
	"png": true, "jpg": true, "jpeg": true, "gif": true, "svg": true, "webp": true, "ico": true,
	"js": true, "mjs": true, "ts": true, "tsx": true, "jsx": true, "py": true, "go": true,
	"rs": true, "rb": true, "md": true, "json": true, "yaml": true, "yml": true, "txt": true,
	"css": true, "html": true, "zip": true, "gz": true, "tar": true, "lock": true, "toml": true,
}

// isEmail tells an e-mail address from look-alikes: git@host (an SSH
// remote), a file name with "@2x", a domain label starting with a digit.
func isEmail(m, _ string) bool {
	at := strings.LastIndexByte(m, '@')
	local, domain := m[:at], m[at+1:]
	if local == "git" {
		return false
	}
	if c := domain[0]; c >= '0' && c <= '9' {
		return false
	}
	tld := strings.ToLower(domain[strings.LastIndexByte(domain, '.')+1:])
	return !fileTLDs[tld]
}

// redactor replaces secrets, e-mail addresses and the home directory, and
// counts what it replaced.
type redactor struct {
	homes  []homeForm
	counts map[string]int
}

// homeForm is one way the home directory is written.
type homeForm struct {
	s       string // as written (lower case when fold)
	fold    bool   // match ASCII case-insensitively (Windows)
	encoded bool   // the form Claude Code uses in project directory names: separators as "-"
}

func newRedactor(home string, counts map[string]int) *redactor {
	return &redactor{homes: homeForms(home), counts: counts}
}

// homeForms returns the forms of home to look for: as given, with the other
// slash on Windows, and as Claude Code encodes it in ~/.claude/projects
// ("/home/alice" → "-home-alice"). A root or empty home gives none.
func homeForms(home string) []homeForm {
	home = strings.TrimRight(home, `/\`)
	windows := len(home) >= 2 && home[1] == ':'
	if len(home) < 2 || (windows && len(home) <= 3) {
		return nil
	}
	if !windows {
		forms := []homeForm{{s: home}}
		if strings.Count(home, "/") >= 2 {
			forms = append(forms, homeForm{s: encodeHome(home), encoded: true})
		}
		return forms
	}
	low := strings.ToLower(home)
	return []homeForm{
		{s: low, fold: true},
		{s: strings.ReplaceAll(low, `\`, "/"), fold: true},
		{s: encodeHome(low), fold: true, encoded: true},
	}
}

// encodeHome writes home the way Claude Code names project directories.
func encodeHome(home string) string {
	return strings.NewReplacer("/", "-", `\`, "-", ":", "-", ".", "-").Replace(home)
}

// text returns s with everything redactable replaced.
func (r *redactor) text(s string) string {
	for _, f := range r.homes {
		s = r.home(s, f)
	}
	for i := range secretPatterns {
		s = r.secrets(s, &secretPatterns[i])
	}
	return s
}

// secrets replaces the matches of one pattern.
func (r *redactor) secrets(s string, p *secretPattern) string {
	if !p.hint(s) {
		return s
	}
	var b strings.Builder
	last, n := 0, 0
	for _, loc := range p.re.FindAllStringSubmatchIndex(s, -1) {
		start, end := loc[2*p.group], loc[2*p.group+1]
		if start < 0 || !p.keep(s[loc[0]:loc[1]], s[start:end]) {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(p.with)
		last, n = end, n+1
	}
	if n == 0 {
		return s
	}
	b.WriteString(s[last:])
	r.counts[p.kind] += n
	return b.String()
}

// home replaces the home directory, written in form f, by "~" where it is a
// whole path element ("/home/alice/x", not "/home/alicex" or "/mnt/home/alice").
func (r *redactor) home(s string, f homeForm) string {
	hay := s
	if f.fold {
		hay = asciiLower(s)
	}
	if !strings.Contains(hay, f.s) {
		return s
	}
	var b strings.Builder
	last, n := 0, 0
	for i := 0; i < len(hay); {
		j := strings.Index(hay[i:], f.s)
		if j < 0 {
			break
		}
		start, end := i+j, i+j+len(f.s)
		i = start + 1
		if (start > 0 && isNameByte(s[start-1])) || (end < len(s) && isNameByte(s[end]) && !(f.encoded && s[end] == '-')) {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString("~")
		last, i, n = end, end, n+1
	}
	if n == 0 {
		return s
	}
	b.WriteString(s[last:])
	r.counts[kindHome] += n
	return b.String()
}

// isNameByte reports whether c can be part of a file name next to a path
// element (so a match next to it is part of a longer name).
func isNameByte(c byte) bool {
	return c == '_' || c == '.' || c == '-' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// asciiLower lowers ASCII letters only, so byte offsets stay those of s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// json redacts the string values (and keys) of a compact JSON text, leaving
// its structure and order as they are. A text that is not JSON is redacted as
// text.
func (r *redactor) json(raw string) string {
	if !json.Valid([]byte(raw)) {
		return r.text(raw)
	}
	var b strings.Builder
	last, changed := 0, false
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		end := stringEnd(raw, i)
		if v, ok := unquote(raw[i:end]); ok {
			if red := r.text(v); red != v {
				b.WriteString(raw[last:i])
				b.Write(quote(red))
				last, changed = end, true
			}
		}
		i = end - 1
	}
	if !changed {
		return raw
	}
	b.WriteString(raw[last:])
	return b.String()
}

// stringEnd returns the index after the closing quote of the JSON string
// literal that starts at raw[i] (raw is valid JSON).
func stringEnd(raw string, i int) int {
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(raw)
}

// unquote decodes a JSON string literal.
func unquote(lit string) (string, bool) {
	if !strings.Contains(lit, `\`) && len(lit) >= 2 {
		return lit[1 : len(lit)-1], true
	}
	var v string
	err := json.Unmarshal([]byte(lit), &v)
	return v, err == nil
}

// quote encodes s as a JSON string literal without HTML escapes.
func quote(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s) //nolint:errcheck // a string always encodes
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
