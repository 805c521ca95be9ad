package draw

import "unicode/utf8"

// Font is a font of the drawing's labels (static/app.css sets the same).
type Font uint8

// Fonts of the drawing.
const (
	Sans Font = iota
	SansBold
	Mono
)

// TextWidth estimates how many units text takes in font at size.
func TextWidth(text string, f Font, size float64) float64 {
	em := 0.0
	for _, r := range text {
		em += runeWidth(r, f)
	}
	return em * size * safety
}

// safety is the share added to every estimate: hinting and kerning differ
// between machines.
const safety = 1.04

// monoFloor is the narrowest a monospace ASCII character may be: DejaVu
// Sans Mono's 0.602 em, and a little more for other machines' fonts.
const monoFloor = 0.61

func runeWidth(r rune, f Font) float64 {
	if r >= 0x20 && r < 0x7f {
		w := table(f)[r-0x20]
		if f == Mono {
			w = max(w, monoFloor)
		}
		return w
	}
	switch {
	case r == '·' || r == '‧':
		return 0.4
	case r == '→' || r == '←' || r == '×' || r == '−' || r == '≥' || r == '≤':
		return 0.84
	case wide(r):
		return table(f)[95]
	}
	return 1.0
}

func table(f Font) *[96]float64 {
	switch f {
	case SansBold:
		return &sansBoldWidths
	case Mono:
		return &monoWidths
	}
	return &sansWidths
}

// wide reports whether r is a full-width character (CJK, kana, full-width
// forms).
func wide(r rune) bool {
	return (r >= 0x1100 && r <= 0x115f) || (r >= 0x2e80 && r <= 0xa4cf) || (r >= 0xac00 && r <= 0xd7a3) ||
		(r >= 0xf900 && r <= 0xfaff) || (r >= 0xfe30 && r <= 0xfe4f) || (r >= 0xff00 && r <= 0xff60) || (r >= 0xffe0 && r <= 0xffe6)
}

// Fit returns text, or its beginning and an ellipsis, whichever is the
// longest that fits width in font at size; "" when not even one character
// and the ellipsis fit.
func Fit(text string, f Font, size, width float64) string {
	if TextWidth(text, f, size) <= width {
		return text
	}
	ell := TextWidth("…", f, size)
	used := 0.0
	for i, r := range text {
		w := runeWidth(r, f) * size * safety
		if used+w+ell > width {
			if i == 0 {
				return ""
			}
			return trimEnd(text[:i]) + "…"
		}
		used += w
	}
	return text
}

// trimEnd drops spaces and separators an ellipsis should not follow.
func trimEnd(s string) string {
	for len(s) > 0 {
		r, n := utf8.DecodeLastRuneInString(s)
		if r != ' ' && r != '·' && r != '/' && r != '-' && r != '_' {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}
