package web

import (
	"fmt"
	"strconv"
	"strings"
)

// kTokens formats a token count with one decimal and k: 47900 -> "47.9k".
// Whole thousands of a limit read without the decimal only via kLimit.
func kTokens(n int) string {
	return fmt.Sprintf("%.1fk", float64(n)/1000)
}

// kLimit formats a window size: 50000 -> "50k", 128500 -> "128.5k".
func kLimit(n int) string {
	if n%1000 == 0 {
		return strconv.Itoa(n/1000) + "k"
	}
	return kTokens(n)
}

// exact formats an integer with thousands separators: 47900 -> "47,900".
func exact(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
