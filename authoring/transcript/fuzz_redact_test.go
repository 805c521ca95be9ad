package transcript

import (
	"encoding/base64"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"testing"
)

// secretGen makes a secret of one class from a random source: the text to
// plant, and the part of it that must not survive redaction.
type secretGen struct {
	class string
	make  func(r *rand.Rand) (text, core string)
}

const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upperD = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b64    = alnum + "+/"
)

// randFrom is n characters of set, the first three a digit, an upper and a
// lower case letter when set holds them (so the secret looks random).
func randFrom(r *rand.Rand, set string, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		switch {
		case i == 0 && strings.ContainsRune(set, '7'):
			b.WriteByte("0123456789"[r.IntN(10)])
		case i == 1 && strings.ContainsRune(set, 'Q'):
			b.WriteByte("ABCDEFGHIJKLMNOPQRSTUVWXYZ"[r.IntN(26)])
		case i == 2 && strings.ContainsRune(set, 'q'):
			b.WriteByte("abcdefghijklmnopqrstuvwxyz"[r.IntN(26)])
		default:
			b.WriteByte(set[r.IntN(len(set))])
		}
	}
	return b.String()
}

// whole plants a secret that must vanish entirely.
func whole(prefix string, set string, n int) func(r *rand.Rand) (string, string) {
	return func(r *rand.Rand) (string, string) {
		s := prefix + randFrom(r, set, n)
		return s, s
	}
}

// pick is one of options.
func pick(r *rand.Rand, options ...string) string { return options[r.IntN(len(options))] }

var secretGens = []secretGen{
	{ClassAnthropicKey, whole(fake("sk-", "ant-api03-"), alnum+"_-", 60)},
	{ClassOpenAIKey, func(r *rand.Rand) (string, string) {
		s := pick(r, "sk-", fake("sk-", "proj-"), fake("sk-", "svcacct-")) + randFrom(r, alnum, 40)
		return s, s
	}},
	{ClassAWSAccessKey, func(r *rand.Rand) (string, string) {
		s := pick(r, "AKIA", "ASIA", "ABIA", "ACCA") + randFrom(r, upperD, 16)
		return s, s
	}},
	{ClassAWSSecretKey, func(r *rand.Rand) (string, string) {
		v := randFrom(r, b64, 40)
		return pick(r, "aws_secret_access_key = ", "AWS_SECRET_ACCESS_KEY=", `"aws_secret_access_key": "`) + v + pick(r, "", `"`), v
	}},
	{ClassGitHubToken, func(r *rand.Rand) (string, string) {
		if r.IntN(6) == 0 {
			s := fake("github", "_pat_") + randFrom(r, alnum+"_", 70)
			return s, s
		}
		s := "gh" + pick(r, "p", "o", "u", "s", "r") + "_" + randFrom(r, alnum, 36)
		return s, s
	}},
	{ClassSlackToken, func(r *rand.Rand) (string, string) {
		s := fake("xo", "x"+pick(r, "b", "p", "a", "o", "s", "r")+"-") + randFrom(r, "0123456789", 12) + "-" + randFrom(r, alnum, 24)
		return s, s
	}},
	{ClassSlackWebhook, func(r *rand.Rand) (string, string) {
		s := fake("https://hooks.", "slack.com/services/T") + randFrom(r, upperD, 8) + "/B" + randFrom(r, upperD, 8) + "/" + randFrom(r, alnum, 24)
		return s, s
	}},
	{ClassGoogleAPIKey, whole(fake("AI", "za"), alnum+"_-", 35)},
	{ClassStripeKey, func(r *rand.Rand) (string, string) {
		s := pick(r, "sk_live_", "sk_test_", "rk_live_", fake("wh", "sec_")) + randFrom(r, alnum, 32)
		return s, s
	}},
	{ClassNPMToken, whole(fake("np", "m_"), alnum, 36)},
	{ClassJWT, func(r *rand.Rand) (string, string) {
		s := "eyJ" + randFrom(r, alnum+"_-", 30) + ".eyJ" + randFrom(r, alnum+"_-", 40) + "." + randFrom(r, alnum+"_-", 43)
		return s, s
	}},
	{ClassPrivateKey, func(r *rand.Rand) (string, string) {
		kind := pick(r, "", "RSA ", "EC ", "OPENSSH ", "ENCRYPTED ")
		body := randFrom(r, b64, 64) + "\n" + randFrom(r, b64, 64) + "\n" + randFrom(r, b64, 20) + "=="
		end := "\n-----END " + kind + "PRIVATE KEY-----"
		if r.IntN(4) == 0 {
			end = "" // cut short
		}
		return "-----BEGIN " + kind + "PRIVATE KEY-----\n" + body + end, body[:64]
	}},
	{ClassURLCredentials, func(r *rand.Rand) (string, string) {
		pw := randFrom(r, alnum+"!*~", 16)
		return pick(r, "https", "git+ssh", "postgres", "redis") + "://" + pick(r, "ana", "deploy", "x-access-token") + ":" + pw + "@host.example.com/x", pw
	}},
	{ClassAssigned, func(r *rand.Rand) (string, string) {
		v := randFrom(r, alnum+"#%!", 24)
		key := pick(r, "password", "DB_PASSWORD", "secret", "client_secret", "api_key", "ApiKey", "token", "GITHUB_TOKEN", "access_key", "credentials")
		switch r.IntN(3) {
		case 0:
			return key + "=" + v, v
		case 1:
			return key + `: "` + v + `"`, v
		}
		return `'` + key + `': '` + v + `'`, v
	}},
	{ClassBearer, func(r *rand.Rand) (string, string) {
		v := randFrom(r, alnum+"._~+/-", 40)
		return "Authorization: " + pick(r, "Bearer", "bearer", "BEARER") + " " + v, v
	}},
	{ClassBasicAuth, func(r *rand.Rand) (string, string) {
		v := base64.StdEncoding.EncodeToString([]byte(randFrom(r, alnum, 8) + ":" + randFrom(r, alnum, 12)))
		return "Authorization: Basic " + v, strings.TrimRight(v, "=")
	}},
	{ClassEmail, func(r *rand.Rand) (string, string) {
		s := randFrom(r, "abcdefghijklmnopqrstuvwxyz0123456789._+-", 10) + "x@" + pick(r, "163", "mail", "example", "a-b") + "." + pick(r, "com", "org", "co.jp", "io")
		return s, s
	}},
}

// separators stand between a planted secret and the random text around it.
var separators = []string{" ", "\n", "\t", "(", "<", ", ", "; ", "\n\n", "> "}

// FuzzRedact plants a secret of every tested class in random text: it must
// not survive redaction, whatever surrounds it.
func FuzzRedact(f *testing.F) {
	for i := range secretGens {
		f.Add("some text before", "and after it.", uint8(i), []byte("seed"))
	}
	f.Add(ordinaryCode, ordinaryText, uint8(3), []byte{1, 2, 3})
	f.Add("-----BEGIN PRIVATE KEY-----", "", uint8(11), []byte{})
	f.Add("password=", "@example.com", uint8(16), []byte("x"))
	f.Fuzz(func(t *testing.T, before, after string, class uint8, seed []byte) {
		h := fnv.New64a()
		h.Write(seed)
		r := rand.New(rand.NewPCG(h.Sum64(), uint64(class)))
		g := secretGens[int(class)%len(secretGens)]
		secret, core := g.make(r)
		text := before + separators[r.IntN(len(separators))] + secret + separators[r.IntN(len(separators))] + after
		out := NewRedactor("").Text(text)
		if strings.Count(out, core) > strings.Count(before, core)+strings.Count(after, core) {
			t.Fatalf("a %s secret survived:\n in  %q\n out %q", g.class, text, out)
		}
	})
}

// TestRedactGenerators checks that every generator plants a secret of its
// class, caught by that class alone.
func TestRedactGenerators(t *testing.T) {
	for i, g := range secretGens {
		for seed := uint64(0); seed < 50; seed++ {
			secret, core := g.make(rand.New(rand.NewPCG(seed, uint64(i))))
			counts := map[string]int{}
			out := redactWith("", counts, "x "+secret+" y")
			if strings.Contains(out, core) || counts[g.class] == 0 {
				t.Errorf("%s: %q → %q, counts %v", g.class, secret, out, counts)
				break
			}
		}
	}
}
