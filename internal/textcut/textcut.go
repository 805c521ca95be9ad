// Package textcut cuts text to a number of bytes without splitting a UTF-8
// character.
package textcut

import "unicode/utf8"

// Prefix is the longest prefix of s of at most n bytes that ends on a
// character boundary: s itself when it is no longer than n.
func Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Mark is Prefix(s, n) followed by mark when s was cut, s otherwise.
func Mark(s string, n int, mark string) string {
	if len(s) <= n {
		return s
	}
	return Prefix(s, n) + mark
}
