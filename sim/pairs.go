package sim

import "fmt"

// Pairs is the pairs mechanism: whether the harness keeps every tool call
// with its result when it cuts or strips history (kept), or, the bug a
// lesson can show, drops a result and leaves its call behind (broken). The
// provider's check is the harness's own and always runs: a request with a
// call whose result does not follow it, or a result without its call, is
// refused, and the error names a message index.
type Pairs struct{}

// Name is "pairs".
func (Pairs) Name() string { return "pairs" }

// Params is pairs kept/broken.
func (Pairs) Params() []Param {
	return []Param{{Name: "pairs", Choices: []string{"kept", "broken"}, Default: "kept"}}
}

func (Pairs) start(h *harness) hooks { return &pairsRun{broken: h.p.Get("pairs") == "broken"} }

type pairsRun struct {
	base
	broken bool
}

func (r *pairsRun) frame(_ *harness, _ *Frame, fc frameCtx) {
	if r.broken && !fc.own {
		*fc.tags = append(*fc.tags, "pairs-broken")
	}
}

// pairsBroken reports whether the policy has the harness drop results
// without their calls.
func (h *harness) pairsBroken() bool { return h.p.Get("pairs") == "broken" }

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
