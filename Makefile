# ctxsim: two commands do all set-up on a machine with Go installed.
#   make run    serve the lessons at http://localhost:8080
#   make test   every test: templ freshness, vet, engine, loader, HTTP and browser tests
ADDR ?= :8080
GO ?= go
# Build and test with Go 1.27.3 (1.26.8, the go.mod minimum, has reachable
# standard-library advisories);
# the go command fetches that toolchain from the module proxy once.
GOTOOLCHAIN ?= go1.27.3
export GOTOOLCHAIN

.PHONY: run test build deps generate check-generated vet bench screenshots vulncheck vulncheck-deps fuzz

run: deps
	@echo "ctxsim: compiling (the first build takes a minute or two on two cores; later ones seconds)"
	@$(GO) build -o bin/ctxsim .
	./bin/ctxsim serve -addr $(ADDR)

build: deps
	$(GO) build -o bin/ctxsim .

# Says what the first run is waiting for: the toolchain and the modules
# are downloaded once, then come from the caches.
deps:
	@echo "ctxsim: checking for Go $(GOTOOLCHAIN:go%=%) (the first time, the go command downloads it: about 76 MB)"
	@$(GO) version
	@echo "ctxsim: checking the Go modules ctxsim needs (the first time, about 40 are downloaded)"
	@$(GO) mod download

# Regenerate the committed *_templ.go files from views/*.templ.
generate:
	$(GO) tool templ generate

# Fails when a *_templ.go file is not what `go tool templ generate` makes
# from its .templ source (works on a clean clone and on a dirty tree alike).
check-generated:
	@tmp=$$(mktemp -d) && cp go.mod go.sum "$$tmp/" && cp -r views "$$tmp/" && \
	(cd "$$tmp" && $(GO) tool templ generate >/dev/null 2>&1) && \
	if ! diff -r -q views "$$tmp/views" >/dev/null; then \
		diff -r views "$$tmp/views" | head -40; \
		echo "views/*_templ.go are stale: run 'make generate' and commit the result"; rm -rf "$$tmp"; exit 1; \
	fi; rm -rf "$$tmp"; echo "templ: generated files are up to date"

vet:
	$(GO) vet ./...

# Browser tests need Debian's headless shell of Chromium (package
# `chromium-headless-shell`); they fail, not skip, when it is missing. Set
# CTXSIM_CHROMIUM to use another binary (/usr/bin/chromium works too, slower).
# GOGC=400: the tests' heaps are short-lived (the sweeps build and drop
# runs and pages by the thousand); collecting a quarter as often saves
# about a sixth of web/page's CPU (peak 1.5 GB).
# go test starts packages in the order given, two at a time: the longest
# (web's browser tests) first, beside it the two that mostly wait on
# timers (NATS key expiry, upload leases), then the heaviest of the rest
# (narration sweeps, the export crawl); the small ones fill in at the end.
# Every package of ./... runs once.
TEST_FIRST = ./web ./web/rooms/store ./web/uploads ./web/page ./export . ./tools/pagemeasure

test: deps check-generated vet
	GOGC=400 $(GO) test -count=1 -timeout 20m $(TEST_FIRST) ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./web

# govulncheck against a database built offline from the golang.org/x/vulndb
# module; fails on a reachable finding the README does not argue. It runs
# from the module cache alone (no module is looked up on the network) and
# names any module the cache lacks: `make vulncheck-deps` fetches them once.
vulncheck:
	$(GO) run ./tools/vulncheck

vulncheck-deps:
	$(GO) run ./tools/vulncheck -fetch

# A minute of each fuzz target (seeds in */testdata/fuzz). Minimizing a new
# input would take a minute each: 100 tries is enough.
FUZZTIME ?= 60s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzRead$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 100x ./authoring/transcript
	$(GO) test -run '^$$' -fuzz '^FuzzReadCodex$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 100x ./authoring/transcript
	$(GO) test -run '^$$' -fuzz '^FuzzRedact$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 100x ./authoring/transcript
	$(GO) test -run '^$$' -fuzz '^FuzzCount$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 100x ./internal/tokens
	$(GO) test -run '^$$' -fuzz '^FuzzPaths$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 100x ./web
	$(GO) test -run '^$$' -fuzz '^FuzzRoomAPI$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 100x ./web
	$(GO) test -run '^$$' -fuzz '^FuzzParseStateURL$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 100x ./web
	$(GO) test -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 100x ./scenarios
	$(GO) test -run '^$$' -fuzz '^FuzzNarration$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 100x ./scenarios
