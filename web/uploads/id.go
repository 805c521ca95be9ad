package uploads

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
)

// idBytes is the randomness of an id: 160 bits (at least 128 asked).
const idBytes = 20

// idPrefix starts every id; it keeps ids apart from the lesson ids of
// authored and imported lessons, which are words.
const idPrefix = "u-"

// idEncoding spells an id's bytes in lower-case base32: letters and the
// digits 2–7, a valid lesson id (^[a-z0-9][a-z0-9-]{0,63}$) and URL path
// segment as it is.
var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// idLen is the length of an id.
var idLen = len(idPrefix) + idEncoding.EncodedLen(idBytes)

// NewID returns a new random session id: "u-" and 32 characters of
// base32, 160 bits from crypto/rand.
func NewID() (string, error) {
	b := make([]byte, idBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("uploads: random id: %w", err)
	}
	return idPrefix + idEncoding.EncodeToString(b), nil
}

// IsID reports whether s is spelled as a session id (whether or not such
// a session exists).
func IsID(s string) bool {
	if len(s) != idLen || !strings.HasPrefix(s, idPrefix) {
		return false
	}
	for _, c := range s[len(idPrefix):] {
		if (c < 'a' || c > 'z') && (c < '2' || c > '7') {
			return false
		}
	}
	return true
}

// idPattern finds ids in a text (a path, an error message).
var idPattern = regexp.MustCompile(`\bu-[a-z2-7]{32}\b`)

// Mentions reports whether s names a session id (a path of one).
func Mentions(s string) bool { return strings.Contains(s, idPrefix) && idPattern.MatchString(s) }

// Redacted stands for an id in logs.
const Redacted = "u-[session]"

// Redact replaces every session id in s with Redacted.
func Redact(s string) string {
	if !strings.Contains(s, idPrefix) {
		return s
	}
	return idPattern.ReplaceAllLiteralString(s, Redacted)
}

// derive is HMAC-SHA256 keyed by the id, of purpose: values the store
// holds that say nothing of the id.
func derive(id, purpose string) []byte {
	m := hmac.New(sha256.New, []byte(id))
	m.Write([]byte("ctxsim upload " + purpose))
	return m.Sum(nil)
}

// nameOf is what a Remote stores a session under: 128 bits derived from
// its id, in hex.
func nameOf(id string) string { return hex.EncodeToString(derive(id, "name")[:16]) }
