package views

// UI holds the interface labels of one language. Lesson text lives with the
// lessons; these are the words of the page itself.
type UI struct {
	Lang         string
	Product      string
	Tagline      string
	Lessons      string
	Language     string
	OtherLang    string
	Compaction   string
	Memory       string
	Threshold    string
	Recording    string
	On, Off      string
	Window       string
	Meter        string
	ThresholdOf  string
	First        string
	Prev         string
	Next         string
	Last         string
	StepOf       string // "Step %d of %d"
	Keys         string
	MemoryFile   string
	MemoryOff    string
	Changed      string
	Snapshot     string
	CopyTitle    string
	NoCopy       string
	Summarizer   string
	Provenance   string
	TraceSize    string
	ExcerptCount string
	ExcerptShort string // format: excerpt token count on a block
	TokensNote   string
	Close        string
	Inspect      string
	About        string
	Source       string
	Simulated    string
	ScaleNote    string
	Roles        map[string]string
	Kinds        map[string]string
	ErrorTitle   map[int]string
	Allowed      string
	Param        string
	BackToList   string
	Empty        string
	Refused      string
	Start        string
	WhatChanged  string
}

var uiEN = UI{
	Lang: "en", Product: "ctxsim", Tagline: "See an agent's context window fill, compact and remember.",
	Lessons: "Lessons", Language: "Language", OtherLang: "日本語",
	Compaction: "Compaction", Memory: "Memory", Threshold: "Threshold", Recording: "Recording",
	On: "on", Off: "off", Window: "Context window", Meter: "tokens in the window",
	ThresholdOf: "threshold",
	First:       "First", Prev: "Previous", Next: "Next", Last: "Last", StepOf: "Step %d of %d",
	Keys: "← → keys step", MemoryFile: "file on disk", MemoryOff: "Memory is off: there is no MEMORY.md store in this mode.",
	Changed: "changed on disk", Snapshot: "snapshot from session start", CopyTitle: "Injected copy (in the window)",
	NoCopy:     "No copy in the window.",
	Summarizer: "Summarizer output", Provenance: "Where this text comes from",
	TraceSize: "trace size", ExcerptCount: "o200k_base count of the text shown", ExcerptShort: "text shown: %s tokens (o200k_base)",
	TokensNote: "Block sizes are fixed values from the lesson's trace; the text shown is an excerpt, so its own token count is smaller.",
	Close:      "Close", Inspect: "Open block", About: "About this lesson", Source: "Source",
	Simulated:  "Simulated: sizes come from a fixed trace; nothing here calls a model.",
	ScaleNote:  "Heights are to scale; blocks under the minimum height are drawn taller, and the window box stretches by the same amount so the free space stays exact.",
	Roles:      map[string]string{"system": "system", "user": "user", "assistant": "assistant", "tool": "tool"},
	Kinds:      map[string]string{"prompt": "system prompt", "memory": "memory copy", "text": "message", "tool_call": "tool call", "tool_result": "tool result", "summary": "summary"},
	ErrorTitle: map[int]string{400: "Bad request", 404: "Not found", 500: "Something went wrong"},
	Allowed:    "Allowed", Param: "Parameter", BackToList: "All lessons",
	Empty: "Empty: between sessions nothing is in the window.", Refused: "Refused",
	Start: "Start", WhatChanged: "What changed",
}

var uiJA = UI{
	Lang: "ja", Product: "ctxsim", Tagline: "エージェントのコンテキストウィンドウが埋まり、圧縮され、記憶する様子を見る。",
	Lessons: "レッスン", Language: "言語", OtherLang: "English",
	Compaction: "圧縮", Memory: "メモリ", Threshold: "しきい値", Recording: "録画",
	On: "オン", Off: "オフ", Window: "コンテキストウィンドウ", Meter: "窓の token 数",
	ThresholdOf: "しきい値",
	First:       "最初", Prev: "前へ", Next: "次へ", Last: "最後", StepOf: "ステップ %d / %d",
	Keys: "← → キーで移動", MemoryFile: "ディスク上のファイル", MemoryOff: "メモリはオフです。このモードには MEMORY.md の保存先がありません。",
	Changed: "ディスク上で変更", Snapshot: "セッション開始時のスナップショット", CopyTitle: "注入コピー（窓の中）",
	NoCopy:     "窓にコピーはありません。",
	Summarizer: "要約器の出力", Provenance: "この文の出所",
	TraceSize: "トレース上のサイズ", ExcerptCount: "表示中の文の o200k_base token 数", ExcerptShort: "表示中の文：%s token（o200k_base）",
	TokensNote: "ブロックのサイズは教材トレースの固定値です。表示しているのは抜粋なので、その token 数は小さくなります。",
	Close:      "閉じる", Inspect: "ブロックを開く", About: "このレッスンについて", Source: "出典",
	Simulated:  "シミュレーションです。サイズは固定トレースの値で、モデルは呼び出しません。",
	ScaleNote:  "高さは縮尺どおりです。最小の高さより小さいブロックは高く描き、その分だけ窓の枠も伸ばすので、空き領域は正確です。",
	Roles:      map[string]string{"system": "system", "user": "user", "assistant": "assistant", "tool": "tool"},
	Kinds:      map[string]string{"prompt": "システムプロンプト", "memory": "メモリのコピー", "text": "メッセージ", "tool_call": "ツール呼び出し", "tool_result": "ツール結果", "summary": "要約"},
	ErrorTitle: map[int]string{400: "リクエストが不正です", 404: "見つかりません", 500: "問題が発生しました"},
	Allowed:    "使える値", Param: "パラメーター", BackToList: "レッスン一覧",
	Empty: "空です。セッションの間、窓には何もありません。", Refused: "拒否",
	Start: "始める", WhatChanged: "変化",
}

// UIFor returns the labels of lang, English when lang is unknown.
func UIFor(lang string) UI {
	if lang == "ja" {
		return uiJA
	}
	return uiEN
}
