package web

// phrases are the "what changed" sentences, per language. Figures are
// filled in by changesOf; the words are translated, not generated.
type phrases struct {
	added, memWrite, memOff, crossed, selected, summary, mechanical             string
	replaced, heavyTail, overflow, sessionEnd, sessionStart                     string
	found, missing, skipped, authored, memoryCopy, noMemory                     string
	kicker, session, between                                                    string
	authoredCounted, statusIn, statusOut, toolCall, decision                    string
	cacheCold, cacheAppend, cacheReplaced, cacheSystem, cacheRewrite            string
	holding, compactedHere, refusedHere, crossedHere, summaryHere, nowAt, delta string
}

var phrasesEN = phrases{
	added:           "+%s %s",
	memWrite:        "MEMORY.md on disk + “%s” · the window stays at %s",
	memOff:          "memory off: “%s” is not saved anywhere",
	crossed:         "%s > %s (%s): compact before the next model call",
	selected:        "%d blocks selected · %s",
	summary:         "summary %s · recording %d of 5",
	mechanical:      "no recording for this range: mechanical excerpt, %s",
	replaced:        "%d blocks → summary %s · %s → %s",
	heavyTail:       "still above the line (%s > %s): the kept tail is heavy",
	overflow:        "refused: %s · %s > %s",
	sessionEnd:      "session ended: %s of messages dropped",
	sessionStart:    "session %d starts: %s",
	found:           "looked for %s: in the window",
	missing:         "looked for %s: not in the window",
	skipped:         "compaction skipped: %s",
	authored:        "Text written for this lesson; its size (%s) is the source trace's.",
	memoryCopy:      "%s · %d lines, copied at session start",
	noMemory:        "no memory copy",
	kicker:          "Step %d of %d",
	session:         "session %d",
	between:         "between sessions",
	authoredCounted: "Text written for this lesson; its size is its o200k_base token count.",
	statusIn:        "+%s status bar (user role, at the tail)",
	statusOut:       "previous status removed (replace)",
	toolCall:        "+%s %s call and result",
	decision:        "the decision: where the arms differ",
	cacheCold:       "first request: nothing cached, %s computed",
	cacheAppend:     "cache: %s reused, %s new at the tail",
	cacheReplaced:   "cache: %s reused; the old status was removed, so %s from there on is recomputed",
	cacheSystem:     "cache: the system prompt changed, so all %s is recomputed",
	cacheRewrite:    "cache: %s reused; a rewritten message invalidates %s after it",
	holding:         "no change here: still %s",
	compactedHere:   "compacted here: %s → %s",
	refusedHere:     "refused: %s at %s",
	crossedHere:     "threshold crossed: %s > %s",
	summaryHere:     "summary %s ready",
	nowAt:           "%s (%s)",
	delta:           "right − left = %s tokens (%s vs %s)",
}

var phrasesJA = phrases{
	added:           "+%s %s",
	memWrite:        "ディスク上の MEMORY.md に「%s」を追加 · 窓は %s のまま",
	memOff:          "メモリはオフ：「%s」はどこにも保存されない",
	crossed:         "%s > %s（%s）：次のモデル呼び出しの前に圧縮",
	selected:        "%d ブロックを選択 · %s",
	summary:         "要約 %s · 録画 %d / 5",
	mechanical:      "この範囲の録画なし：機械的な抜粋 %s",
	replaced:        "%d ブロック → 要約 %s · %s → %s",
	heavyTail:       "まだ線の上（%s > %s）：残した末尾が重い",
	overflow:        "拒否：%s · %s > %s",
	sessionEnd:      "セッション終了：%s のメッセージを破棄",
	sessionStart:    "セッション %d 開始：%s",
	found:           "%sを探す：窓の中にある",
	missing:         "%sを探す：窓の中にない",
	skipped:         "圧縮をスキップ：%s",
	authored:        "この教材のために書いた文です。サイズ（%s）は原文のトレースの値です。",
	memoryCopy:      "%s · %d 行、セッション開始時にコピー",
	noMemory:        "メモリのコピーなし",
	kicker:          "ステップ %d / %d",
	session:         "セッション %d",
	between:         "セッションの間",
	authoredCounted: "この教材のために書いた文です。サイズは o200k_base の token 数です。",
	statusIn:        "+%s ステータスバー（user ロール、末尾）",
	statusOut:       "前のステータスを削除（置換）",
	toolCall:        "+%s %s の呼び出しと結果",
	decision:        "判断：両群が分かれるところ",
	cacheCold:       "最初の要求：キャッシュなし、%s を計算",
	cacheAppend:     "キャッシュ：%s を再利用、末尾の新規 %s",
	cacheReplaced:   "キャッシュ：%s を再利用。古いステータスを削除したので、そこから先の %s を再計算",
	cacheSystem:     "キャッシュ：システムプロンプトが変わったので %s すべてを再計算",
	cacheRewrite:    "キャッシュ：%s を再利用。書き換えた位置より後の %s を無効化",
	holding:         "ここでは変化なし：%s のまま",
	compactedHere:   "ここで圧縮：%s → %s",
	refusedHere:     "拒否：%s（%s）",
	crossedHere:     "しきい値超過：%s > %s",
	summaryHere:     "要約 %s ができた",
	nowAt:           "%s（%s）",
	delta:           "右 − 左 = %s token（%s 対 %s）",
}

func phrasesFor(lang string) phrases {
	if lang == "ja" {
		return phrasesJA
	}
	return phrasesEN
}
