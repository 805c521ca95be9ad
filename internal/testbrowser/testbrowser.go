// Package testbrowser names the Chromium that ctxsim's browser tests
// drive (package web, export and tools/pagemeasure): Debian's headless
// shell of Chromium, built from the same source package and version as
// its chromium, with the same Blink and V8. It draws every page the tests
// measure exactly as the full browser does in headless mode (the layout
// test's 222 measurements were byte-identical in both), and spends about
// a third less CPU on each page, which is what a suite on two cores waits
// for.
package testbrowser

import (
	"fmt"
	"os"
)

// Default is where Debian's chromium-headless-shell package puts the
// headless shell.
const Default = "/usr/bin/chromium-headless-shell"

// Path is the Chromium binary of the browser tests: $CTXSIM_CHROMIUM, else
// Default. The error says how to install it when the file is missing, so a
// test fails (it never skips) with a way forward.
func Path() (string, error) {
	p := os.Getenv("CTXSIM_CHROMIUM")
	if p == "" {
		p = Default
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("browser tests need Chromium at %s (%w): run `apt-get install chromium-headless-shell` (Debian's headless shell of Chromium), or set CTXSIM_CHROMIUM to a Chromium binary such as /usr/bin/chromium", p, err)
	}
	return p, nil
}
