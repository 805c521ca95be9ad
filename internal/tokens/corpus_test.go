package tokens

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode/utf8"
)

// The differential corpus: texts generated from a seed, of every kind the
// o200k_base pattern treats differently, alone and cut together.

// textKind writes one kind of text to b until b holds about n bytes.
type textKind struct {
	name  string
	write func(g *textGen, b *strings.Builder, n int)
}

// textKinds is set in init: mixed refers to it.
var textKinds []textKind

func init() {
	textKinds = []textKind{
		{"prose", (*textGen).prose},
		{"code", (*textGen).code},
		{"cjk", (*textGen).cjk},
		{"emoji", (*textGen).emoji},
		{"marks", (*textGen).marks},
		{"numbers", (*textGen).numbers},
		{"spaces", (*textGen).spaces},
		{"runs", (*textGen).runs},
		{"long pieces", (*textGen).longPieces},
		{"contractions", (*textGen).contractions},
		{"runes", (*textGen).randomRunes},
		{"bytes", (*textGen).randomBytes},
		{"mixed", (*textGen).mixed},
	}
}

type textGen struct{ r *rand.Rand }

func newTextGen(seed uint64) *textGen { return &textGen{rand.New(rand.NewPCG(seed, 0x0200))} }

func (g *textGen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }
func (g *textGen) chance(p float64) bool   { return g.r.Float64() < p }
func (g *textGen) runeIn(lo, hi rune) rune { return lo + rune(g.r.IntN(int(hi-lo+1))) }

// corpus returns documents of every kind, about total bytes together,
// each at most maxDoc bytes.
func corpus(seed uint64, total, maxDoc int) []string {
	g := newTextGen(seed)
	var docs []string
	for size := 0; size < total; {
		k := textKinds[len(docs)%len(textKinds)]
		n := 1 + g.r.IntN(maxDoc)
		if g.chance(0.3) {
			n = 1 + g.r.IntN(64)
		}
		var b strings.Builder
		k.write(g, &b, n)
		doc := b.String()
		docs = append(docs, doc)
		size += len(doc)
	}
	return docs
}

var (
	words = strings.Fields(`the a of to and in is was that it for on with as his he I at by
		be this had not are but from or have an they which one you were her all she there would
		their we him been has when who will more no if out so said what up its about into than
		them can only other new some could time these two may then do first any my now such like
		our over man me even most made after also did many before must through back years where
		much your way well down should because each just those people Mr how too little state good
		very make world still own see men work long get here between both life being under never
		day same another know while last might us great old year off come since against go came
		right used take three window context token compaction summary memory session agent model
		request cache prefix threshold replay frame lesson policy naïve café résumé coöperate
		façade jalapeño Zürich São Paulo Ångström Øresund Łódź Dvořák İstanbul straße ΑΘΗΝΑ
		Москва Київ`)
	contractionsList = []string{"'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE",
		"'Re", "'rE", "'VE", "'vE", "'M", "'LL", "'Ll", "'lL", "'D", "'x", "'", "''", "'r", "'l",
		"'sS", "'dd", "’s", "’T", "'ſ", "'\u212a", "'\u0130", "'Σ"}
	punct = []string{".", ",", ";", ":", "!", "?", "...", "—", "–", "-", "(", ")", "[", "]",
		"{", "}", "\"", "'", "“", "”", "‘", "’", "«", "»", "/", "\\", "*", "&", "%", "$", "€",
		"£", "¥", "#", "@", "^", "~", "`", "|", "<", ">", "=", "+", "_", "§", "¶", "•", "·",
		"…", "‰", "†", "‡", "™", "©", "®", "°", "±", "×", "÷", "→", "⇒", "∀", "∑", "√", "∞"}
	identifiers = []string{"ctx", "Counter", "newEncoder", "pieceEnd", "HTTPServer", "parseJSON",
		"__init__", "self", "userID", "XMLHttpRequest", "snake_case_name", "SCREAMING_CASE",
		"i", "j", "err", "_", "x1", "utf8", "ToLower", "getElementById", "std::vector",
		"kubectl", "README", "Σx", "αβγ", "変数", "名前", "값"}
)

func (g *textGen) prose(b *strings.Builder, n int) {
	for b.Len() < n {
		sentence := 3 + g.r.IntN(20)
		for i := range sentence {
			w := g.pick(words)
			switch {
			case i == 0:
				w = title(w)
			case g.chance(0.03):
				w = strings.ToUpper(w)
			case g.chance(0.05):
				w += g.pick(contractionsList)
			}
			if i > 0 {
				b.WriteByte(' ')
			}
			if g.chance(0.04) {
				w = g.pick([]string{"\"", "(", "“", "'"}) + w + g.pick([]string{"\"", ")", "”", "'"})
			}
			b.WriteString(w)
			if g.chance(0.08) {
				b.WriteString(g.pick([]string{",", ";", ":", " —", " -", "'s", "’s"}))
			}
			if g.chance(0.02) {
				fmt.Fprintf(b, " %d", g.r.IntN(100000))
			}
		}
		b.WriteString(g.pick([]string{". ", "! ", "? ", "... ", ".\n", ".\n\n", ".\r\n", ". ", ".  "}))
	}
}

func (g *textGen) ident() string {
	id := g.pick(identifiers)
	if g.chance(0.3) {
		id += title(g.pick(identifiers))
	}
	if g.chance(0.2) {
		id += fmt.Sprint(g.r.IntN(1000))
	}
	return id
}

// title is s with its first rune in upper case.
func title(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return strings.ToUpper(string(r)) + s[n:]
}

func (g *textGen) code(b *strings.Builder, n int) {
	nl := "\n"
	if g.chance(0.2) {
		nl = "\r\n"
	}
	indent := g.pick([]string{"\t", "    ", "  "})
	for b.Len() < n {
		depth := strings.Repeat(indent, g.r.IntN(5))
		id, id2 := g.ident(), g.ident()
		var line string
		switch g.r.IntN(16) {
		case 0:
			line = fmt.Sprintf("func (c *%s) %s(ctx context.Context, n int) (%s, error) {", id, id2, id)
		case 1:
			line = fmt.Sprintf("def %s(self, %s=None, *args, **kwargs):  # %s", id, id2, g.pick(words))
		case 2:
			line = fmt.Sprintf("const %s = await fetch(`/api/${%s}?q=%d`).then(r => r.json());", id, id2, g.r.IntN(1e6))
		case 3:
			line = fmt.Sprintf("fn %s<'a, T: Clone>(x: &'a [T]) -> Option<&'a T> { x.get(%d) }", id, g.r.IntN(99))
		case 4:
			line = fmt.Sprintf("#include <%s.h>\nint %s(void) { return %s->%s[%d] >> 2; }", id, id2, id, id2, g.r.IntN(64))
		case 5:
			line = fmt.Sprintf("SELECT %s, COUNT(*) FROM %s WHERE %s >= '%d-01-01' GROUP BY 1;", id, id2, id, 1990+g.r.IntN(40))
		case 6:
			line = fmt.Sprintf("$ cd ~/src/%s && go test ./... -run '^Test%s$' 2>&1 | tee /tmp/%s.log", id, id2, id)
		case 7:
			line = fmt.Sprintf(`{"%s": [%d, %.3f, true, null], "%s": "%s\n\t\u00e9"}`, id, g.r.IntN(1e5), g.r.Float64()*1e4, id2, g.pick(words))
		case 8:
			line = fmt.Sprintf(`<div class="%s" data-id="%d"><a href="https://example.com/%s/%s#L%d">%s</a></div>`, id, g.r.IntN(999), id, id2, g.r.IntN(500), g.pick(words))
		case 9:
			line = fmt.Sprintf("%s:\n%s  - name: %s\n%s    value: \"%d\"", id, depth, id2, depth, g.r.IntN(50))
		case 10:
			line = fmt.Sprintf("// %s returns the %s of %s; it's O(n log n). TODO(%s): don't panic!", id, g.pick(words), id2, g.pick(words))
		case 11:
			line = fmt.Sprintf("/* %s */ if (%s != nil && len(%s) > 0x%X) { return -1; } else if (a<=b||c&&!d) {}", g.pick(words), id, id2, g.r.IntN(1<<20))
		case 12:
			line = "}" + strings.Repeat(")", g.r.IntN(4)) + strings.Repeat(";", g.r.IntN(2))
		case 13:
			line = fmt.Sprintf("    at %s.%s (/home/user/app/%s.js:%d:%d)", id, id2, id, g.r.IntN(999), g.r.IntN(80))
		case 14:
			line = fmt.Sprintf("%s = re.compile(r'^\\s*(?P<%s>[A-Za-z_]\\w*)\\s*=\\s*(.+?)\\s*$')", id, id2)
		default:
			line = ""
		}
		b.WriteString(depth + line)
		if g.chance(0.05) {
			b.WriteString(strings.Repeat(" ", 1+g.r.IntN(3))) // trailing white space
		}
		b.WriteString(nl)
	}
}

func (g *textGen) cjk(b *strings.Builder, n int) {
	for b.Len() < n {
		for range 1 + g.r.IntN(30) {
			switch g.r.IntN(10) {
			case 0, 1, 2:
				b.WriteRune(g.runeIn(0x3041, 0x3096)) // hiragana
			case 3:
				b.WriteRune(g.runeIn(0x30A1, 0x30FA)) // katakana
			case 4, 5:
				b.WriteRune(g.runeIn(0x4E00, 0x9FFF)) // CJK unified ideographs
			case 6:
				b.WriteRune(g.runeIn(0xAC00, 0xD7A3)) // hangul syllables
			case 7:
				b.WriteString(g.pick([]string{"ー", "々", "〜", "ｶﾀｶﾅ", "ﾞ", "ｰ", "〆", "ゝ"}))
			case 8:
				b.WriteString(g.pick([]string{"東京", "日本語", "中文", "한국어", "大阪府", "北京市", "서울", "テスト", "トークン", "上下文"}))
			default:
				b.WriteString(g.pick([]string{"Claude", "API", "GPT-4o", "2026年", "１２３", "３月", "v1.2", "OK"}))
			}
		}
		b.WriteString(g.pick([]string{"。", "、", "，", "！", "？", "「", "」", "『", "』", "（", "）", "：", "\u3000", " ", "\n", "…", "・", "。\n", "．"}))
	}
}

var emojiList = []string{"😀", "👍", "👍🏽", "👨‍👩‍👧‍👦", "👩🏾‍💻", "🏳️‍🌈", "🇯🇵", "🇺🇸🇬🇧", "❤️", "✅", "⚠️",
	"1️⃣", "#️⃣", "🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F", "🧑‍🤝‍🧑", "🫠",
	"👁️‍🗨️", "☺︎", "™️", "🔥🔥🔥", "🤷‍♀️", "\u200d", "\ufe0f", "🙂\u200b", "📦", "🚀"}

func (g *textGen) emoji(b *strings.Builder, n int) {
	for b.Len() < n {
		switch g.r.IntN(4) {
		case 0:
			b.WriteString(g.pick(words))
		case 1:
			b.WriteString(g.pick(punct))
		}
		b.WriteString(g.pick(emojiList))
		if g.chance(0.4) {
			b.WriteString(g.pick([]string{" ", "", "\n", "  ", "!"}))
		}
	}
}

var markList = []rune{0x0300, 0x0301, 0x0308, 0x0327, 0x0336, 0x20DD, 0x20E3, 0x093E, 0x0940,
	0x094D, 0x064E, 0x0651, 0x05B8, 0x0E31, 0x0E48, 0x1AB0, 0x1DC0, 0xFE0F, 0xFE20, 0x0488, 0x1F3FB}

func (g *textGen) marks(b *strings.Builder, n int) {
	bases := []string{"a", "e", "A", "E", "ß", "Σ", "σ", "ǅ", "ʰ", "x", "1", " ", "\n", ".", "'",
		"क", "न", "ب", "ש", "ก", "ア", "가", "", "", "ǈ", "ᾈ", "Ⅻ", "_", "👍"}
	for b.Len() < n {
		b.WriteString(g.pick(bases))
		for range g.r.IntN(4) {
			b.WriteRune(markList[g.r.IntN(len(markList))])
		}
		if g.chance(0.2) {
			b.WriteString(g.pick([]string{"नमस्ते", "हिन्दी", "مَرْحَبًا", "שָׁלוֹם", "สวัสดี", "Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇", "ñ", "é", "Å"}))
		}
		if g.chance(0.3) {
			b.WriteString(g.pick([]string{" ", "", "\n", "'s", "'LL", "1"}))
		}
	}
}

func (g *textGen) numbers(b *strings.Builder, n int) {
	for b.Len() < n {
		switch g.r.IntN(10) {
		case 0:
			b.WriteString(strings.Repeat("9", 1+g.r.IntN(40)))
		case 1:
			fmt.Fprintf(b, "%.6f", g.r.NormFloat64()*1e6)
		case 2:
			fmt.Fprintf(b, "%d,%03d,%03d", g.r.IntN(999), g.r.IntN(999), g.r.IntN(999))
		case 3:
			fmt.Fprintf(b, "0x%x 0b%b 1e%d", g.r.Uint32(), g.r.IntN(256), g.r.IntN(40)-20)
		case 4:
			b.WriteString(g.pick([]string{"Ⅻ", "ⅻ", "²", "³", "½", "¾", "①", "٣٤٥", "१२३", "１２３４", "〇", "𝟙𝟚", "߁", "๓"}))
		case 5:
			fmt.Fprintf(b, "2026-%02d-%02dT%02d:%02d:%02d.%03dZ", 1+g.r.IntN(12), 1+g.r.IntN(28), g.r.IntN(24), g.r.IntN(60), g.r.IntN(60), g.r.IntN(1000))
		case 6:
			fmt.Fprintf(b, "v%d.%d.%d-rc%d", g.r.IntN(3), g.r.IntN(30), g.r.IntN(100), g.r.IntN(9))
		case 7:
			fmt.Fprintf(b, "%d%s", g.r.IntN(1e9), g.pick(words))
		case 8:
			fmt.Fprintf(b, "$%d.%02d (%d%%)", g.r.IntN(1e5), g.r.IntN(100), g.r.IntN(101))
		default:
			fmt.Fprintf(b, "+1 (%03d) %03d-%04d", g.r.IntN(1000), g.r.IntN(1000), g.r.IntN(10000))
		}
		b.WriteString(g.pick([]string{" ", "\n", ", ", "", "\t", "x"}))
	}
}

// spaceRunes are the runes \s matches (unicode.IsSpace) and some that look
// like white space but are not (zero-width space, BOM, Mongolian vowel
// separator, Braille blank).
var spaceRunes = []string{" ", " ", " ", "\t", "\n", "\n", "\r\n", "\r", "\v", "\f", "\u0085",
	"\u00a0", "\u1680", "\u2000", "\u2003", "\u2009", "\u200a", "\u2028", "\u2029", "\u202f",
	"\u205f", "\u3000", "\u200b", "\ufeff", "\u180e", "\u2800"}

func (g *textGen) spaces(b *strings.Builder, n int) {
	for b.Len() < n {
		for range g.r.IntN(12) {
			b.WriteString(spaceRunes[g.r.IntN(len(spaceRunes))])
		}
		if g.chance(0.15) {
			b.WriteString(strings.Repeat(g.pick(spaceRunes[:12]), g.r.IntN(300)))
		}
		b.WriteString(g.pick([]string{"word", "Word", "1", ".", "/", "(", "'s", "é", "日本", "👍", "\u0301", "", "x\n", "-->"}))
	}
}

// runs writes long runs of one rune or one short string: tiktoken's merge
// is quadratic in them.
func (g *textGen) runs(b *strings.Builder, n int) {
	units := []string{"a", "A", "z", "e", "aA", "ab", "é", "ß", "=", "-", "_", "*", "#", ".",
		"!", "/", "\\", "~", "0", "7", " ", "\t", "\n", "\r\n", "あ", "漢", "가", "👍", "\u0301",
		"ー", "…", "─", "█", "\u00a0", "\u3000", "'", "<", ">", "|", "+-", "=-", "ab1", "Aa"}
	for b.Len() < n {
		u := g.pick(units)
		l := 1 + g.r.IntN(max(1, min(n-b.Len(), 3000)/len(u)))
		b.WriteString(strings.Repeat(u, l))
		if g.chance(0.5) {
			b.WriteString(g.pick([]string{" ", "\n", "x", ".", "1", "'s", "é", ""}))
		}
	}
}

// longPieces writes pieces of 40 to 440 runes of random runes of one
// class (lower-case letters of a script, CJK, punctuation), where the
// merge takes its heap path, one a line.
func (g *textGen) longPieces(b *strings.Builder, n int) {
	alphabets := [][2]rune{{'a', 'z'}, {0xe0, 0xff}, {0x430, 0x44f}, {0x3b1, 0x3c9}, {0x3041, 0x3096},
		{0x4e00, 0x4fff}, {0xac00, 0xac40}, {0x0e01, 0x0e3a}, {0x0905, 0x094d}, {'!', '/'}, {':', '@'}}
	for b.Len() < n {
		a := alphabets[g.r.IntN(len(alphabets))]
		if g.chance(0.3) { // a smaller alphabet repeats pairs more
			a[1] = a[0] + rune(1+g.r.IntN(int(min(a[1]-a[0], 6))))
		}
		for size := 40 + g.r.IntN(400); size > 0; size-- {
			b.WriteRune(g.runeIn(a[0], a[1]))
		}
		b.WriteByte('\n')
	}
}

func (g *textGen) contractions(b *strings.Builder, n int) {
	for b.Len() < n {
		before := g.pick([]string{"it", "IT", "We", "they", "I", "", " ", "1", ".", "é", "日本",
			"ǅ", "ʰ", "x\u0301", "don", "DON", "Can", "'", "O"})
		b.WriteString(before + g.pick(contractionsList))
		b.WriteString(g.pick([]string{"", " ", "s", "S", "re", "'s", ".", "\n", "e", "ll", "1"}))
	}
}

// randomRunes writes runes from every plane, assigned or not, surrogates
// excepted (not valid UTF-8), with ASCII between them.
func (g *textGen) randomRunes(b *strings.Builder, n int) {
	for b.Len() < n {
		var r rune
		switch g.r.IntN(6) {
		case 0:
			r = g.runeIn(0, 0x7f)
		case 1:
			r = g.runeIn(0x80, 0x7ff)
		case 2:
			r = g.runeIn(0x800, 0xffff)
		case 3:
			r = g.runeIn(0x10000, 0x1ffff)
		case 4:
			r = g.runeIn(0x20000, utf8.MaxRune)
		default:
			r = rune(g.pick([]string{"a", " ", "A", "1", "\n", "'"})[0])
		}
		if !utf8.ValidRune(r) {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
}

// randomBytes writes random bytes made valid UTF-8 (each invalid sequence
// replaced by U+FFFD).
func (g *textGen) randomBytes(b *strings.Builder, n int) {
	raw := make([]byte, max(1, n-b.Len()))
	for i := range raw {
		raw[i] = byte(g.r.Uint32())
		if g.chance(0.3) {
			raw[i] &= 0x7f
		}
	}
	b.WriteString(strings.ToValidUTF8(string(raw), "\uFFFD"))
}

// mixed cuts short pieces of every other kind together, with the special
// token markers between them.
func (g *textGen) mixed(b *strings.Builder, n int) {
	for b.Len() < n {
		k := textKinds[g.r.IntN(len(textKinds)-1)]
		k.write(g, b, b.Len()+1+g.r.IntN(40))
		if g.chance(0.1) {
			b.WriteString(g.pick([]string{"<|endoftext|>", "<|endofprompt|>", "<|endoftext|", "<|im_start|>", "<|endoftext|><|endoftext|>"}))
		}
	}
}
