package views

// UI holds the interface labels of one language. Lesson text lives with the
// lessons; these are the words of the page itself.
type UI struct {
	Lang                                                         string
	Product                                                      string
	Tagline                                                      string
	Lessons                                                      string
	OtherLang                                                    string
	Window                                                       string
	Meter                                                        string
	MeterRequest                                                 string
	First                                                        string
	Prev                                                         string
	Next                                                         string
	Last                                                         string
	StepOf                                                       string // "Step %d of %d"
	Keys                                                         string
	MemoryFile                                                   string
	MemoryOff                                                    string
	Changed                                                      string
	Snapshot                                                     string
	CopyTitle                                                    string
	NoCopy                                                       string
	Summarizer                                                   string
	Provenance                                                   string
	TraceSize                                                    string
	ExcerptCount                                                 string
	ExcerptShort                                                 string // format: excerpt token count on a block
	TokensNote                                                   string
	TokensNoteCounted                                            string
	Close                                                        string
	About                                                        string
	Source                                                       string
	Simulated                                                    string
	ScaleNote                                                    string
	Roles                                                        map[string]string
	Kinds                                                        map[string]string
	ErrorTitle                                                   map[int]string
	Allowed                                                      string
	Param                                                        string
	BackToList                                                   string
	Empty                                                        string
	Start                                                        string
	WhatChanged                                                  string
	BlocksTable, Role, Kind, Name, State                         string
	TokensCol, SidePanel                                         string
	StateNew, StateSelected, StateCached, StateFirstChanged      string
	Present, Notes, Compare, ExitPresent, ExitCompare, KeysTitle string
	Autoplay, Pause, Speed, PausedDecisive, NextUp, Difference   string
	KeyHelp                                                      []KeyHelp
	DefaultMode                                                  string
	ChangePolicies                                               string
	Handout, BackToLesson, Print                                 string
	ModesLabel                                                   string
	Params                                                       map[string]string // parameter labels
	Values                                                       map[string]string // value labels, by "param=value" or "value"
}

// KeyHelp is one line of the keyboard map.
type KeyHelp struct{ Keys, Does string }

// ParamLabel is the label of a policy parameter's control.
func (ui UI) ParamLabel(name string) string {
	if s, ok := ui.Params[name]; ok {
		return s
	}
	return name
}

// ValueLabel is the label of one value of a parameter.
func (ui UI) ValueLabel(param, v string) string {
	if s, ok := ui.Values[param+"="+v]; ok {
		return s
	}
	if s, ok := ui.Values[v]; ok {
		return s
	}
	switch param {
	case "threshold", "alpha":
		return v + "%"
	}
	return v
}

var uiEN = UI{
	Lang: "en", Product: "ctxsim", Tagline: "See an agent's context window fill, compact and remember.",
	Lessons: "Lessons", OtherLang: "日本語",
	Window: "Context window", Meter: "tokens in the window", MeterRequest: "tokens in this request",
	First: "First", Prev: "Previous", Next: "Next", Last: "Last", StepOf: "Step %d of %d",
	Keys: "← → keys step", MemoryFile: "file on disk", MemoryOff: "Memory is off: there is no MEMORY.md store in this mode.",
	Changed: "changed on disk", Snapshot: "snapshot from session start", CopyTitle: "Injected copy (in the window)",
	NoCopy:     "No copy in the window.",
	Summarizer: "Summarizer output", Provenance: "Where this text comes from",
	TraceSize: "trace size", ExcerptCount: "o200k_base count of the text shown", ExcerptShort: "text shown: %s tokens (o200k_base)",
	TokensNote:        "Block sizes are fixed values from the lesson's trace; the text shown is an excerpt, so its own token count is smaller.",
	TokensNoteCounted: "In this lesson a block's size is the o200k_base token count of the very text shown, counted when the lesson loads.",
	Close:             "Close", About: "About this lesson", Source: "Source",
	Simulated:  "Simulated: sizes come from a fixed trace; nothing here calls a model.",
	ScaleNote:  "Heights are to scale; blocks under the minimum height are drawn taller, and the window box stretches by the same amount so the free space stays exact.",
	Roles:      map[string]string{"system": "system", "user": "user", "assistant": "assistant", "tool": "tool"},
	Kinds:      map[string]string{"prompt": "system prompt", "memory": "memory copy", "text": "message", "tool_call": "tool call", "tool_result": "tool result", "summary": "summary"},
	ErrorTitle: map[int]string{400: "Bad request", 404: "Not found", 500: "Something went wrong"},
	Allowed:    "Allowed", Param: "Parameter", BackToList: "All lessons",
	Empty: "Empty: between sessions nothing is in the window.", Start: "Start", WhatChanged: "What changed",
	BlocksTable: "The window as a table", Role: "Role", Kind: "Kind", Name: "Name", State: "State",
	TokensCol: "Tokens", SidePanel: "Side panels",
	StateNew: "new", StateSelected: "in the compaction range", StateCached: "cached", StateFirstChanged: "first recomputed",
	Present: "Present", Notes: "Speaker notes", Compare: "Compare", ExitPresent: "Exit presenter view", ExitCompare: "Single view",
	KeysTitle: "Keys", Autoplay: "Autoplay", Pause: "Pause", Speed: "Speed",
	PausedDecisive: "Paused on a decisive step: press space or Autoplay to go on.", NextUp: "Next", Difference: "Difference", DefaultMode: "default", ChangePolicies: "Change both policies", Handout: "Handout", ModesLabel: "Policy", BackToLesson: "Back to the lesson", Print: "Print",
	KeyHelp: []KeyHelp{{"→ ← or space", "step (space resumes autoplay when it paused)"}, {"Home End", "first, last step"},
		{"1 … 9", "switch mode"}, {"c", "compare with the default mode / back"}, {"p", "presenter view / back"},
		{"a", "autoplay on / off"}, {"f", "full screen"}, {"?", "show these keys"}},
	Params: map[string]string{
		"compaction": "Compaction", "memory": "Memory", "threshold": "Threshold", "rec": "Recording",
		"status": "Status bar", "counter": "Counter", "clock": "Clock in system prompt", "alpha": "Cached price α",
		"strategy": "Strategy", "floor": "Floor", "summarizer": "Summarizer", "budget": "Budget counts", "pairs": "Pairs",
	},
	Values: map[string]string{"on": "on", "off": "off", "replace": "replace", "append": "append",
		"tiered": "tiered", "age": "age", "ok": "ok", "broken": "broken", "attempts": "attempts", "successes": "successes", "kept": "kept"},
}

var uiJA = UI{
	Lang: "ja", Product: "ctxsim", Tagline: "エージェントのコンテキストウィンドウが埋まり、圧縮され、記憶する様子を見る。",
	Lessons: "レッスン", OtherLang: "English",
	Window: "コンテキストウィンドウ", Meter: "窓の token 数", MeterRequest: "この要求の token 数",
	First: "最初", Prev: "前へ", Next: "次へ", Last: "最後", StepOf: "ステップ %d / %d",
	Keys: "← → キーで移動", MemoryFile: "ディスク上のファイル", MemoryOff: "メモリはオフです。このモードには MEMORY.md の保存先がありません。",
	Changed: "ディスク上で変更", Snapshot: "セッション開始時のスナップショット", CopyTitle: "注入コピー（窓の中）",
	NoCopy:     "窓にコピーはありません。",
	Summarizer: "要約器の出力", Provenance: "この文の出所",
	TraceSize: "トレース上のサイズ", ExcerptCount: "表示中の文の o200k_base token 数", ExcerptShort: "表示中の文：%s token（o200k_base）",
	TokensNote:        "ブロックのサイズは教材トレースの固定値です。表示しているのは抜粋なので、その token 数は小さくなります。",
	TokensNoteCounted: "このレッスンでは、ブロックのサイズは表示している文そのものの o200k_base token 数で、レッスンの読み込み時に数えています。",
	Close:             "閉じる", About: "このレッスンについて", Source: "出典",
	Simulated:  "シミュレーションです。サイズは固定トレースの値で、モデルは呼び出しません。",
	ScaleNote:  "高さは縮尺どおりです。最小の高さより小さいブロックは高く描き、その分だけ窓の枠も伸ばすので、空き領域は正確です。",
	Roles:      map[string]string{"system": "system", "user": "user", "assistant": "assistant", "tool": "tool"},
	Kinds:      map[string]string{"prompt": "システムプロンプト", "memory": "メモリのコピー", "text": "メッセージ", "tool_call": "ツール呼び出し", "tool_result": "ツール結果", "summary": "要約"},
	ErrorTitle: map[int]string{400: "リクエストが不正です", 404: "見つかりません", 500: "問題が発生しました"},
	Allowed:    "使える値", Param: "パラメーター", BackToList: "レッスン一覧",
	Empty: "空です。セッションの間、窓には何もありません。", Start: "始める", WhatChanged: "変化",
	BlocksTable: "窓を表で見る", Role: "ロール", Kind: "種類", Name: "名前", State: "状態",
	TokensCol: "token 数", SidePanel: "サイドパネル",
	StateNew: "新規", StateSelected: "圧縮範囲", StateCached: "キャッシュ済み", StateFirstChanged: "ここから再計算",
	Present: "発表", Notes: "発表者ノート", Compare: "比較", ExitPresent: "発表ビューを終了", ExitCompare: "単独表示",
	KeysTitle: "キー操作", Autoplay: "自動再生", Pause: "一時停止", Speed: "速度",
	PausedDecisive: "重要なステップで一時停止しました。スペースか自動再生で続けます。", NextUp: "次", Difference: "違い", DefaultMode: "既定", ChangePolicies: "両方の方針を変える", Handout: "配布資料", ModesLabel: "方針", BackToLesson: "レッスンに戻る", Print: "印刷",
	KeyHelp: []KeyHelp{{"→ ← またはスペース", "ステップ移動（自動再生が止まったときはスペースで再開）"}, {"Home End", "最初、最後のステップ"},
		{"1 … 9", "モード切り替え"}, {"c", "既定モードと比較／戻る"}, {"p", "発表ビュー／戻る"},
		{"a", "自動再生のオン／オフ"}, {"f", "全画面"}, {"?", "キー一覧を表示"}},
	Params: map[string]string{
		"compaction": "圧縮", "memory": "メモリ", "threshold": "しきい値", "rec": "録画",
		"status": "ステータスバー", "counter": "カウンター", "clock": "system に時刻", "alpha": "α キャッシュ単価",
		"strategy": "方式", "floor": "下限", "summarizer": "要約器", "budget": "予算の数え方", "pairs": "ペア",
	},
	Values: map[string]string{"on": "オン", "off": "オフ", "replace": "置換", "append": "追加",
		"tiered": "階層", "age": "経過", "ok": "正常", "broken": "故障", "attempts": "試行", "successes": "成功", "kept": "維持",
		"pairs=broken": "破損"},
}

// UIFor returns the labels of lang, English when lang is unknown.
func UIFor(lang string) UI {
	if lang == "ja" {
		return uiJA
	}
	return uiEN
}
