package web

import (
	"fmt"
	"strings"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/views"
)

// statusExtras adds the status-bar lesson's cache reading, cost model and,
// on the decision frame, the recorded outcomes.
func (s *Server) statusExtras(in pageInput, p *views.LessonPage) {
	l, st := in.lesson, in.state
	f := in.frames[st.Step-1]
	sx := statusWordsFor(st.Lang)
	for i, b := range f.Blocks {
		switch {
		case b.Kind == sim.KindStatus:
			p.Window.Blocks[i].Badges = append(p.Window.Blocks[i].Badges, views.Badge{Text: sx.byCode, Tone: "warn"})
		case b.ToolUseID != "":
			p.Window.Blocks[i].Badges = append(p.Window.Blocks[i].Badges, pairBadge(b.ToolUseID))
		}
	}
	if c := f.Cache; c != nil {
		p.Window.Legend = fmt.Sprintf(sx.legend, exact(c.ReusedTokens), exact(c.RecomputedTokens))
		p.Panels = append(p.Panels, cachePanel(l.Lesson, f, sx, st.Lang))
	}
	cm := s.costModel(l, st.Policy)
	cp := costPanel(cm, sx, sectionBody(l, st.Lang, "cost-why"))
	if st.Policy.Clock {
		cp.Note = sx.clockNote + " " + cp.Note
	}
	p.Panels = append(p.Panels, cp)
	if f.Kind == sim.FrameDecision {
		p.Panels = append([]views.Panel{{ID: "outcomes-panel", Title: sx.outcomes, Tone: "ok",
			Body: sectionBody(l, st.Lang, "outcomes")}}, p.Panels...)
	}
}

// costModel returns the cost model of l under p's counter, clock and alpha,
// from the start-up cache when p is a preset.
func (s *Server) costModel(l *scenarios.Lesson, p sim.Policy) sim.CostModel {
	// The model compares replace and append itself, and it prices the status
	// strategy alone: with a clock in the system prompt both recompute
	// everything anyway, a cost common to both.
	p.Status, p.Clock = "off", false
	if cm, ok := s.costs[runKey{l.ID, p}]; ok {
		return cm
	}
	return sim.StatusCostModel(l.Lesson, p, s.tok)
}

func cachePanel(l *sim.Lesson, f sim.Frame, sx statusWords, lang string) views.Panel {
	c := f.Cache
	reason := sx.reasons[c.Reason]
	first := "—"
	for _, b := range f.Blocks {
		if b.ID == c.FirstChanged {
			first = b.Label.In(lang)
			if first == "" {
				first = b.ID
			}
		}
	}
	return views.Panel{
		ID: "cache-panel", Title: sx.cacheTitle, Tone: "info",
		Rows: []views.PanelRow{
			{Label: sx.reused, Value: fmt.Sprintf("%s · %d %s", exact(c.ReusedTokens), c.ReusedBlocks, sx.blocks), Emph: true},
			{Label: sx.recomputed, Value: exact(c.RecomputedTokens)},
			{Label: sx.firstChanged, Value: first, Note: reason},
		},
		Note: sx.latency,
	}
}

func costPanel(cm sim.CostModel, sx statusWords, why string) views.Panel {
	f1 := func(v float64) string { return fmt.Sprintf("%.0f", v) }
	verdict := sx.replaceWins
	if cm.AppendWins {
		verdict = sx.appendWins
	}
	measured := sx.replaceWins
	if cm.MeasuredAppendOK {
		measured = sx.appendWins
	}
	return views.Panel{
		ID: "cost-panel", Title: sx.costTitle, Tone: "warn",
		Rows: []views.PanelRow{
			{Label: "S · R · N · α", Value: fmt.Sprintf("%.0f · %.0f · %d · %.2f", cm.S, cm.R, cm.N, cm.Alpha)},
			{Label: "C_replace ≈ (N−1)(1−α)R", Value: f1(cm.CReplace), Note: sx.measured + " " + f1(cm.MeasuredReplace)},
			{Label: "C_append ≈ αSN(N−1)/2", Value: f1(cm.CAppend), Note: sx.measured + " " + f1(cm.MeasuredAppend)},
			{Label: "αSN/2 < (1−α)R ?", Value: fmt.Sprintf("%.0f < %.0f", cm.Alpha*cm.S*float64(cm.N)/2, (1-cm.Alpha)*cm.R), Note: sx.formula + ": " + verdict + " · " + sx.measured + ": " + measured, Emph: true},
		},
		Body: why,
		Note: sx.costNote,
	}
}

// sectionBody returns a lesson section's rendered body, or "".
func sectionBody(l *scenarios.Lesson, lang, key string) string {
	sec, _ := l.Section(lang, key)
	return sec.Body
}

type statusWords struct {
	byCode, legend, cacheTitle, reused, recomputed, firstChanged, blocks      string
	costTitle, measured, formula, appendWins, replaceWins, costNote, outcomes string
	clockNote, latency                                                        string
	reasons                                                                   map[string]string
}

var statusWordsEN = statusWords{
	byCode: "by code", legend: "cache: %s reused · %s recomputed",
	cacheTitle: "Prompt cache for this request", reused: "reused prefix", recomputed: "recomputed suffix",
	firstChanged: "first changed block", blocks: "blocks",
	costTitle: "Replace or append? (tokens at input price)", measured: "measured", formula: "formula",
	appendWins: "append is cheaper", replaceWins: "replace is cheaper",
	costNote:  "Formula values use S, R, N measured on this trajectory; “measured” sums what the simulated frames actually recompute (replace) or re-read from cache (append). Costs common to both are left out.",
	outcomes:  "What models did at this call",
	clockNote: "Computed with the clock off: with a clock in the system prompt, replace and append both recompute everything at every call.",
	latency:   "Why it matters: one “Current time” line in a support agent's system prompt (100k conversations a day) took first-token latency from 0.5 s to 3–5 s and nearly doubled the cost. See “About this lesson”.",
	reasons: map[string]string{
		sim.CacheCold:           "first request: nothing is cached yet",
		sim.CacheAppend:         "only new messages at the tail: the whole previous request is reused",
		sim.CacheStatusReplaced: "the previous status message was removed, so everything after its position is recomputed",
		sim.CacheSystemChanged:  "the system prompt changed (a clock in it), so nothing can be reused",
		sim.CacheRewritten:      "an earlier message was rewritten, so the cache ends there",
	},
}

var statusWordsJA = statusWords{
	byCode: "コードが生成", legend: "キャッシュ：再利用 %s · 再計算 %s",
	cacheTitle: "この要求のプロンプトキャッシュ", reused: "再利用したプレフィックス", recomputed: "再計算したサフィックス",
	firstChanged: "最初に変わったブロック", blocks: "ブロック",
	costTitle: "置換か追加か（通常入力単価での token）", measured: "実測", formula: "式",
	appendWins: "追加が安い", replaceWins: "置換が安い",
	costNote:  "式の値は、この軌跡で測った S、R、N を使います。「実測」は、シミュレーションのフレームが実際に再計算した量（置換）とキャッシュから読み直した量（追加）の合計です。両方式に共通するコストは除いています。",
	outcomes:  "この呼び出しでモデルがしたこと",
	clockNote: "時刻をオフにして計算しています。システムプロンプトに時刻があると、置換でも追加でも毎回すべてを再計算するからです。",
	latency:   "なぜ大事か：1 日 10 万回の対話をこなすサポート Agent のシステムプロンプトに「Current time」を 1 行入れただけで、最初の token の遅延が 0.5 秒から 3〜5 秒になり、費用はほぼ倍になりました。詳しくは「このレッスンについて」へ。",
	reasons: map[string]string{
		sim.CacheCold:           "最初の要求：まだ何もキャッシュされていない",
		sim.CacheAppend:         "末尾に新しいメッセージが増えただけ：前の要求全体を再利用",
		sim.CacheStatusReplaced: "前のステータスを削除したので、その位置から後ろを再計算",
		sim.CacheSystemChanged:  "システムプロンプトが変わった（時刻入り）ので、何も再利用できない",
		sim.CacheRewritten:      "前のメッセージを書き換えたので、キャッシュはそこで終わる",
	},
}

func statusWordsFor(lang string) statusWords {
	if lang == "ja" {
		return statusWordsJA
	}
	return statusWordsEN
}

// pairBadge links a tool call and its result: "#01" for toolu_01.
func pairBadge(id string) views.Badge {
	short := id
	if i := strings.LastIndexAny(id, "_-"); i >= 0 && i+1 < len(id) {
		short = id[i+1:]
	}
	return views.Badge{Text: "#" + short, Tone: "info"}
}
