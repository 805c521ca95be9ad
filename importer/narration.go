package importer

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"ctxsim/transcript"
)

// The narration of an imported session is generated: a section per step
// that names its blocks and fills every size from the frame, the
// mechanisms' sections (compaction, compressor, refusal) written once for
// any session, and about sections that say where the session comes from.
// Nothing in it is a claim about the session the frames do not show.

// narration writes the narration file of lang.
func narration(lang string, s *transcript.Session, t *trace, info aboutInfo) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	for _, a := range aboutSections(lang, s, info) {
		w("@@ %s\n%s\n\n", a[0], a[1])
	}
	for _, st := range t.steps {
		if st.Type != "" {
			continue
		}
		w("@@ %s\n%s\n\n", st.Step, stepText(lang, t.kinds[st.Step]))
	}
	for _, m := range mechanismSections[lang] {
		w("@@ %s\n%s\n\n", m[0], m[1])
	}
	return b.String()
}

// stepText narrates one step from the blocks it adds.
func stepText(lang string, k stepKind) string {
	ja := lang == "ja"
	tr := func(en, jaText string) string {
		if ja {
			return jaText
		}
		return en
	}
	holds := tr("The window holds {total} of {window}.", "窓は {window} のうち {total} です。")
	switch {
	case k.carried != "":
		return fmt.Sprintf(tr("# The session starts from a recorded summary\n\nThe file begins after a compaction: this summary ({size:%[1]s}) is what the session went on from. ",
			"# セッションは記録された要約から始まります\n\nファイルは圧縮の後から始まっています。この要約（{size:%[1]s}）が、セッションが引き継いだ内容です。"), k.carried) + holds
	case len(k.responses) == 0:
		return fmt.Sprintf(tr("# The user writes: “{label:%[1]s}”\n\nThe message adds {size:%[1]s}. ", "# ユーザーの発言：「{label:%[1]s}」\n\nこのメッセージで {size:%[1]s} 増えます。"), k.user) + holds
	case k.user == "" && len(k.responses) == 1:
		return responseText(tr, k.responses[0]) + "\n\n" + holds
	}
	// A group: the user's message, if any, and several responses.
	head := tr("# The agent goes on working", "# エージェントが作業を続けます")
	if k.user != "" {
		head = fmt.Sprintf(tr("# The user writes: “{label:%[1]s}”", "# ユーザーの発言：「{label:%[1]s}」"), k.user)
	}
	var items []string
	more := false
	for _, r := range k.responses {
		for _, id := range blocksOf(r) {
			if len(items) == groupItems {
				more = true
				break
			}
			// A refused request can leave a later response out of this
			// frame under some policy: name only what it holds or held.
			item := fmt.Sprintf("- {?seen:%[1]s}{label:%[1]s} ({size:%[1]s})", id)
			if call, ok := strings.CutPrefix(id, "call-"); ok {
				// A call and its result come in together, with no model
				// call between them.
				item = fmt.Sprintf(tr("- {?seen:result-%[1]s}{label:call-%[1]s}: the call {size:call-%[1]s}, its result {size:result-%[1]s}",
					"- {?seen:result-%[1]s}{label:call-%[1]s}：呼び出し {size:call-%[1]s}、結果 {size:result-%[1]s}"), call)
			}
			items = append(items, item)
		}
	}
	body := tr("The agent answers, one model call after another:", "エージェントはモデル呼び出しを重ねて応えます。")
	if bs := blocksOf(k.responses[0]); len(bs) > 0 {
		body = "{?seen:" + bs[0] + "}" + body
	}
	body += "\n\n" + strings.Join(items, "\n")
	if more {
		body += "\n- …\n\n" + tr("The list of changes shows every block this step adds.", "このステップで増えたブロックはすべて変更の一覧にあります。")
	}
	return head + "\n\n" + body + "\n\n" + tr("New since the previous frame: {new-blocks} blocks, {new-tokens}. ", "前のフレームから増えたもの：{new-blocks} ブロック、{new-tokens}。") + holds
}

// groupItems is how many blocks a grouped step's narration names.
const groupItems = 6

// blocksOf lists the blocks a response adds, by the ids narration names:
// its text, each call (the result is named with it).
func blocksOf(r response) []string {
	var out []string
	if r.text != "" {
		out = append(out, r.text)
	}
	for _, c := range r.calls {
		out = append(out, "call-"+c)
	}
	return out
}

// responseText narrates one model response.
func responseText(tr func(string, string) string, r response) string {
	if len(r.calls) == 0 {
		return fmt.Sprintf(tr("# The assistant answers: “{label:%[1]s}”\n\nThe answer adds {size:%[1]s}.", "# アシスタントの返答：「{label:%[1]s}」\n\nこの返答で {size:%[1]s} 増えます。"), r.text)
	}
	var names, lines []string
	for _, id := range r.calls {
		names = append(names, fmt.Sprintf("{label:call-%s}", id))
		lines = append(lines, fmt.Sprintf(tr("- {label:call-%[1]s}: the call {size:call-%[1]s}, its result {size:result-%[1]s}", "- {label:call-%[1]s}：呼び出し {size:call-%[1]s}、結果 {size:result-%[1]s}"), id))
	}
	head := tr("# The assistant calls ", "# アシスタントがツールを呼び出します：") + strings.Join(names, tr(", ", "、"))
	text := ""
	if r.text != "" {
		text = fmt.Sprintf(tr("Its text first: “{label:%[1]s}” ({size:%[1]s}).\n\n", "その前の文：「{label:%[1]s}」（{size:%[1]s}）。\n\n"), r.text)
	}
	return head + "\n\n" + text + strings.Join(lines, "\n")
}

// aboutInfo is what the about sections state of the import.
type aboutInfo struct {
	window    int
	imported  time.Time
	calls     int
	redacted  bool
	generated int // summaries a summarizer wrote at import
}

// aboutSections say what the lesson is: the session, where it comes from
// and how it was recorded, how sizes are counted, what the replay leaves
// out. Every figure they quote from the file (counts, dates) is listed in
// a figures section, as the other lessons list what they quote from their
// sources; the frames show every other number.
func aboutSections(lang string, s *transcript.Session, info aboutInfo) [][2]string {
	ja := lang == "ja"
	var quoted []string
	q := func(format string, args ...any) string {
		v := fmt.Sprintf(format, args...)
		quoted = append(quoted, v)
		return v
	}
	model := s.Model
	if model == "" {
		model = "?"
	}
	dates := "?"
	if !s.Started.IsZero() {
		dates = q("%s – %s UTC", s.Started.UTC().Format("2006-01-02 15:04"), s.Ended.UTC().Format("2006-01-02 15:04"))
	}
	imported := q("%s", info.imported.UTC().Format("2006-01-02"))
	red := redactionText(lang, s.Redactions, info.redacted, q)
	usage := false
	for _, m := range s.Messages {
		usage = usage || m.Usage != nil
	}
	var out [][2]string
	if ja {
		out = [][2]string{
			{"about:intro", fmt.Sprintf("# 取り込んだセッション：%s\n\n実際のエージェントのセッションを、記録されたとおりに再生します。ファイル `%s`（%s 形式）から、%s、%s、%sを取り込みました。既定の設定では、セッションで起きたとおりの位置で、記録された要約を使って圧縮します。設定を変えると、同じトレースを別の方針（しきい値による圧縮、圧縮なし、階層型圧縮、小さい窓）で再生します。",
				titleOf(s), s.File, s.Format, q("メッセージ %d 件", len(s.Messages)), q("ツール呼び出し %d 件", info.calls), q("圧縮 %d 回", len(s.Compactions)))},
			{"about:recording", fmt.Sprintf("# 記録について\n\n- モデル：%s\n- 期間：%s\n- 取り込み：%s、`ctxsim import` による\n- %s", model, dates, imported, red)},
			{"about:tokens-note", "# 大きさの数え方\n\nブロックの大きさは、各ブロックの文を o200k_base で数えた token 数です。プロバイダーは独自のトークナイザーで数え、ファイルにないもの（ツール定義など）も入力に含めます。"},
			{"about:simplifications", simplifications("ja", s, info)},
		}
		if usage {
			out[2][1] += "記録に使用量がある呼び出しでは、窓の横のパネルにプロバイダーの数と、この再生での数、その差を示します。"
		}
	} else {
		out = [][2]string{
			{"about:intro", fmt.Sprintf("# An imported session: %s\n\nA real agent session, replayed as it was recorded: %s, %s and %s, from the file `%s` (%s). The default policy compacts where the session did, with the summaries it recorded; the other policies replay the same trace another way (compaction at a threshold, no compaction, the tiered compressor, a smaller window).",
				titleOf(s), q("%d messages", len(s.Messages)), q("%d tool calls", info.calls), q("%d compactions", len(s.Compactions)), s.File, s.Format)},
			{"about:recording", fmt.Sprintf("# Where it comes from\n\n- Model: %s\n- Recorded: %s\n- Imported: %s, with `ctxsim import`\n- %s", model, dates, imported, red)},
			{"about:tokens-note", "# How sizes are counted\n\nEvery block's size is the o200k_base count of its text. The provider counted with its own tokenizer, and its input also holds what the file does not (the tool definitions, for one)."},
			{"about:simplifications", simplifications("en", s, info)},
		}
		if usage {
			out[2][1] += " Where the file records usage, the panel beside the window shows the provider's figure for each model call, this replay's count and the difference."
		}
	}
	head := "# Figures quoted from the session file"
	if ja {
		head = "# セッションファイルから引用した数"
	}
	var list strings.Builder
	for _, f := range quoted {
		fmt.Fprintf(&list, "\n- `%s`", f)
	}
	return append(out, [2]string{"figures", head + "\n" + list.String()})
}

// simplifications lists what the replay leaves out or changes, as it
// holds for this session.
func simplifications(lang string, s *transcript.Session, info aboutInfo) string {
	ja := lang == "ja"
	var items []string
	add := func(en, jaText string) {
		if ja {
			items = append(items, jaText)
		} else {
			items = append(items, en)
		}
	}
	add("Parallel tool calls are laid out as call + result pairs, one after another (the totals are the same).",
		"並列のツール呼び出しは、呼び出しと結果の組にして順に並べています（合計は変わりません）。")
	add("Thinking blocks are not counted: the provider drops them from later requests.",
		"thinking ブロックは数えていません。以降のリクエストではプロバイダーが外すためです。")
	if strings.TrimSpace(s.System) == "" {
		add("The session file holds neither the system prompt nor the tool definitions: a short block written by ctxsim stands in for them, counted at its own size.",
			"セッションファイルにはシステムプロンプトもツール定義もありません。ctxsim が書いた短いブロックが代わりに入り、その大きさで数えています。")
	} else {
		add("The tool definitions are not counted: the window holds the recorded system prompt, not the tools sent with it.",
			"ツール定義は数えていません。窓には記録されたシステムプロンプトが入り、一緒に送られたツール定義は入っていません。")
	}
	if len(s.Compactions) > 0 {
		add("A recorded compaction keeps no message after the summary, as the session did.",
			"記録どおりの圧縮では、要約の後ろに元のメッセージを残しません。")
	}
	if info.generated > 0 {
		add(fmt.Sprintf("Ranges no recorded summary covers have %d summaries a model wrote at import (each says which model, and when); any range left over is compacted to a labelled mechanical excerpt.", info.generated),
			fmt.Sprintf("記録された要約のない範囲には、取り込み時にモデルが書いた要約 %d 件を使います（それぞれにモデルと日付を示します）。残る範囲は、機械的な抜粋であることを明示して圧縮します。", info.generated))
	} else {
		add("A range no recorded summary covers is compacted to a labelled mechanical excerpt: no model wrote it.",
			"記録された要約のない範囲は、機械的な抜粋であることを明示して圧縮します。モデルが書いた文ではありません。")
	}
	head := "# Simplifications\n\n"
	if ja {
		head = "# 単純化\n\n"
	}
	return head + "- " + strings.Join(items, "\n- ")
}

func titleOf(s *transcript.Session) string {
	if s.Title != "" {
		return s.Title
	}
	if s.ID != "" {
		return s.ID
	}
	return s.File
}

// redactionText says what import redacted, kind by kind.
func redactionText(lang string, counts map[string]int, on bool, quote func(string, ...any) string) string {
	if !on {
		if lang == "ja" {
			return "秘密情報の置き換え：しない（`-no-redact`）"
		}
		return "Redaction: off (`-no-redact`)"
	}
	var kinds []string
	for k := range counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var parts []string
	for _, k := range kinds {
		parts = append(parts, quote("%s × %d", k, counts[k]))
	}
	list := strings.Join(parts, ", ")
	if lang == "ja" {
		if list == "" {
			list = "該当なし"
		}
		return "秘密情報の置き換え（API キー、Bearer トークン、メールアドレス、ホームディレクトリ）：" + list
	}
	if list == "" {
		list = "none found"
	}
	return "Redacted (API keys, bearer tokens, e-mail addresses, the home directory): " + list
}

// mechanismSections narrate the frames the mechanisms make, for any
// session: every figure is a placeholder.
var mechanismSections = map[string][][2]string{
	"en": {
		{"@step", "# The window holds {total} of {window}."},
		{"@crossed", "# The request would hold {total}, over the {pct} line ({threshold}): the harness compacts first."},
		{"@selected", "# {count} messages ({range}) are bracketed for the summary.\n\n{?policy:compaction=recorded}This is where the recorded session compacted: everything since the last summary goes.\n\n{?!policy:compaction=recorded}The header stays and the {kept} most recent messages are kept word for word."},
		{"@summary", "# A {summary} summary comes back for the bracketed range.\n\n{?policy:compaction=recorded}It is the summary the session itself continued with, as the file records it. Read it beside the window, and the panel of what it kept.\n\n{?!policy:compaction=recorded}Its text and where it comes from are beside the window, with what of the range it kept."},
		{"summary@mechanical", "# No summary exists for this range: the simulator cuts a {summary} mechanical excerpt.\n\nThe session compacted elsewhere, so no recorded summary covers this range. The excerpt carries earlier summaries over and cuts every other message to its first line; of a long excerpt it keeps only the first and last lines. No model wrote it."},
		{"@replaced", "# {count} messages became one summary: the window went from {before} to {after}."},
		{"replaced@mechanical", "# {count} messages became a mechanical excerpt: the window went from {before} to {after}."},
		{"@overflow", "# The request is refused: {total} is over the {window} window."},
		{"@refused", "# The provider refuses the request."},
		{"@pass", "# The compressor rewrote {rewrites} old results and saved {pass-saved}."},
		{"@decision", "# The model is called with {total} of {window} in the window."},
	},
	"ja": {
		{"@step", "# 窓は {window} のうち {total} です。"},
		{"@crossed", "# リクエストは {total} になり、{pct} の線（{threshold}）を超えるので、ハーネスは先に圧縮します。"},
		{"@selected", "# {count} 個のメッセージ（{range}）が要約の範囲として囲まれます。\n\n{?policy:compaction=recorded}記録されたセッションが圧縮した位置です。前回の要約以降のすべてが対象になります。\n\n{?!policy:compaction=recorded}ヘッダーは残り、最近の {kept} 個のメッセージはそのまま残ります。"},
		{"@summary", "# 囲まれた範囲の代わりに {summary} の要約が返ってきます。\n\n{?policy:compaction=recorded}セッション自身がこの後に使った、ファイルに記録された要約です。窓の横で本文と、残ったものの一覧を確かめてください。\n\n{?!policy:compaction=recorded}本文と出どころ、範囲のうち残ったものは窓の横にあります。"},
		{"summary@mechanical", "# この範囲の要約はないので、シミュレーターが {summary} の機械的な抜粋を作ります。\n\nセッションは別の位置で圧縮したため、この範囲に対応する記録された要約はありません。抜粋は前の要約をそのまま引き継ぎ、他のメッセージは先頭の行だけにします。長い抜粋は先頭と末尾の行だけを残します。モデルが書いた文ではありません。"},
		{"@replaced", "# {count} 個のメッセージがひとつの要約になり、窓は {before} から {after} になりました。"},
		{"replaced@mechanical", "# {count} 個のメッセージが機械的な抜粋になり、窓は {before} から {after} になりました。"},
		{"@overflow", "# リクエストは拒否されます。{total} は窓の {window} を超えています。"},
		{"@refused", "# プロバイダーがリクエストを拒否します。"},
		{"@pass", "# 圧縮器は古い結果を {rewrites} 個書き換え、{pass-saved} を減らしました。"},
		{"@decision", "# 窓に {window} のうち {total} がある状態でモデルが呼ばれます。"},
	},
}
