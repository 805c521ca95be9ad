// Command vulncheck runs govulncheck on ctxsim against a vulnerability
// database built offline from the golang.org/x/vulndb module (fetched from
// the Go module proxy like any module; nothing else is reached), and fails
// on any finding reachable from ctxsim's code that is not accepted below
// with its reason (README, "Security").
//
//	go run ./tools/vulncheck        # make vulncheck; .ci/run runs it
//
// It also checks, in the built binary, that the echo middlewares the two
// accepted echo advisories concern are not linked in.
package main

import (
	"bytes"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// The tools and the database, pinned.
const (
	govulncheck = "golang.org/x/vuln/cmd/govulncheck@v1.9.0"
	vulndb      = "golang.org/x/vulndb@v0.0.0-20261105234957-e22db6528018"
	indexdb     = "golang.org/x/vulndb/cmd/indexdb@v0.0.0-20261105234957-e22db6528018"
)

// accepted are the findings ctxsim lives with, and why. Both are echo v4
// advisories with no fixed v4 release; their OSV entries for v4 list no
// symbols, so govulncheck flags any use of echo.
var accepted = map[string]string{
	"GO-2026-6875": "echo's Proxy middleware forwards a client's X-Real-IP; ctxsim uses no Proxy middleware (not linked: checked below)",
	"GO-2026-6872": "echo's RateLimiter trusts a spoofed X-Forwarded-For by default; ctxsim uses no RateLimiter (not linked: checked below) and sets IPExtractor to the direct peer address",
}

// unlinked are symbol prefixes of the middlewares those advisories concern.
var unlinked = []string{
	"github.com/labstack/echo/v4/middleware.Proxy",
	"github.com/labstack/echo/v4/middleware.RateLimiter",
	"github.com/labstack/echo/v4/middleware.NewRateLimiterMemoryStore",
	"github.com/labstack/echo/v4/middleware.(*RateLimiterMemoryStore)",
}

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "vulncheck:", err)
		os.Exit(1)
	}
}

func run(out io.Writer) error {
	tmp, err := os.MkdirTemp("", "ctxsim-vulncheck")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	db := filepath.Join(tmp, "db")
	if err := buildDB(db); err != nil {
		return err
	}
	ids, err := scan(db)
	if err != nil {
		return err
	}
	var unknown []string
	for _, id := range ids {
		if why, ok := accepted[id]; ok {
			fmt.Fprintf(out, "vulncheck: %s accepted: %s\n", id, why)
		} else {
			unknown = append(unknown, id)
		}
	}
	if err := checkUnlinked(filepath.Join(tmp, "ctxsim")); err != nil {
		return err
	}
	if len(unknown) > 0 {
		return fmt.Errorf("reachable vulnerabilities not accepted: %s (run `go run %s ./...` for the traces)", strings.Join(unknown, ", "), govulncheck)
	}
	fmt.Fprintf(out, "vulncheck: %d reachable findings, all accepted; %s not linked\n", len(ids), strings.Join(unlinked, ", "))
	return nil
}

// buildDB indexes the vulndb module's OSV files into a database
// govulncheck reads with -db file://.
func buildDB(db string) error {
	var mod struct{ Dir string }
	b, err := goCmd("mod", "download", "-json", vulndb)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &mod); err != nil || mod.Dir == "" {
		return fmt.Errorf("go mod download %s: no directory in %s", vulndb, b)
	}
	_, err = goCmd("run", indexdb, "-vulns", filepath.Join(mod.Dir, "data", "osv"), "-out", db)
	return err
}

// scan runs govulncheck and returns the OSV ids of the findings reachable
// from ctxsim's code (symbol level), once each.
func scan(db string) ([]string, error) {
	b, err := goCmd("run", govulncheck, "-db", "file://"+db, "-format", "json", "./...")
	if err != nil {
		return nil, err
	}
	var ids []string
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var msg struct {
			Finding *struct {
				OSV   string `json:"osv"`
				Trace []struct {
					Function string `json:"function"`
				} `json:"trace"`
			} `json:"finding"`
		}
		if err := dec.Decode(&msg); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("read govulncheck's output: %w", err)
		}
		f := msg.Finding
		if f != nil && len(f.Trace) > 0 && f.Trace[0].Function != "" && !slices.Contains(ids, f.OSV) {
			ids = append(ids, f.OSV)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// checkUnlinked builds ctxsim and requires that none of the unlinked
// symbols is in the binary: the linker keeps only code that can run.
func checkUnlinked(bin string) error {
	if _, err := goCmd("build", "-o", bin, "."); err != nil {
		return err
	}
	f, err := elf.Open(bin)
	if err != nil {
		return fmt.Errorf("read the symbols of %s: %w", bin, err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return fmt.Errorf("read the symbols of %s: %w", bin, err)
	}
	for _, s := range syms {
		for _, p := range unlinked {
			if strings.HasPrefix(s.Name, p) {
				return fmt.Errorf("%s is linked into ctxsim: the accepted echo advisories then apply", s.Name)
			}
		}
	}
	return nil
}

func goCmd(args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("go", args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return stdout.Bytes(), nil
}
