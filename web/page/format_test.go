package page

import "testing"

func TestKTokens(t *testing.T) {
	for n, want := range map[int]string{0: "0.0k", 23: "23", 99: "99", 100: "0.1k", 47900: "47.9k", 53500: "53.5k"} {
		if got := kTokens(n); got != want {
			t.Errorf("kTokens(%d) = %q; want %q", n, got, want)
		}
	}
}
