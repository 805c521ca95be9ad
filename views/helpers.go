package views

import (
	"strconv"
	"strings"
)

// htmxConfig keeps htmx from injecting a <style> element (the CSP forbids
// inline styles) and from scrolling on boosted navigation.
const htmxConfig = `{"includeIndicatorStyles":false,"scrollIntoViewOnBoost":false,"historyCacheSize":20}`

func hClass(u int) string { return "h-" + strconv.Itoa(u) }
func yClass(u int) string { return "y-" + strconv.Itoa(u) }
func fitClass(u int) string {
	if u < 1000 {
		u = 1000
	}
	return "fit-" + strconv.Itoa(u)
}
func itoa(i int) string { return strconv.Itoa(i) }

func errorTitle(ui UI, status int) string {
	if k := "ui.error." + strconv.Itoa(status); ui.Has(k) {
		return ui.T(k)
	}
	return ui.T("ui.error.500")
}

// blockState lists a block's states for the text alternative.
func blockState(ui UI, b BlockView) string {
	var parts []string
	if b.New {
		parts = append(parts, ui.T("ui.state-new"))
	}
	if b.Selected {
		parts = append(parts, ui.T("ui.state-selected"))
	}
	if b.Touched {
		parts = append(parts, ui.T("ui.state-touched"))
	}
	if b.Cached {
		parts = append(parts, ui.T("ui.state-cached"))
	}
	if b.FirstChanged {
		parts = append(parts, ui.T("ui.state-first-changed"))
	}
	for _, bd := range b.Badges {
		parts = append(parts, bd.Text)
	}
	return strings.Join(parts, ", ")
}

func boolAttr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// modeSide tells the two mode bars of a comparison apart for screen readers.
func modeSide(prefix string) string {
	switch prefix {
	case "a-":
		return " (A)"
	case "b-":
		return " (B)"
	}
	return ""
}
