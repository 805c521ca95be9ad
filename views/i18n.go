package views

import "ctxsim/views/catalog"

// UI is the page's words in one language, from the message catalog.
type UI = catalog.Messages

// KeyHelp is one line of the keyboard map.
type KeyHelp struct{ Keys, Does string }

// helpKeys are the lines of the keyboard map, in order (help.<id>.keys,
// help.<id>.does in the catalog).
var helpKeys = []string{"step", "ends", "modes", "compare", "present", "autoplay", "fullscreen", "help", "escape"}

// keyHelp is the keyboard map in ui's language.
func keyHelp(ui UI) []KeyHelp {
	out := make([]KeyHelp, len(helpKeys))
	for i, k := range helpKeys {
		out[i] = KeyHelp{Keys: ui.T("help." + k + ".keys"), Does: ui.T("help." + k + ".does")}
	}
	return out
}
