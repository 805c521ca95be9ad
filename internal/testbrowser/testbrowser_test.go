package testbrowser

import (
	"os"
	"strings"
	"testing"
)

// Path answers $CTXSIM_CHROMIUM when the file is there, and names the
// package to install, the binary it looked for and the variable when not.
func TestPath(t *testing.T) {
	dir := t.TempDir()
	exe, missing := dir+"/chromium", dir+"/no-chromium"
	if err := os.WriteFile(exe, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CTXSIM_CHROMIUM", exe)
	if p, err := Path(); err != nil || p != exe {
		t.Errorf("Path() with CTXSIM_CHROMIUM set = %q, %v; want %q", p, err, exe)
	}
	t.Setenv("CTXSIM_CHROMIUM", missing)
	_, err := Path()
	if err == nil {
		t.Fatal("Path() of a missing binary succeeded")
	}
	for _, want := range []string{missing, "apt-get install chromium-headless-shell", "CTXSIM_CHROMIUM"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
