package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fake secrets of these tests are joined from parts, so that no scanner
// of this repository takes the test file for a leak.
func fake(parts ...string) string { return strings.Join(parts, "") }

// Fake secrets of every class, as the redaction tests plant them.
var (
	fakeAnthropic = fake("sk-", "ant-api03-", "FAKEfakeFAKE0123456789abcdefABCDEF_-xyz")
	fakeOpenAI    = fake("sk-", "proj-", "FAKE0123456789abcdefABCDEFghij")
	fakeSvcAcct   = fake("sk-", "svcacct-", "FAKE0123456789abcdefABCDEF")
	fakeAWSID     = fake("AKIA", "FAKE0123456789AB")
	fakeAWSSecret = fake("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYFAKEKEY123")
	fakeGitHub    = []string{fake("gh", "p_", "FAKE0123456789abcdefghijklmnopqrstuv"), fake("gh", "o_", "FAKE0123456789abcdefghijklmnopqrstuv"),
		fake("gh", "u_", "FAKE0123456789abcdefghijklmnopqrstuv"), fake("gh", "s_", "FAKE0123456789abcdefghijklmnopqrstuv"),
		fake("gh", "r_", "FAKE0123456789abcdefghijklmnopqrstuv"), fake("github", "_pat_", "11FAKE0123456789_abcdefghijklmnopqrstuvwxyz")}
	fakeSlack      = []string{fake("xo", "xb-", "123456789012-1234567890123-FAKEfakeFAKEfake"), fake("xo", "xp-", "1234-5678-FAKEfake90"), fake("xa", "pp-1-", "A0FAKE1234-987654321-abcdef")}
	fakeSlackHook  = fake("https://hooks.", "slack.com/services/", "T00FAKE00/B00FAKE00/XXXXfakeXXXXfakeXXXX1234")
	fakeGoogle     = fake("AI", "za", "SyFAKE-0123456789abcdefghijklmnopqr")
	fakeStripe     = []string{fake("sk_", "live_", "FAKE0123456789abcdefABCD"), fake("rk_", "test_", "FAKE0123456789abcdefABCD"), fake("wh", "sec_", "FAKE0123456789abcdefABCDEF12")}
	fakeNPM        = fake("np", "m_", "FAKE0123456789abcdefABCDEFghijklmnop")
	fakeJWT        = fake("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", ".", "eyJzdWIiOiJGQUtFIiwibmFtZSI6IkFuYSJ9", ".", "ZmFrZXNpZ25hdHVyZWZha2VzaWduYXR1cmU")
	fakeKeyBody    = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACBGQUtFZmFrZUZBS0VmYWtlRkFLRWZha2VGQUtFZmFrZQAAAJBGQUtF"
	fakePrivateKey = fake("-----BEGIN OPENSSH ", "PRIVATE KEY-----\n", fakeKeyBody, "\n-----END OPENSSH ", "PRIVATE KEY-----")
	fakeRSAKey     = fake("-----BEGIN RSA ", "PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,FAKE00\n\n", "MIIEowIBAAKCAQEAfakeFAKEfakeFAKEfakeFAKE\nFAKEfakeFAKEfake0123456789+/ab==\n", "-----END RSA ", "PRIVATE KEY-----")
)

// TestRedactClasses checks each class a secret scanner would flag, with
// what is kept around it and the count of its class.
func TestRedactClasses(t *testing.T) {
	tests := []struct {
		name, in, want string
		counts         map[string]int
	}{
		{"OpenSSH private key", "id_ed25519:\n" + fakePrivateKey + "\nok", "id_ed25519:\n[redacted]\nok", map[string]int{"private-key": 1}},
		{"encrypted RSA private key", fakeRSAKey, "[redacted]", map[string]int{"private-key": 1}},
		{"private key cut short", "key:\n" + fake("-----BEGIN ", "PRIVATE KEY-----\n") + fakeKeyBody + "\nDone.", "key:\n[redacted]\nDone.", map[string]int{"private-key": 1}},
		{"private key in escaped JSON", `"private_key": "` + fake("-----BEGIN ", `PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDFAKE\n-----END `, `PRIVATE KEY-----\n"`),
			`"private_key": "[redacted]\n"`, map[string]int{"private-key": 1}},
		{"Slack webhook", "curl -X POST " + fakeSlackHook + " -d @msg.json", "curl -X POST [redacted] -d @msg.json", map[string]int{"slack-webhook": 1}},
		{"password in a URL", "git clone https://ana:S3cr3tPw0rd@git.example.com/x.git", "git clone https://ana:[redacted]@git.example.com/x.git", map[string]int{"url-credentials": 1}},
		{"token as a URL password", "https://x-access-token:" + fakeGitHub[3] + "@github.com/o/r", "https://x-access-token:[redacted]@github.com/o/r", map[string]int{"url-credentials": 1}},
		{"bare JWT", "cookie session=" + fakeJWT + "; Path=/", "cookie session=[redacted]; Path=/", map[string]int{"jwt": 1}},
		{"Anthropic key", "ANTHROPIC_API_KEY=" + fakeAnthropic, "ANTHROPIC_API_KEY=[redacted]", map[string]int{"anthropic-key": 1}},
		{"OpenAI keys", fakeOpenAI + " " + fakeSvcAcct, "[redacted] [redacted]", map[string]int{"openai-key": 2}},
		{"AWS access key id", "aws_access_key_id = " + fakeAWSID, "aws_access_key_id = [redacted]", map[string]int{"aws-access-key": 1}},
		{"AWS secret key, unquoted", "[default]\naws_secret_access_key = " + fakeAWSSecret + "\nregion = eu-west-1", "[default]\naws_secret_access_key = [redacted]\nregion = eu-west-1", map[string]int{"aws-secret-key": 1}},
		{"AWS secret key, quoted", `AWS_SECRET_ACCESS_KEY="` + fakeAWSSecret + `"`, `AWS_SECRET_ACCESS_KEY="[redacted]"`, map[string]int{"aws-secret-key": 1}},
		{"GitHub tokens of every prefix", strings.Join(fakeGitHub, "\n"), strings.TrimSuffix(strings.Repeat("[redacted]\n", 6), "\n"), map[string]int{"github-token": 6}},
		{"Slack tokens", strings.Join(fakeSlack, " "), "[redacted] [redacted] [redacted]", map[string]int{"slack-token": 3}},
		{"Google API key", "key=" + fakeGoogle + "&q=1", "key=[redacted]&q=1", map[string]int{"google-api-key": 1}},
		{"Stripe keys", strings.Join(fakeStripe, ","), "[redacted],[redacted],[redacted]", map[string]int{"stripe-key": 3}},
		{"npm token", "//registry.npmjs.org/:_authToken=" + fakeNPM, "//registry.npmjs.org/:_authToken=[redacted]", map[string]int{"npm-token": 1}},
		{"password, quoted", `DB_PASSWORD="Xy7#kP2$mQ9!vL4@wR6&"`, `DB_PASSWORD="[redacted]"`, map[string]int{"assigned-secret": 1}},
		{"password, unquoted", "mysql --user=root --password=hunter2 db", "mysql --user=root --password=[redacted] db", map[string]int{"assigned-secret": 1}},
		{"password in YAML", "db:\n  password: c0rrect-h0rse\n  user: app", "db:\n  password: [redacted]\n  user: app", map[string]int{"assigned-secret": 1}},
		{"secret, unquoted", "secret: s3cr3t-v4lue-2024", "secret: [redacted]", map[string]int{"assigned-secret": 1}},
		{"api_key with a colon", "api_key: 8f14e45fceea167a5a36dedd4bea2543", "api_key: [redacted]", map[string]int{"assigned-secret": 1}},
		{"token in a query", "GET /v1/feed?token=abcd1234efgh5678&page=2", "GET /v1/feed?token=[redacted]&page=2", map[string]int{"assigned-secret": 1}},
		{"X-Api-Key header", "-H 'X-Api-Key: Zx9QwErTy7UiOp3A'", "-H 'X-Api-Key: [redacted]'", map[string]int{"assigned-secret": 1}},
		{"bearer token", "Authorization: Bearer 0123456789abcdefXYZ", "Authorization: Bearer [redacted]", map[string]int{"bearer": 1}},
		{"basic auth header", "Authorization: Basic YWxpY2U6czNjcjN0UGFzcw==", "Authorization: Basic [redacted]", map[string]int{"basic-auth": 1}},
		{"e-mail at a domain starting with a digit", "write to anafake88@163.com or Ana.Fake@Example.CO.JP", "write to [email] or [email]", map[string]int{"email": 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			counts := map[string]int{}
			if got := redactWith("/home/alice", counts, tt.in); got != tt.want {
				t.Errorf("redact(%q) = %q; want %q", tt.in, got, tt.want)
			}
			if !equalCounts(counts, tt.counts) {
				t.Errorf("redact(%q) counts = %v; want %v", tt.in, counts, tt.counts)
			}
		})
	}
}

// ordinaryCode is code and configuration that names secrets without holding
// one: none of it may be redacted.
const ordinaryCode = `def login(user, password):
    password_hash = bcrypt.hash(password)
    if token is None:
        raise ValueError("token required")
    self.token = token
    api_key = None
    access_key = get_access_key()
const apiKey = process.env.API_KEY;
let token = req.headers["authorization"];
secret := os.Getenv("SECRET")
interface Creds { token: string; password: str; apiKey: number; secret?: boolean }
export GITHUB_TOKEN=$(gh auth token)
env:
  TOKEN: ${{ secrets.GITHUB_TOKEN }}
  password: ${DB_PASSWORD}
  secret: "a description of the secret, not one"
  token_count: 12
{"max_tokens": 4096, "tokens": 5, "temperature": 0.2}
url = "postgres://user:password@localhost:5432/db"
dsn = "mysql://app:${MYSQL_PASSWORD}@db/app"
npm install react@18.2.0-rc.1 lodash@4.17.21
Basic configuration and basic usage; bearer of news.
commit 3f2a1b4c5d6e7f8091a2b3c4d5e6f708192a3b4c
"integrity": "sha512-Zx9QwErTy7UiOp3AsDfGh1JkZx9QwErTy7UiOp3AsDfGh1Jk=="
risk-assessment-framework-v2-2024 and desk-lamp-controller-firmware-1
the key is in ~/.ssh/id_ed25519 (a PRIVATE KEY file, not shown)`

// TestRedactNoFalsePositivesInCode checks that ordinary code and
// configuration come out as they went in.
func TestRedactNoFalsePositivesInCode(t *testing.T) {
	counts := map[string]int{}
	if got := redactWith("/home/alice", counts, ordinaryCode); got != ordinaryCode || len(counts) != 0 {
		t.Errorf("redact(ordinary code) changed it (%v):\n%s", counts, got)
	}
}

// TestRedactJSONAssignments checks the values of secret-named keys in tool
// arguments, which reach the redactor as a key and a value apart.
func TestRedactJSONAssignments(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"password":"hunter2x","user":"ana"}`, `{"password":"[redacted]","user":"ana"}`},
		{`{"env":{"API_KEY":"Zx9QwErTy7UiOp3A"}}`, `{"env":{"API_KEY":"[redacted]"}}`},
		{`{"token":"short","max_tokens":4096,"description":"my secret plan"}`, `{"token":"short","max_tokens":4096,"description":"my secret plan"}`},
		{`{"` + fakeGitHub[0] + `":"x"}`, `{"[redacted]":"x"}`},
	}
	for _, tt := range tests {
		if got := NewRedactor("").JSON(tt.in); got != tt.want {
			t.Errorf("JSON(%s) = %s; want %s", tt.in, got, tt.want)
		}
	}
}

// TestRedactName checks file names: an e-mail address or a key in a name is
// redacted, the extension kept.
func TestRedactName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ana.fake-user@example.org.jsonl", "[email].jsonl"},
		{"ana@example.com", "[email]"},
		{"notes-" + fakeAnthropic + ".json", "notes-[redacted].json"},
		{"rollout-2026-03-02T10-00-00-0199aaaa.jsonl", "rollout-2026-03-02T10-00-00-0199aaaa.jsonl"},
	}
	for _, tt := range tests {
		if got := RedactName(tt.in, nil); got != tt.want {
			t.Errorf("RedactName(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// TestReadPlantedSecrets plants a secret of every class in every field of a
// Claude Code session a lesson shows, and in its file name: none survives
// the reader, each class is counted.
func TestReadPlantedSecrets(t *testing.T) {
	secrets := append(append(append([]string{fakeAnthropic, fakeOpenAI, fakeAWSID, fakeGoogle, fakeNPM, fakeJWT, fakeSlackHook}, fakeGitHub...), fakeSlack...), fakeStripe...)
	plant := func(i int) string { return secrets[i%len(secrets)] }
	quoteJSON := func(s string) string { return strings.TrimSuffix(strings.TrimPrefix(string(quote(s)), `"`), `"`) }
	var recs []string
	parent := ""
	add := func(typ, uuid, extra string) {
		recs = append(recs, rec(typ, uuid, parent, len(recs), extra))
		parent = uuid
	}
	text := func(s string) string { return `,"message":{"role":"user","content":"` + quoteJSON(s) + `"}` }
	add("user", "u1", text(strings.Join(secrets, " ")+" mail anafake88@163.com")+`,"cwd":"/home/anafake/w"`)
	recs[0] = strings.Replace(recs[0], `,"message":{"role":"user","content":"u1"}`, "", 1)
	add("assistant", "a1", `,"message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"`+quoteJSON("see "+plant(1)+" and "+fakeJWT)+`"},`+
		`{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"`+quoteJSON("export KEY="+plant(2)+"; curl -H 'Authorization: Bearer 0123456789abcdefXYZ' -H 'X-Api-Key: Zx9QwErTy7UiOp3A' https://ana:S3cr3tPw0rd@git.example.com")+`","`+fakeGitHub[0]+`":"as a key"}}]}`)
	add("user", "r1", `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"`+
		quoteJSON("[default]\naws_secret_access_key = "+fakeAWSSecret+"\nDB_PASSWORD=\"Xy7#kP2$mQ9!vL4@wR6&\"\n"+fakePrivateKey)+`"}]}`)
	add("system", "b1", `,"subtype":"compact_boundary","logicalParentUuid":"r1","compactMetadata":{"trigger":"auto","preTokens":9}`)
	add("user", "s1", `,"isCompactSummary":true,"message":{"role":"user","content":"`+quoteJSON("Summary: the user used "+fakeJWT+" and "+plant(3))+`"}`)
	recs = append(recs, `{"type":"summary","summary":"`+quoteJSON("Mailing Ana.Fake@Example.CO.JP "+plant(4))+`"}`)
	dir := t.TempDir()
	path := filepath.Join(dir, "ana.fake-user@example.org.jsonl")
	if err := os.WriteFile(path, []byte(lines(recs...)), 0o600); err != nil {
		t.Fatal(err)
	}
	s := mustRead(t, path, Options{Redact: true, Home: "/home/anafake"})
	var all []string
	all = append(all, s.File, s.Title, s.Cwd, s.System)
	for _, m := range s.Messages {
		all = append(all, m.Text)
		for _, c := range m.Calls {
			all = append(all, c.Name, c.Args)
		}
	}
	for _, c := range s.Compactions {
		all = append(all, c.Summary)
	}
	everything := strings.Join(all, "\n")
	for _, secret := range append(secrets, fakeAWSSecret, "S3cr3tPw0rd", "Xy7#kP2", "0123456789abcdefXYZ", "Zx9QwErTy7UiOp3A", fakeKeyBody[:30], "anafake88", "Ana.Fake", "ana.fake-user", "/home/anafake") {
		if strings.Contains(everything, secret) {
			t.Errorf("%q survived the reader", secret)
		}
	}
	for _, class := range []string{"anthropic-key", "openai-key", "aws-access-key", "aws-secret-key", "github-token", "slack-token", "slack-webhook",
		"google-api-key", "stripe-key", "npm-token", "jwt", "private-key", "url-credentials", "assigned-secret", "bearer", "email", "home"} {
		if s.Redactions[class] == 0 {
			t.Errorf("Redactions[%s] = 0; want it counted (%v)", class, s.Redactions)
		}
	}
	if s.File != "[email].jsonl" {
		t.Errorf("File = %q; want [email].jsonl", s.File)
	}
	t.Logf("redactions: %v", s.Redactions)
}
