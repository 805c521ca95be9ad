package page

import (
	"fmt"
	"strconv"
	"strings"

	"ctxsim/sim"
)

// kTokens formats a token count with one decimal and k: 47900 -> "47.9k";
// counts under 100 stay exact.
// Whole thousands of a limit read without the decimal only via kLimit.
func kTokens(n int) string {
	if n > 0 && n < 100 {
		return strconv.Itoa(n) // a 23-token stub should not read "0.0k"
	}
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

// smallWindow is the window below which figures are shown exactly: a
// 54-token status bar should not read "0.1k".
const smallWindow = 10000

// sizeOf formats a token count for lesson l: "47.9k", or "812" in a small window.
func sizeOf(l *sim.Lesson, n int) string {
	if l.Window < smallWindow {
		return exact(n)
	}
	return kTokens(n)
}

// limitOf formats a limit (the window) for lesson l: "50k", or "2,000" in
// a small window.
func limitOf(l *sim.Lesson, n int) string {
	if l.Window < smallWindow {
		return exact(n)
	}
	return kLimit(n)
}

func itoa(n int) string { return strconv.Itoa(n) }
