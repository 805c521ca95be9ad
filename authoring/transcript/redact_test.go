package transcript

import (
	"strings"
	"testing"
)

// TestRedactKinds checks each kind of secret, and what is kept around it.
func TestRedactKinds(t *testing.T) {
	tests := []struct {
		name, in, want string
		counts         map[string]int
	}{
		{"anthropic key", "key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_x end", "key [redacted] end", map[string]int{"anthropic-key": 1}},
		{"openai project key", "OPENAI_API_KEY=sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34", "OPENAI_API_KEY=[redacted]", map[string]int{"openai-key": 1}},
		{"openai key", "sk-0123456789abcdefABCDEF0123", "[redacted]", map[string]int{"openai-key": 1}},
		{"aws access key id", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "aws_access_key_id = [redacted]", map[string]int{"aws-access-key": 1}},
		{"github tokens", "ghp_FAKE0123456789abcdefghijklmnopqrstuv gho_FAKE0123456789abcdefghijklmnopqrstuv github_pat_11FAKE0123456789_abcdefghijklmnopqrstuvwxyz",
			"[redacted] [redacted] [redacted]", map[string]int{"github-token": 3}},
		{"slack token", "SLACK=xoxb-1234567890-abcdefghij", "SLACK=[redacted]", map[string]int{"slack-token": 1}},
		{"google api key", "key=AIzaSyFAKE-0123456789abcdefghijklmnopqr;", "key=[redacted];", map[string]int{"google-api-key": 1}},
		{"stripe key", "sk_live_0123456789abcdefABCD", "[redacted]", map[string]int{"stripe-key": 1}},
		{"quoted secret in code", `const apiKey = "Zx9QwErTy7UiOp3AsDfGh1Jk";`, `const apiKey = "[redacted]";`, map[string]int{"assigned-secret": 1}},
		{"quoted secret in JSON", `{"client_secret": "Zx9QwErTy7UiOp3AsDfGh1Jk"}`, `{"client_secret": "[redacted]"}`, map[string]int{"assigned-secret": 1}},
		{"bearer token", "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln", "Authorization: Bearer [redacted]", map[string]int{"jwt": 1}},
		{"bearer token, lower case", "authorization: bearer 0123456789abcdefghij==", "authorization: bearer [redacted]", map[string]int{"bearer": 1}},
		{"e-mail addresses", "Mail alice.smith+ci@example.co.uk or <bob@mail.example.org>.", "Mail [email] or <[email]>.", map[string]int{"email": 2}},
		{"home directory", "cd /home/alice && ls /home/alice/src", "cd ~ && ls ~/src", map[string]int{"home": 2}},
		{"home in an encoded project directory", "~/.claude/projects/-home-alice-work-demo/x.jsonl", "~/.claude/projects/~-work-demo/x.jsonl", map[string]int{"home": 1}},
		{"everything together", "/home/alice/.env: TOKEN=ghp_FAKE0123456789abcdefghijklmnopqrstuv by alice@example.com",
			"~/.env: TOKEN=[redacted] by [email]", map[string]int{"home": 1, "github-token": 1, "email": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			counts := map[string]int{}
			got := redactWith("/home/alice", counts, tt.in)
			if got != tt.want {
				t.Errorf("redact(%q) = %q; want %q", tt.in, got, tt.want)
			}
			if !equalCounts(counts, tt.counts) {
				t.Errorf("redact(%q) counts = %v; want %v", tt.in, counts, tt.counts)
			}
		})
	}
}

// ordinaryText is prose and code with nothing to redact: words next to key
// prefixes, tokens in variables, look-alike addresses, other people's homes.
const ordinaryText = `The bearer of bad news said Bearer authentication needs a token; see the Bearer $TOKEN
example and "Authorization: Bearer ${API_KEY}". Our task-management tool wraps sk-learn-compatible-estimators
and a disk-usage-monitor-for-every-host. AKIA alone is not a key, nor is the prefix ghp_ or xoxb- or sk-.

    token = getTokenFromEnv2()
    password: os.environ["PASSWORD"]
    api_key = config.api_key
    secret_key_base = ENV.fetch("SECRET_KEY_BASE")
    headers = {"Authorization": f"Bearer {token}"}
    const tokenizerName = "cl100k_base_tokenizer_v2";
    @property
    def email(self): return self._email

Pin lodash@4.17.21 and @types/node@20.1.0; images icon@2x.png and logo@3x.webp;
clone git@github.com:owner/repo.git; mail goes to root@localhost.
Paths: /home/alicex/notes, /mnt/home/alice/backup, /home/bob/.bashrc, /var/alice.
Digest sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855, uuid 0f6d7c2e-8a8b-4c1d-9e2f-3a4b5c6d7e8f.`

// TestRedactNoFalsePositives checks that ordinary prose and code come out as
// they went in.
func TestRedactNoFalsePositives(t *testing.T) {
	counts := map[string]int{}
	got := redactWith("/home/alice", counts, ordinaryText)
	if got != ordinaryText {
		t.Errorf("redact(ordinary text) changed it:\n%s", got)
	}
	if len(counts) != 0 {
		t.Errorf("redact(ordinary text) counts = %v; want none", counts)
	}
}

// TestRedactHome checks the forms of home directories.
func TestRedactHome(t *testing.T) {
	tests := []struct {
		home, in, want string
		n              int
	}{
		{"/Users/alice", "open /Users/alice/Desktop", "open ~/Desktop", 1},
		{"/home/alice/", "/home/alice/x", "~/x", 1},
		{`C:\Users\alice`, `dir C:\Users\alice\src and c:\users\ALICE\x`, `dir ~\src and ~\x`, 2},
		{`C:\Users\alice`, `C:/Users/alice/src`, `~/src`, 1},
		{`C:\Users\alice`, `projects\C--Users-alice-src\a.jsonl`, `projects\~-src\a.jsonl`, 1},
		{`C:\Users\alice`, `C:\Users\alicex`, `C:\Users\alicex`, 0},
		{"/root", "/root/x and -root", "~/x and -root", 1},
		{"/", "/etc/passwd", "/etc/passwd", 0},
		{`C:\`, `C:\x`, `C:\x`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.home+" "+tt.in, func(t *testing.T) {
			counts := map[string]int{}
			if got := redactWith(tt.home, counts, tt.in); got != tt.want || counts["home"] != tt.n {
				t.Errorf("redact(home %q, %q) = %q, %d; want %q, %d", tt.home, tt.in, got, counts["home"], tt.want, tt.n)
			}
		})
	}
}

// TestRedactHomeDefault checks that an empty Options.Home means the user's.
func TestRedactHomeDefault(t *testing.T) {
	t.Setenv("HOME", "/home/zed")
	path := writeTemp(t, "s.jsonl", lines(rec("user", "u1", "", 0, `,"cwd":"/home/zed/w"`)))
	if s := mustRead(t, path, Options{Redact: true}); s.Cwd != "~/w" {
		t.Errorf("Read(Redact, no Home).Cwd = %q; want ~/w", s.Cwd)
	}
}

// TestRedactJSON checks that tool arguments stay valid JSON, in their order.
func TestRedactJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"z":"/home/alice/a","a":["x","mail a@example.com"]}`, `{"z":"~/a","a":["x","mail [email]"]}`},
		{`{"cmd":"echo \"/home/alice\"\n<b>&"}`, `{"cmd":"echo \"~\"\n<b>&"}`},
		{`{"n":1,"b":true,"s":"plain \u00e9"}`, `{"n":1,"b":true,"s":"plain \u00e9"}`},
		{`not json /home/alice`, `not json ~`},
	}
	for _, tt := range tests {
		if got := NewRedactor("/home/alice").JSON(tt.in); got != tt.want {
			t.Errorf("redactJSON(%s) = %s; want %s", tt.in, got, tt.want)
		}
	}
}

// TestReadRedaction reads the secrets fixture with and without redaction.
func TestReadRedaction(t *testing.T) {
	s := mustRead(t, fixture("cc_secrets.jsonl"), Options{Redact: true, Home: "/home/alice"})
	want := []string{
		`user "Use [redacted] and [redacted], then mail [email]."`,
		`assistant "" call=[toolu_z1 Bash {"command":"curl -H 'Authorization: Bearer [redacted]' https://api.example.com/v1 > ~/out.txt"}] usage=30/0/0/40`,
		`tool toolu_z1 "saved to ~/out.txt\nGITHUB_TOKEN=[redacted]\nlog: ~/.claude/projects/~-work-demo/5ec.jsonl"`,
		`assistant "Saved. The file is in ~ and /home/alicex is someone else." usage=50/0/0/20`,
	}
	if d := diffLines(shape(s), want); d != "" {
		t.Errorf("Read(cc_secrets, Redact) messages differ at %s", d)
	}
	counts := map[string]int{"anthropic-key": 1, "aws-access-key": 1, "github-token": 1, "jwt": 1, "email": 2, "home": 6}
	if !equalCounts(s.Redactions, counts) {
		t.Errorf("Read(cc_secrets, Redact).Redactions = %v; want %v", s.Redactions, counts)
	}
	if s.Title != "Mailing [email] the report" || s.Cwd != "~/work/demo" {
		t.Errorf("Read(cc_secrets, Redact) Title, Cwd = %q, %q; want redacted", s.Title, s.Cwd)
	}
	plain := mustRead(t, fixture("cc_secrets.jsonl"), Options{Home: "/home/alice"})
	if len(plain.Redactions) != 0 || !strings.Contains(plain.Messages[0].Text, "sk-ant-") {
		t.Errorf("Read(cc_secrets) without Redact changed the text: %q, %v", plain.Messages[0].Text, plain.Redactions)
	}
}

// TestReadRedactionOpenAI checks the system prompt, compact summaries' and
// tool texts are redacted in OpenAI files too.
func TestReadRedactionOpenAI(t *testing.T) {
	path := writeTemp(t, "s.json", `{"messages":[{"role":"system","content":"Admin: ops@example.com"},`+
		`{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"sh","arguments":"{\"p\":\"/home/alice/x\"}"}}]},`+
		`{"role":"tool","tool_call_id":"c","content":"Bearer 0123456789abcdefXYZ"}]}`)
	s := mustRead(t, path, Options{Redact: true, Home: "/home/alice"})
	want := []string{`assistant "" call=[c sh {"p":"~/x"}]`, `tool c "Bearer [redacted]"`}
	if d := diffLines(shape(s), want); d != "" || s.System != "Admin: [email]" {
		t.Errorf("Read(Redact) = system %q, messages %s", s.System, d)
	}
}

// redactWith redacts s with a redactor for home, adding its counts to counts.
func redactWith(home string, counts map[string]int, s string) string {
	r := NewRedactor(home)
	r.counts = counts
	return r.Text(s)
}
