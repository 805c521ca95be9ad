package transcript

import (
	"bytes"
	"encoding/json"
	"path"
	"regexp"
	"sort"
	"strings"
)

// Redaction classes, the keys of Session.Redactions: what a secret scanner
// would flag, e-mail addresses and the user's home directory.
const (
	ClassPrivateKey     = "private-key"     // PEM and OpenSSH private-key blocks
	ClassSlackWebhook   = "slack-webhook"   // https://hooks.slack.com/services/…
	ClassURLCredentials = "url-credentials" // the password of scheme://user:password@host
	ClassJWT            = "jwt"             // eyJ….eyJ….signature
	ClassAnthropicKey   = "anthropic-key"   // sk-ant-…
	ClassOpenAIKey      = "openai-key"      // sk-…, sk-proj-…, sk-svcacct-…
	ClassAWSAccessKey   = "aws-access-key"  // AKIA…, ASIA…
	ClassAWSSecretKey   = "aws-secret-key"  // aws_secret_access_key = <40 characters>
	ClassGitHubToken    = "github-token"    // ghp_, gho_, ghu_, ghs_, ghr_, github_pat_
	ClassSlackToken     = "slack-token"     // xoxb-, xoxp-, xoxa-, xoxo-, xoxs-, xoxr-, xoxe-, xapp-
	ClassGoogleAPIKey   = "google-api-key"  // AIza…
	ClassStripeKey      = "stripe-key"      // sk_live_, sk_test_, rk_live_, rk_test_, whsec_
	ClassNPMToken       = "npm-token"       // npm_…
	ClassAssigned       = "assigned-secret" // password=, secret:, token=, api_key: … with a literal value, quoted or not
	ClassBearer         = "bearer"          // Bearer <token>
	ClassBasicAuth      = "basic-auth"      // Basic <base64 user:password>
	ClassEmail          = "email"           // e-mail addresses
	ClassHome           = "home"            // the user's home directory, replaced by ~
)

// RedactionClasses lists the classes in the order the redactor applies them.
var RedactionClasses = []string{ClassHome, ClassPrivateKey, ClassSlackWebhook, ClassURLCredentials, ClassJWT,
	ClassAnthropicKey, ClassOpenAIKey, ClassAWSAccessKey, ClassGitHubToken, ClassSlackToken, ClassGoogleAPIKey,
	ClassStripeKey, ClassNPMToken, ClassAWSSecretKey, ClassAssigned, ClassBearer, ClassBasicAuth, ClassEmail}

// redacted replaces a secret.
const redacted = "[redacted]"

// secretPattern is one class of secret: a regexp, the submatches to replace
// (the first that matched; none: the whole match), and checks that keep
// ordinary words and code out.
//
// A regexp runs only around its anchors, literals every match holds: from
// back bytes before an anchor (and on to the start of the word there) to
// ahead bytes after it, within the anchor's line (and the next, for a
// pattern that may cross one). Each text is then read once per class, in
// time linear in its length, however many anchors it holds.
type secretPattern struct {
	class  string
	re     *regexp.Regexp
	find   func(s string) [][]int                // instead of re: the matches in s (as FindAllStringSubmatchIndex)
	groups []int                                 // submatches replaced, the first that matched (nil: the whole match)
	with   string                                // replacement
	hint   []string                              // anchors, as written
	fold   []string                              // anchors in lower case, found in any case
	back   int                                   // bytes a match may start before an anchor
	ahead  int                                   // bytes a match may end after an anchor
	lines  int                                   // line ends a match may cross (0: none)
	keep   func(s string, loc []int, g int) bool // whether a candidate (submatch g of loc in s) really is a secret; nil: always
}

// Patterns of the secret classes. Key prefixes are the providers' documented
// ones; a candidate of a prefix that words share must also look random
// (mixed letters and digits), so "sk-learn-compatible-estimators" or "Bearer
// authentication" stay as they are.
var (
	reSlackHook  = regexp.MustCompile(`https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{16,}`)
	reURLCreds   = regexp.MustCompile(`\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s/:@'"<>]+:([^\s/@'"<>]+)@`)
	reJWT        = regexp.MustCompile(`\bey[JA][A-Za-z0-9_-]{6,}\.ey[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]*`)
	reAnthropic  = regexp.MustCompile(`\bsk-ant-[A-Za-z0-9_-]{20,}`)
	reOpenAI     = regexp.MustCompile(`\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}`)
	reAWSAccess  = regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`)
	reGitHub     = regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})`)
	reSlackToken = regexp.MustCompile(`\b(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,})`)
	reGoogle     = regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)
	reStripe     = regexp.MustCompile(`\b(?:[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})`)
	reNPM        = regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36,}\b`)
	reAWSSecret  = regexp.MustCompile(`(?i)aws_?secret_?(?:access_?)?key["']?\s*(?::|=>|=)\s*["']?([A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|$)`)
	// reAssigned is a key that names a secret, assigned a value: quoted
	// (group 2 or 3) or not (group 4).
	reAssigned = regexp.MustCompile(`(?i)\b([a-z0-9_.-]*(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key|credentials?))["']?\s*(?::=|=>|=|:)[ \t]*(?:"([^"\n]*)"|'([^'\n]*)'|([^\s"'&,;(){}\[\]<>]+))`)
	reBearer   = regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)`)
	reBasic    = regexp.MustCompile(`(?i)\bbasic\s+([A-Za-z0-9+/]{8,}={0,2})`)
	reEmail    = regexp.MustCompile(`\b[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}\b`)
)

// secretPatterns are applied in order, after the home directory.
var secretPatterns = []secretPattern{
	{class: ClassPrivateKey, find: privateKeys, with: redacted, hint: []string{"PRIVATE KEY"}},
	{class: ClassSlackWebhook, re: reSlackHook, with: redacted, hint: []string{"hooks.slack.com"}, back: 8, ahead: 256},
	{class: ClassURLCredentials, re: reURLCreds, groups: []int{1}, with: redacted, hint: []string{"://"}, back: 22, ahead: 1024, keep: notPlaceholder},
	{class: ClassJWT, re: reJWT, with: redacted, hint: []string{"eyJ", "eyA"}, ahead: 16 << 10},
	{class: ClassAnthropicKey, re: reAnthropic, with: redacted, hint: []string{"sk-ant-"}, ahead: 512, keep: looksRandom},
	{class: ClassOpenAIKey, re: reOpenAI, with: redacted, hint: []string{"sk-"}, ahead: 512, keep: looksRandom},
	{class: ClassAWSAccessKey, re: reAWSAccess, with: redacted, hint: []string{"AKIA", "ASIA", "ABIA", "ACCA"}, ahead: 20},
	{class: ClassGitHubToken, re: reGitHub, with: redacted, hint: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, ahead: 512, keep: looksRandom},
	{class: ClassSlackToken, re: reSlackToken, with: redacted, hint: []string{"xox", "xapp-"}, ahead: 512, keep: looksRandom},
	{class: ClassGoogleAPIKey, re: reGoogle, with: redacted, hint: []string{"AIza"}, ahead: 40},
	{class: ClassStripeKey, re: reStripe, with: redacted, hint: []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"}, ahead: 512},
	{class: ClassNPMToken, re: reNPM, with: redacted, hint: []string{"npm_"}, ahead: 512},
	{class: ClassAWSSecretKey, re: reAWSSecret, groups: []int{1}, with: redacted, fold: []string{"secret"}, back: 4, ahead: 256, lines: 1},
	{class: ClassAssigned, re: reAssigned, groups: []int{2, 3, 4}, with: redacted,
		fold: []string{"pass", "secret", "token", "key", "credential"}, back: 64, ahead: 4096, lines: 1, keep: assignedSecret},
	{class: ClassBearer, re: reBearer, groups: []int{1}, with: redacted, fold: []string{"bearer"}, ahead: 8192, lines: 1, keep: looksRandom},
	{class: ClassBasicAuth, re: reBasic, groups: []int{1}, with: redacted, fold: []string{"basic"}, ahead: 4096, lines: 1, keep: looksRandom},
	{class: ClassEmail, re: reEmail, with: "[email]", hint: []string{"@"}, back: 128, ahead: 256, keep: isEmail},
}

// containsAny says whether s contains one of subs.
func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// group is submatch g of loc in s.
func group(s string, loc []int, g int) string { return s[loc[2*g]:loc[2*g+1]] }

// looksRandom keeps a candidate with at least two classes of characters
// among lower case, upper case and digits.
func looksRandom(s string, loc []int, g int) bool { return charClasses(group(s, loc, g)) >= 2 }

// notPlaceholder keeps a value that is not a placeholder for one.
func notPlaceholder(s string, loc []int, g int) bool { return !isPlaceholder(group(s, loc, g)) }

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

// placeholders are values that stand for a secret in examples and code.
var placeholders = map[string]bool{
	"null": true, "none": true, "nil": true, "true": true, "false": true, "undefined": true, "empty": true,
	"password": true, "passwd": true, "secret": true, "token": true, "changeme": true, "example": true,
	"redacted": true, "hidden": true, "required": true, "optional": true, "string": true, "str": true,
}

// isPlaceholder reports whether a value stands for a secret rather than
// being one: empty, a variable or template ($X, ${X}, {{x}}, <x>, %s), a
// mask (****, xxxx), or a word such as "password" or "null".
func isPlaceholder(v string) bool {
	if v == "" || strings.ContainsAny(v[:1], "$<{%*[") {
		return true
	}
	if placeholders[strings.ToLower(v)] {
		return true
	}
	return strings.Trim(strings.ToLower(v), "x*.-_•") == ""
}

// reIdentPath is a reference in code: config.api_key, os.environ.
var reIdentPath = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$`)

// reConstName is an environment variable or constant name: API_KEY.
var reConstName = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// assignedSecret keeps the value of a secret-named key that is a literal
// secret, not code or a placeholder: an unquoted name followed by "(" or
// "[" is a call or an index.
func assignedSecret(s string, loc []int, g int) bool {
	v, end := group(s, loc, g), loc[2*g+1]
	if g == 4 && end < len(s) && (s[end] == '(' || s[end] == '[') && reIdent.MatchString(v) {
		return false
	}
	return literalSecret(group(s, loc, 1), v, g != 4)
}

// reIdent is a name in code, or a path of names: getToken, os.environ.
var reIdent = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*$`)

// literalSecret says whether value, assigned to key, is a literal secret:
// for a password, any value of 4 characters or more; for a token, a key or
// a secret, 8 characters of two classes (letters and digits), or 20 of any.
// Calls, references, names of variables and placeholders are kept; an
// unquoted value must also hold a digit or a symbol.
func literalSecret(key, value string, quoted bool) bool {
	if isPlaceholder(value) || strings.ContainsAny(value, "()[]") || reIdentPath.MatchString(value) || reConstName.MatchString(value) {
		return false
	}
	if strings.EqualFold(value, key) {
		return false
	}
	if quoted && strings.ContainsAny(value, " \t") && !isPasswordKey(key) {
		return false // words, not a token
	}
	if !quoted && !hasDigitOrSymbol(value) {
		return false
	}
	if isPasswordKey(key) {
		return len(value) >= 4
	}
	return (len(value) >= 8 && charClasses(value) >= 2) || len(value) >= 20
}

// isPasswordKey says whether a key names a password.
func isPasswordKey(key string) bool {
	k := strings.ToLower(key)
	return strings.Contains(k, "passw") || strings.Contains(k, "passphrase")
}

// hasDigitOrSymbol says whether s holds a digit or a character other than a
// letter or an underscore.
func hasDigitOrSymbol(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_') {
			return true
		}
	}
	return false
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
// remote), a file name with "@2x", a package at a version ("react@18.2.0-rc.beta",
// two labels or more starting with a digit). A domain may start with a digit
// (163.com).
func isEmail(s string, loc []int, _ int) bool {
	m := s[loc[0]:loc[1]]
	at := strings.LastIndexByte(m, '@')
	local, domain := m[:at], m[at+1:]
	if local == "git" {
		return false
	}
	digitLabels := 0
	for _, label := range strings.Split(domain, ".") {
		if label[0] >= '0' && label[0] <= '9' {
			digitLabels++
		}
	}
	if digitLabels >= 2 {
		return false
	}
	tld := strings.ToLower(domain[strings.LastIndexByte(domain, '.')+1:])
	return !fileTLDs[tld]
}

// Redactor replaces secrets, e-mail addresses and the user's home directory
// in texts, and counts what it replaced by class. It is not safe for
// concurrent use.
type Redactor struct {
	homes  []homeForm
	counts map[string]int
	low    []byte // the text being redacted in lower case, for the hints; reused
}

// NewRedactor returns a redactor for the home directory home ("" for none).
func NewRedactor(home string) *Redactor {
	return &Redactor{homes: homeForms(home), counts: map[string]int{}}
}

// Counts is how many of each class the redactor replaced so far.
func (r *Redactor) Counts() map[string]int { return r.counts }

// RedactName redacts a file name with r (a fresh redactor without a home
// directory when r is nil), keeping its extension: a session file named
// after an e-mail address becomes "[email].jsonl".
func RedactName(name string, r *Redactor) string {
	if r == nil {
		r = NewRedactor("")
	}
	ext := path.Ext(name)
	if !sessionExts[strings.ToLower(ext)] {
		ext = ""
	}
	return r.Text(strings.TrimSuffix(name, ext)) + ext
}

// sessionExts are the extensions RedactName keeps apart from the name.
var sessionExts = map[string]bool{".jsonl": true, ".json": true, ".txt": true, ".log": true, ".ndjson": true}

// homeForm is one way the home directory is written.
type homeForm struct {
	s       string // as written (lower case when fold)
	fold    bool   // match ASCII case-insensitively (Windows)
	encoded bool   // the form Claude Code uses in project directory names: separators as "-"
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

// Text returns s with everything redactable replaced.
func (r *Redactor) Text(s string) string {
	for _, f := range r.homes {
		s = r.home(s, f)
	}
	r.low = appendLower(r.low[:0], s)
	for i := range secretPatterns {
		p := &secretPatterns[i]
		if !containsAny(s, p.hint) && !containsFolded(r.low, p.fold) {
			continue
		}
		if red := r.secrets(s, p); red != s {
			s = red
			r.low = appendLower(r.low[:0], s)
		}
	}
	return s
}

// appendLower appends s with ASCII letters in lower case to buf.
func appendLower(buf []byte, s string) []byte {
	buf = append(buf, s...)
	for i, c := range buf {
		if 'A' <= c && c <= 'Z' {
			buf[i] = c + 'a' - 'A'
		}
	}
	return buf
}

// containsFolded says whether low (a text in lower case) contains one of
// subs (in lower case).
func containsFolded(low []byte, subs []string) bool {
	for _, sub := range subs {
		if bytes.Contains(low, []byte(sub)) {
			return true
		}
	}
	return false
}

// secrets replaces the matches of one pattern.
func (r *Redactor) secrets(s string, p *secretPattern) string {
	var b strings.Builder
	last, n := 0, 0
	for _, loc := range r.matches(s, p) {
		g := matched(loc, p.groups)
		if g < 0 || loc[2*g] < last || (p.keep != nil && !p.keep(s, loc, g)) {
			continue
		}
		b.WriteString(s[last:loc[2*g]])
		b.WriteString(p.with)
		last, n = loc[2*g+1], n+1
	}
	if n == 0 {
		return s
	}
	b.WriteString(s[last:])
	r.counts[p.class] += n
	return b.String()
}

// matches are the matches of p in s, in order: its regexp run over the
// windows around its anchors.
func (r *Redactor) matches(s string, p *secretPattern) [][]int {
	if p.find != nil {
		return p.find(s)
	}
	var out [][]int
	for _, w := range r.windows(s, p) {
		for _, loc := range p.re.FindAllStringSubmatchIndex(s[w[0]:w[1]], -1) {
			for i := range loc {
				if loc[i] >= 0 {
					loc[i] += w[0]
				}
			}
			out = append(out, loc)
		}
	}
	return out
}

// windows are the parts of s p's regexp must read: around each anchor,
// merged where they touch, in order.
func (r *Redactor) windows(s string, p *secretPattern) [][2]int {
	var starts []int // anchor positions and lengths, in pairs
	for _, a := range p.hint {
		for i := 0; ; {
			j := strings.Index(s[i:], a)
			if j < 0 {
				break
			}
			starts = append(starts, i+j, len(a))
			i += j + len(a)
		}
	}
	for _, a := range p.fold {
		for i := 0; ; {
			j := bytes.Index(r.low[i:], []byte(a))
			if j < 0 {
				break
			}
			starts = append(starts, i+j, len(a))
			i += j + len(a)
		}
	}
	spans := make([][2]int, 0, len(starts)/2)
	for k := 0; k < len(starts); k += 2 {
		spans = append(spans, window(s, starts[k], starts[k]+starts[k+1], p))
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i][0] < spans[j][0] })
	merged := spans[:0]
	for _, w := range spans {
		if n := len(merged); n > 0 && w[0] <= merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], w[1])
			continue
		}
		merged = append(merged, w)
	}
	return merged
}

// maxWordStretch bounds how far a window grows to reach the edge of a word.
const maxWordStretch = 256

// window is the part of s a match holding the anchor s[start:end] can
// cover: back bytes before it and ahead after it, within its lines, grown
// to whole words.
func window(s string, start, end int, p *secretPattern) [2]int {
	lo := max(0, start-p.back)
	if nl := strings.LastIndexByte(s[lo:start], '\n'); nl >= 0 {
		lo += nl + 1
	}
	for stop := max(0, lo-maxWordStretch); lo > stop && isWordByte(s[lo-1]); lo-- {
	}
	hi := min(len(s), end+p.ahead)
	from := end
	for n := 0; n <= p.lines; n++ {
		nl := strings.IndexByte(s[from:hi], '\n')
		if nl < 0 {
			break
		}
		if n == p.lines {
			hi = from + nl
			break
		}
		from += nl + 1
	}
	for stop := min(len(s), hi+maxWordStretch); hi < stop && isWordByte(s[hi]); hi++ {
	}
	return [2]int{lo, hi}
}

// isWordByte reports whether c is a character of a word in the sense of \b.
func isWordByte(c byte) bool {
	return c == '_' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// privateKeys finds PEM and OpenSSH private-key blocks: from a BEGIN line
// naming a private key to its END line, or, for a block cut short, over the
// lines of base64 and headers after it. The END is looked for once, not
// once per block.
func privateKeys(s string) [][]int {
	var out [][]int
	nextEnd := -2 // the next "-----END" at or after the cursor; -1: none; -2: not looked for
	for i := 0; ; {
		j := strings.Index(s[i:], "-----BEGIN")
		if j < 0 {
			return out
		}
		start := i + j
		head := pemMarker(s, start)
		if head < 0 || !strings.Contains(s[start:head], "PRIVATE KEY") {
			i = start + len("-----BEGIN")
			continue
		}
		if nextEnd != -1 && nextEnd < head {
			nextEnd = -1
			if k := strings.Index(s[head:], "-----END"); k >= 0 {
				nextEnd = head + k
			}
		}
		end := -1
		if nextEnd >= 0 {
			if e := pemMarker(s, nextEnd); e >= 0 && strings.Contains(s[nextEnd:e], "PRIVATE KEY") && !strings.Contains(s[head:nextEnd], "-----BEGIN") {
				end = e
			}
		}
		if end < 0 {
			end = pemBody(s, head)
		}
		out = append(out, []int{start, end})
		i = end
	}
}

// pemMarker is the index after the "-----" that closes the marker starting
// at i ("-----BEGIN RSA PRIVATE KEY-----"), -1 if there is none on its line.
func pemMarker(s string, i int) int {
	rest := s[i+5:]
	if nl := strings.IndexAny(rest, "\n"); nl >= 0 && nl < 80 {
		rest = rest[:nl]
	} else if len(rest) > 80 {
		rest = rest[:80]
	}
	k := strings.Index(rest, "-----")
	if k < 0 {
		return -1
	}
	return i + 5 + k + 5
}

// pemBody is the end of the lines of base64 (16 characters or more) and of
// headers ("Proc-Type: 4,ENCRYPTED") from i, the lines apart by new lines
// or by the two characters \n of an escaped text.
func pemBody(s string, i int) int {
	end := i
	for j := i; j < len(s); {
		k := j
		for k < len(s) {
			switch {
			case s[k] == '\n' || s[k] == '\r' || s[k] == ' ' || s[k] == '\t':
				k++
				continue
			case s[k] == '\\' && k+1 < len(s) && (s[k+1] == 'n' || s[k+1] == 'r'):
				k += 2
				continue
			}
			break
		}
		n := k
		for n < len(s) && (isWordByte(s[n]) || s[n] == '+' || s[n] == '/' || s[n] == '=') && s[n] != '_' {
			n++
		}
		switch {
		case n-k >= 16:
		case n > k && n < len(s) && (s[n] == ':' || s[n] == '-') && isHeader(s, k):
			n = lineEnd(s, k)
		default:
			return end
		}
		end, j = n, n
	}
	return end
}

// isHeader says whether the line at i is a PEM header: "Name: value".
func isHeader(s string, i int) bool {
	line := s[i:lineEnd(s, i)]
	name, _, ok := strings.Cut(line, ": ")
	return ok && name != "" && strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-") == ""
}

// lineEnd is the index of the end of the line at i: its new line, the \n
// of an escaped text, or the end of s.
func lineEnd(s string, i int) int {
	for j := i; j < len(s); j++ {
		if s[j] == '\n' || (s[j] == '\\' && j+1 < len(s) && s[j+1] == 'n') {
			return j
		}
	}
	return len(s)
}

// matched is the first of groups that matched in loc (0, the whole match,
// when groups is empty); -1 if none did.
func matched(loc []int, groups []int) int {
	if len(groups) == 0 {
		return 0
	}
	for _, g := range groups {
		if loc[2*g] >= 0 {
			return g
		}
	}
	return -1
}

// home replaces the home directory, written in form f, by "~" where it is a
// whole path element ("/home/alice/x", not "/home/alicex" or "/mnt/home/alice").
func (r *Redactor) home(s string, f homeForm) string {
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
	r.counts[ClassHome] += n
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

// JSON redacts the string values (and keys) of a compact JSON text, leaving
// its structure and order as they are; the string value of a key that names
// a secret ("password", "api_key", …) is redacted when it is a literal one.
// A text that is not JSON is redacted as text.
func (r *Redactor) JSON(raw string) string {
	if !json.Valid([]byte(raw)) {
		return r.Text(raw)
	}
	var b strings.Builder
	last, changed := 0, false
	key := "" // the key whose value comes next, "" if none
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		end := stringEnd(raw, i)
		v, ok := unquote(raw[i:end])
		isKey := nextNonSpace(raw, end) == ':'
		if ok {
			red := r.Text(v)
			if !isKey && red == v && secretKey(key) && literalSecret(key, v, true) {
				red = redacted
				r.counts[ClassAssigned]++
			}
			if red != v {
				b.WriteString(raw[last:i])
				b.Write(quote(red))
				last, changed = end, true
			}
		}
		key = ""
		if isKey && ok {
			key = v
		}
		i = end - 1
	}
	if !changed {
		return raw
	}
	b.WriteString(raw[last:])
	return b.String()
}

// reSecretKey is a whole key that names a secret.
var reSecretKey = regexp.MustCompile(`(?i)^[a-z0-9_.-]*(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key|credentials?)$`)

// secretKey says whether a JSON key names a secret.
func secretKey(key string) bool { return key != "" && len(key) <= 64 && reSecretKey.MatchString(key) }

// nextNonSpace is the first byte of raw from i that is not white space, 0
// if none.
func nextNonSpace(raw string, i int) byte {
	for ; i < len(raw); i++ {
		if !isSpace(raw[i]) {
			return raw[i]
		}
	}
	return 0
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
