package page

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"ctxsim/scenarios"
	"ctxsim/views"
)

// A block's text is not in the page: its sheet links to it, and the page
// script loads it when the sheet opens. A long session's window holds
// hundreds of kilobytes of text at a step (780 KB at the compaction of
// real-compaction), and a visitor opens a few blocks. The text's address is
// content-addressed (a hash of the text), so a block present at 300 steps
// is one document, kept by browsers and by a static copy once.

// TextKeeper keeps the texts the pages link to, for the endpoint that
// serves them. The server keeps an uploaded session's texts with the
// session, the others in a bounded cache; a static copy keeps every one.
type TextKeeper interface {
	// KeepText keeps text under url, a TextURL of lesson l.
	KeepText(l *scenarios.Lesson, url, text string)
}

// TextSuffix ends the path of every block text.
const TextSuffix = ".txt"

// textHashBytes is how much of a text's SHA-256 its address holds: 64
// bits tell apart the texts of one lesson in one language (the space an
// address lives in; an upload's texts live under its own unguessable id),
// and every sheet of a page carries one, twice: 128 bits cost a step page
// of real-compaction 1.2 KB brotli, of tiered-compaction 0.5 KB.
const textHashBytes = 8

// TextURL is the path of text, a block text of lesson in lang:
// /{lang}/{lesson}/text/{hash}.txt, hash the first textHashBytes of its
// SHA-256 in hex.
func TextURL(lang, lesson, text string) string {
	sum := sha256.Sum256([]byte(text))
	return "/" + lang + "/" + lesson + "/text/" + hex.EncodeToString(sum[:textHashBytes]) + TextSuffix
}

// IsTextName reports whether name is the last segment of a TextURL.
func IsTextName(name string) bool {
	h, ok := strings.CutSuffix(name, TextSuffix)
	if !ok || len(h) != 2*textHashBytes {
		return false
	}
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// TextBOM opens every block text served: a browser that opens the file
// from a host that names no charset reads it as UTF-8 (the page script's
// fetch drops it).
const TextBOM = "\uFEFF"

// linkTexts gives every sheet of p the address of its block's text and
// hands the texts to the keeper.
func (b *Builder) linkTexts(l *scenarios.Lesson, ui views.UI, blocks []views.BlockView) {
	for i := range blocks {
		bv := &blocks[i]
		if bv.Content == "" {
			continue
		}
		bv.TextURL = TextURL(ui.Lang, l.ID, bv.Content)
		bv.TextLink = ui.F("ui.sheet-text", map[string]string{"chars": exact(utf8.RuneCountInString(bv.Content))})
		if b.texts != nil {
			b.texts.KeepText(l, bv.TextURL, bv.Content)
		}
	}
}
