package sim

// ProviderUsage shows, on a recorded session, what the provider counted
// for each model call beside what this replay counts: the replay sizes
// blocks with o200k_base, the provider with its own tokenizer (and adds
// what the file does not hold: tool definitions, its own system prompt).
type ProviderUsage struct{}

// Name is "usage".
func (ProviderUsage) Name() string { return "usage" }

// Params: none.
func (ProviderUsage) Params() []Param { return nil }

func (ProviderUsage) start(*harness) hooks { return &usageRun{} }

type usageRun struct{ base }

// frame puts a panel on each frame that adds a recorded model call's
// message: the provider's input for that call, and the request as this
// replay counts it (the blocks before the message).
func (usageRun) frame(h *harness, f *Frame, fc frameCtx) {
	before := 0
	for i := range f.req.count() {
		b := f.req.view(i)
		if u := b.Usage; u != nil && f.req.flagsAt(i)&flagNew != 0 && b.Role == RoleAssistant {
			provider := u.InputTotal()
			f.Figures = append(f.Figures, tokens("provider-input", provider), tokens("replay-input", before))
			rows := []Row{
				{Key: "provider", Values: []Figure{tokens("tokens", provider)}, Emph: true,
					Note: &Msg{Key: "panel.usage.provider.parts", Args: []Figure{tokens("input", u.Input), tokens("read", u.CacheRead), tokens("write", u.CacheCreation)}}},
				{Key: "replay", Values: []Figure{tokens("tokens", before)}},
			}
			if before > 0 {
				rows = append(rows, Row{Key: "difference", Values: []Figure{signedTokens("tokens", provider-before), percent("pct", (provider-before)*100/before)}})
			}
			f.Panels = append(f.Panels, Panel{ID: "usage", Tone: "info", Rows: rows})
			b = f.req.edit(i)
			b.Attrs = append(b.Attrs, Attr{"provider_input", provider})
			return
		}
		before += b.Tokens
	}
}
