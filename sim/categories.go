package sim

// Category is one part of a request by what it holds, as Claude Code's
// /context lists a window: what the file does not hold, the system
// prompt, tool definitions, memory, messages, tool calls and results,
// summaries, status. A frame's categories sum to its total.
type Category struct {
	Name   string
	Tokens int
}

// The categories, in the order a frame lists them.
const (
	CategoryUnseen      = "unseen"       // what a recorded session's file does not hold (KindUnseen)
	CategorySystem      = "system"       // the system prompt, and any other system block
	CategoryTools       = "tools"        // tool definitions (KindTools)
	CategoryMemory      = "memory"       // an injected memory file (KindMemory)
	CategoryMessages    = "messages"     // user and assistant text
	CategoryToolCalls   = "tool_calls"   // the model's tool calls
	CategoryToolResults = "tool_results" // what tools returned, whole or cut (excerpts, stubs)
	CategorySummaries   = "summaries"    // summaries and mechanical excerpts of compacted history
	CategoryStatus      = "status"       // status bars the harness injects
)

// Categories is every category name, in the order a frame lists them.
var Categories = []string{CategoryUnseen, CategorySystem, CategoryTools, CategoryMemory, CategoryMessages,
	CategoryToolCalls, CategoryToolResults, CategorySummaries, CategoryStatus}

// CategoryOf is the category a block counts under: by its kind, and for
// plain text by its role (a system block of text is system).
func CategoryOf(b *Block) string { return Categories[categoryIndex(b)] }

// categoryIndex is the index in Categories of b's category.
func categoryIndex(b *Block) int {
	switch b.Kind {
	case KindUnseen:
		return 0
	case KindPrompt:
		return 1
	case KindTools:
		return 2
	case KindMemory:
		return 3
	case KindToolCall:
		return 5
	case KindToolResult, KindExcerpt, KindStub:
		return 6
	case KindSummary:
		return 7
	case KindStatus:
		return 8
	}
	switch b.Role {
	case RoleSystem:
		return 1
	case RoleTool:
		return 6
	}
	return 4
}

// categoriesOf sums blocks by category: the categories that hold tokens,
// in the order of Categories. Their tokens sum to the blocks'.
func categoriesOf(blocks []Block) []Category {
	var sums [9]int
	for i := range blocks {
		sums[categoryIndex(&blocks[i])] += blocks[i].Tokens
	}
	n := 0
	for _, v := range sums {
		if v != 0 {
			n++
		}
	}
	out := make([]Category, 0, n)
	for j, v := range sums {
		if v != 0 {
			out = append(out, Category{Name: Categories[j], Tokens: v})
		}
	}
	return out
}
