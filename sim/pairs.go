package sim

import (
	"fmt"
	"slices"
)

// Pairs is the pairs mechanism: whether the harness keeps every tool call
// with its result when it cuts or strips history (kept), or, the bug a
// lesson can show, cuts through a pair (broken). Every mechanism that cuts
// history cuts by its rules (this file): a compaction's kept tail
// (keptFrom), a sliding window (slideSpan), a compressor's Tier 1 (breaksPairs).
// Under broken, the tail and the window are cut at their message counts,
// leaving a result without its call, and Tier 1 deletes a result and
// leaves its call. The provider's check is the harness's own and always
// runs: a request with a call whose result does not follow it, or a
// result without its call, is refused, and the error names a message
// index.
type Pairs struct{}

// Name is "pairs".
func (Pairs) Name() string { return "pairs" }

// Params is pairs kept/broken.
func (Pairs) Params() []Param {
	return []Param{{Name: "pairs", Choices: []string{"kept", "broken"}, Default: "kept"}}
}

func (Pairs) start(h *harness) hooks { return &pairsRun{broken: h.p.Get("pairs") == "broken"} }

// Cuts reports whether m cuts history, so that the pairs mechanism's
// broken mode has something to break: a compaction, a sliding window, a
// compressor that strips old results.
func Cuts(m Mechanism) bool {
	switch m := m.(type) {
	case Compaction, Tiered:
		return true
	case History:
		return slices.Contains(m.Choices, HistorySliding)
	}
	return false
}

type pairsRun struct {
	base
	broken bool
}

func (r *pairsRun) frame(_ *harness, _ *Frame, fc frameCtx) {
	if r.broken && !fc.own {
		*fc.tags = append(*fc.tags, "pairs-broken")
	}
}

// breaksPairs reports whether the lesson's pairs mechanism is broken: the
// harness then cuts history through tool pairs.
func (h *harness) breaksPairs() bool {
	for _, m := range h.mechs {
		if r, ok := m.(*pairsRun); ok {
			return r.broken
		}
	}
	return false
}

// keptFrom is where a kept tail of msgs from n starts: moved back so that
// no tool result is kept without its call, unless pairs are broken.
func (h *harness) keptFrom(msgs []Block, n int) int {
	if h.breaksPairs() {
		return n
	}
	for n > 0 && n < len(msgs) {
		j := callIndex(msgs, n)
		if j < 0 || j >= n {
			break
		}
		n = j
	}
	return n
}

// callIndex is the index of the call of msgs[i] when it is a tool result,
// else -1.
func callIndex(msgs []Block, i int) int {
	if msgs[i].Role != RoleTool {
		return -1
	}
	for j := i - 1; j >= 0; j-- {
		if msgs[j].Kind == KindToolCall && msgs[j].ToolUseID == msgs[i].ToolUseID {
			return j
		}
	}
	return -1
}

// slideSpan is how many messages leave msgs at i when the oldest slides
// out of a window: a call with its result, unless pairs are broken.
func (h *harness) slideSpan(msgs []Block, i int) int {
	if !h.breaksPairs() && msgs[i].Kind == KindToolCall && i+1 < len(msgs) && msgs[i+1].Role == RoleTool && msgs[i+1].ToolUseID == msgs[i].ToolUseID {
		return 2
	}
	return 1
}

// Provider errors of a request whose tool pairs are broken; the message
// index and the tool_use id are filled in.
const (
	ErrToolUseWithoutResult = "invalid_request_error: messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
	ErrResultWithoutToolUse = "invalid_request_error: messages.%d: unexpected `tool_use_id` found in `tool_result` blocks: %s. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
)

// checkPairs is the provider's check of a request's tool pairs: every call
// is followed by its result, every result follows its call. msgs is the
// conversation after the header, which holds before messages.
func checkPairs(msgs []Block, before int) *refusal {
	for i, b := range msgs {
		switch {
		case b.Kind == KindToolCall:
			if i+1 < len(msgs) && msgs[i+1].Role == RoleTool && msgs[i+1].ToolUseID == b.ToolUseID {
				continue
			}
			return pairRefusal(msgs, i, before, ErrToolUseWithoutResult)
		case b.Role == RoleTool:
			if i > 0 && msgs[i-1].Kind == KindToolCall && msgs[i-1].ToolUseID == b.ToolUseID {
				continue
			}
			return pairRefusal(msgs, i, before, ErrResultWithoutToolUse)
		}
	}
	return nil
}

func pairRefusal(blocks []Block, i, before int, format string) *refusal {
	idx := before + messageIndex(blocks, i)
	msg := fmt.Sprintf(format, idx, blocks[i].ToolUseID)
	return &refusal{kind: FrameRefused, base: "refused", err: msg,
		event: Event{Type: EventRefused, Reason: msg, Index: &idx, Block: blocks[i].ID}}
}
