// Command vulncheck runs govulncheck on ctxsim against a vulnerability
// database built offline from the golang.org/x/vulndb module (fetched from
// the Go module proxy like any module; nothing else is reached), and fails
// on any finding reachable from ctxsim's code that is not accepted below
// with its reason (README, "Security").
//
//	go run ./tools/vulncheck -fetch # make vulncheck-deps: fill the module cache (needs the module proxy)
//	go run ./tools/vulncheck        # make vulncheck: offline, from the module cache alone
//
// Without -fetch every go command it runs resolves modules from the module
// cache (GOPROXY=file://$GOMODCACHE/cache/download), so a run never looks a
// module up on the network; when the cache lacks one it says which, and
// that -fetch downloads it.
//
// It also checks, in the built binary, that the echo middlewares the two
// accepted echo advisories concern are not linked in.
package main

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"ctxsim/internal/cli"
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

func main() { cli.Main("vulncheck", run) }

// run checks, or with -fetch fills the module cache, and reports on stdout.
func run(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cli.Flags("vulncheck", "", stderr)
	fetch := fs.Bool("fetch", false, "download the pinned tools, the database module and ctxsim's modules into the module cache, then stop")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	g, err := newGoRunner(*fetch)
	if err != nil {
		return err
	}
	if *fetch {
		return g.fetch(stdout)
	}
	return g.run(stdout)
}

// goRunner runs go commands, offline unless it fetches.
type goRunner struct {
	env []string // added to the environment of every go command
}

// newGoRunner returns a runner that resolves modules from the module cache
// only, or through the configured proxy when online is set.
func newGoRunner(online bool) (*goRunner, error) {
	if online {
		return &goRunner{}, nil
	}
	cache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOMODCACHE: %w", err)
	}
	return &goRunner{env: offlineEnv(strings.TrimSpace(string(cache)))}, nil
}

// offlineEnv makes the go command read modules from the module cache's
// download directory as its proxy: no network, and a clear error for a
// module the cache lacks.
func offlineEnv(modcache string) []string {
	return []string{"GOPROXY=file://" + filepath.ToSlash(filepath.Join(modcache, "cache", "download")), "GOFLAGS=-mod=mod"}
}

// fetch downloads what an offline run needs.
func (g *goRunner) fetch(out io.Writer) error {
	steps := [][]string{
		{"mod", "download"},
		{"mod", "download", vulndb},
		{"run", govulncheck, "-version"},
		{"run", indexdb, "-h"},
	}
	for _, args := range steps {
		if _, err := g.cmd(args...); err != nil {
			return err
		}
	}
	fmt.Fprintln(out, "vulncheck: the module cache holds everything `make vulncheck` needs")
	return nil
}

func (g *goRunner) run(out io.Writer) error {
	tmp, err := os.MkdirTemp("", "ctxsim-vulncheck")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	db := filepath.Join(tmp, "db")
	if err := g.buildDB(db); err != nil {
		return err
	}
	ids, err := g.scan(db)
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
	if err := g.checkUnlinked(filepath.Join(tmp, "ctxsim")); err != nil {
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
func (g *goRunner) buildDB(db string) error {
	var mod struct{ Dir, Error string }
	b, err := g.cmd("mod", "download", "-json", vulndb)
	if err != nil && json.Unmarshal(b, &mod) == nil && mod.Error != "" {
		return lacking(mod.Error, err)
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &mod); err != nil || mod.Dir == "" {
		return fmt.Errorf("go mod download %s: no directory in %s", vulndb, b)
	}
	_, err = g.cmd("run", indexdb, "-vulns", filepath.Join(mod.Dir, "data", "osv"), "-out", db)
	return err
}

// scan runs govulncheck and returns the OSV ids of the findings reachable
// from ctxsim's code (symbol level), once each.
func (g *goRunner) scan(db string) ([]string, error) {
	b, err := g.cmd("run", govulncheck, "-db", "file://"+db, "-format", "json", "./...")
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
func (g *goRunner) checkUnlinked(bin string) error {
	if _, err := g.cmd("build", "-o", bin, "."); err != nil {
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

// cmd runs a go command and returns its standard output (also on
// failure, for -json answers that carry the error).
func (g *goRunner) cmd(args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), g.env...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		err = fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, stderr.Bytes())
		return stdout.Bytes(), lacking(stderr.String(), err)
	}
	return stdout.Bytes(), nil
}

// missingModule finds what an offline go command could not read from the
// module cache: "reading file:///…/cache/download/golang.org/x/vuln/cmd/govulncheck/@v/v1.9.0.info".
var missingModule = regexp.MustCompile(`reading file://\S*/cache/download/(\S+)/@v/(\S+?)\.(?:info|mod|zip)`)

// lacking turns an offline go command's failure to find a module in the
// cache into an error that names the module and what fetches it; other
// failures pass through.
func lacking(text string, err error) error {
	m := missingModule.FindStringSubmatch(text)
	if m == nil {
		return err
	}
	return fmt.Errorf("the module cache lacks %s@%s (make vulncheck runs offline): run `make vulncheck-deps` once where the Go module proxy is reachable", m[1], m[2])
}
