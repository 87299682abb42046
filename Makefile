# evalbook — build, demo, test, bench, lint.
# `make demo` builds the example study and prints the path of its index.html;
# `make test` runs every test (the browser test needs Debian's chromium:
# `make deps` installs it, and .ci/run calls that on a fresh machine).

GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS  := -X main.version=$(VERSION)
ECHARTS  := themes/assets/echarts.min.js
KATEX    := themes/assets/katex.min.js
# what `evalbook version` prints of the embedded assets (written by assets)
ASSET_VERSIONS := themes/assets/versions.txt
# axe-core (a dev dependency from the same lock) is for the browser test
# only: it stays in node_modules and is never embedded or committed.
AXE      := node_modules/axe-core/axe.min.js
BIN      := bin/evalbook
DEMO     := sites/demo

.PHONY: all build assets explore-wasm dist dist-check demo test test-race test-short fuzz bench bench-scaling bench-order bench-sertkan2023 bench-cache bench-1g bench-1g-parquet bench-engine-1g bench-issues bench-pack bench-pages bench-offline lint deps clean shots

all: build

# ECharts, KaTeX and esbuild come from the npm registry, pinned in
# package.json and package-lock.json (version and integrity); go build
# embeds what this target writes. The chart library is not ECharts' full
# build (1.1 MB) but a bundle of its modular entry with only the chart
# types, components and renderer the site draws with: esbuild bundles
# themes/src/echarts.js (the list; a test keeps it in step with the
# demo's charts) into $(ECHARTS), minified, with ECharts' development
# checks compiled out. Without npm the binary still builds and falls back
# to static SVG figures (and TeX source for math).
ECHARTS_ENTRY := themes/src/echarts.js
ESBUILD_FLAGS := --bundle --minify --format=iife --define:process.env.NODE_ENV='"production"' --log-level=warning

assets: $(ECHARTS) $(KATEX) $(AXE) $(ASSET_VERSIONS) explore-wasm

$(ECHARTS) $(KATEX) $(AXE) $(ASSET_VERSIONS) &: package.json package-lock.json $(ECHARTS_ENTRY)
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --no-audit --no-fund --ignore-scripts --loglevel=error && \
		node_modules/.bin/esbuild $(ECHARTS_ENTRY) $(ESBUILD_FLAGS) --outfile=$(ECHARTS) && \
		cp node_modules/katex/dist/katex.min.js $(KATEX) && \
		node -e 'for (const p of ["echarts", "katex"]) console.log(p + " " + require("./node_modules/" + p + "/package.json").version)' > $(ASSET_VERSIONS); \
	else \
		echo "warning: npm not found; building without interactive charts (static SVG only)" >&2; \
	fi

# explore-wasm: the Explore page's module (report/site/explore/wasm: the
# build's own leaderboard and significance code) compiled by the Go
# toolchain for GOOS=js GOARCH=wasm, gzipped (-n: no name or time, so
# two builds give the same bytes; the page inflates it with the
# browser's DecompressionStream), and the toolchain's own wasm_exec.js
# beside it. Both go to themes/assets (gitignored), which go build
# embeds; a file is replaced only when its bytes change. Without a wasm
# target the binary still builds and leaves the Explore page out with a
# warning, as the charts fall back to SVG.
EXPLORE_WASM := themes/assets/explore.wasm.gz
WASM_EXEC    := themes/assets/wasm_exec.js
explore-wasm:
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT; \
	root=$$($(GO) env GOROOT); exec=$$root/lib/wasm/wasm_exec.js; [ -f $$exec ] || exec=$$root/misc/wasm/wasm_exec.js; \
	if [ -f $$exec ] && GOOS=js GOARCH=wasm $(GO) build -trimpath -buildvcs=false -ldflags "-s -w -buildid=" -o $$tmp/explore.wasm ./report/site/explore/wasm; then \
		gzip -n -9 -c $$tmp/explore.wasm > $$tmp/explore.wasm.gz; \
		cmp -s $$tmp/explore.wasm.gz $(EXPLORE_WASM) || cp $$tmp/explore.wasm.gz $(EXPLORE_WASM); \
		cmp -s $$exec $(WASM_EXEC) || cp $$exec $(WASM_EXEC); \
	else \
		rm -f $(EXPLORE_WASM) $(WASM_EXEC); \
		echo "warning: no Go wasm target (GOOS=js GOARCH=wasm) or no wasm_exec.js in $$root; building without the Explore page" >&2; \
	fi

# build: without cgo, as the release archives are: a static binary starts
# without the dynamic loader, 8 ms of the 48 ms every command costs before
# it does anything (evalbook version, 20 runs on the project's machine).
build: assets
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/evalbook

# dist: release archives for linux, darwin and windows on amd64 and
# arm64, each the binary (assets embedded, -trimpath, the version
# stamped, no cgo) with README.md, packed reproducibly (names sorted,
# owner 0, time of the last commit, gzip without a name or time);
# dist/SHA256SUMS lists them. DIST_TARGETS=linux/amd64 builds one.
DIST_TARGETS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
DIST_TIME    := $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
dist: assets
	@test -s $(ECHARTS) || { echo "dist needs the embedded chart library: install npm (make assets)" >&2; exit 1; }
	@rm -rf dist && mkdir -p dist
	@set -e; for t in $(DIST_TARGETS); do \
		os=$${t%/*}; arch=$${t#*/}; name=evalbook-$(VERSION)-$$os-$$arch; ext=; [ $$os = windows ] && ext=.exe; \
		mkdir -p dist/$$name; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -buildvcs=false -ldflags "$(LDFLAGS) -s -w -buildid=" -o dist/$$name/evalbook$$ext ./cmd/evalbook; \
		cp README.md dist/$$name/; \
		find dist/$$name -exec touch -h -d @$(DIST_TIME) {} +; \
		tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@$(DIST_TIME) --format=gnu -C dist -cf - $$name | gzip -n -9 > dist/$$name.tar.gz; \
		rm -rf dist/$$name; \
	done
	@cd dist && sha256sum *.tar.gz > SHA256SUMS && cat SHA256SUMS

# dist-check: the release's acceptance, failing on any miss. `make dist`
# twice gives byte-identical archives: the second build runs with an
# empty GOCACHE, so the build cache cannot hand the first build's
# packages back (the Explore page's wasm, embedded in the binary, is
# compiled again too). The linux/amd64 archive's binary builds the demo
# with interactive charts and the Explore page with nothing on its PATH
# (no npm, no Go), and `evalbook version` prints the stamped version and
# the embedded assets' versions (themes/assets/versions.txt).
#
# .ci/run runs it with DIST_TARGETS=linux/amd64 (the other targets build
# the same source for another GOOS/GOARCH; `make lint` builds windows and
# darwin) and DIST_CHECK_GOCACHE=shared: an empty cache recompiles the
# standard library and every dependency, about 290 CPU seconds, which
# CI's time cannot hold. With the shared cache the second build still
# links the binary and the wasm again and packs the archive again (a
# time stamped in the ldflags fails it); what it takes from the cache
# are compiled packages, keyed by the hash of all their inputs, which
# the Go toolchain compiles reproducibly.
DIST_CHECK_GOCACHE ?= empty
dist-check:
	@case " $(DIST_TARGETS) " in *" linux/amd64 "*) ;; *) echo "dist-check runs the linux/amd64 binary: put linux/amd64 in DIST_TARGETS" >&2; exit 1;; esac
	@$(MAKE) --no-print-directory dist >/dev/null
	@rm -rf dist.first && mv dist dist.first
	@case "$(DIST_CHECK_GOCACHE)" in \
	empty) cache=$$(mktemp -d) && trap 'rm -rf $$cache' EXIT && GOCACHE=$$cache $(MAKE) --no-print-directory dist >/dev/null;; \
	shared) $(MAKE) --no-print-directory dist >/dev/null;; \
	*) echo "DIST_CHECK_GOCACHE is empty (the default) or shared, not $(DIST_CHECK_GOCACHE)" >&2; exit 1;; \
	esac
	@if cmp -s dist.first/SHA256SUMS dist/SHA256SUMS; then \
		rm -rf dist.first; echo "dist: two builds are byte-identical (the second with the $(DIST_CHECK_GOCACHE) build cache): $(DIST_TARGETS)"; \
	else \
		echo "dist: two builds of the same commit differ (first, then second):" >&2; diff dist.first/SHA256SUMS dist/SHA256SUMS >&2 || true; rm -rf dist.first; exit 1; \
	fi
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
	name=evalbook-$(VERSION)-linux-amd64; bin=$$tmp/$$name/evalbook; \
	tar -C $$tmp -xzf dist/$$name.tar.gz; \
	$(GO) run ./sites/demo/gen $$tmp/demo $(DEMO)/manifest.d >/dev/null; \
	mkdir $$tmp/nopath; \
	env -i PATH=$$tmp/nopath HOME=$$tmp $$bin build $$tmp/demo --quiet --no-cache; \
	test -s $$tmp/demo/site/assets/echarts.min.js || { echo "dist: the archive's binary built the demo without its chart library" >&2; exit 1; }; \
	grep -q 'class="echart"' $$tmp/demo/site/*.html || { echo "dist: the demo built by the archive's binary has no interactive chart" >&2; exit 1; }; \
	test -s $$tmp/demo/site/explore.html || { echo "dist: the demo built by the archive's binary has no Explore page" >&2; exit 1; }; \
	echo "dist: the linux/amd64 binary built the demo with interactive charts and the Explore page, with nothing on its PATH (no npm, no Go)"; \
	out=$$(env -i PATH=$$tmp/nopath $$bin version); echo "$$out"; \
	want="evalbook $(VERSION)"; \
	[ "$$(echo "$$out" | sed -n 1p)" = "$$want" ] || { echo "dist: evalbook version does not print \"$$want\"" >&2; exit 1; }; \
	want="assets: $$(paste -sd, $(ASSET_VERSIONS) | sed 's/,/, /g')"; \
	echo "$$out" | grep -qxF "$$want" || { echo "dist: evalbook version does not print \"$$want\"" >&2; exit 1; }

demo: build
	$(GO) run ./sites/demo/gen $(DEMO)
	./$(BIN) build $(DEMO) --quiet
	@echo "$(abspath $(DEMO))/site/index.html"
	@if [ -z "$$CI" ] && command -v xdg-open >/dev/null 2>&1 && [ -n "$$DISPLAY" ]; then xdg-open "$(DEMO)/site/index.html" >/dev/null 2>&1 & fi

# test: go vet, then every test (two package test binaries at a time).
# No test asserts wall-clock speed; `make bench` prints it. On the 2-core
# machine, quiet, with a warm build cache, it takes about 230 s with both
# cores busy throughout (440 core-seconds of Go, Chromium and ClickHouse,
# about 175 of them cmd/evalbook's browser tests; 263 s and 508 with the
# temporary files on ext4, see TEST_TMPDIR). The aim is 150 s.
#
# test-race: the packages that run goroutines (analyses, report: builds,
# the units pass, serve; cmd/evalbook only hands flags to report) again
# under the race detector with -short, which samples the longest table
# tests (the detector needs every code path, not every case), skips the
# browser tests and the tests whose work runs on the test's goroutine
# (skipUnderRace). atexit_sleep_ms=0: a race test binary otherwise sleeps
# a second before exiting, for goroutines the tests do not leave running.
# It runs the same tests again, so it is its own target; .ci/run runs
# both.
RACE_PKGS := ./report/... ./analyses/...
# -timeout: go test's default of 10 minutes per test binary is a guard
# against a hang, and a loaded machine reaches it without one (at load 16,
# cmd/evalbook's browser tests ran 20 minutes); a hung browser state
# fails sooner, after the browser tests' own wait limit.
#
# TEST_TMPDIR: where the tests' temporary files go (go test's TMPDIR: the
# test binaries, every t.TempDir, Chromium's profiles, ClickHouse's data),
# in a directory of their own, removed afterwards. The default is /dev/shm,
# a file system in memory, where the machine has one: on this machine's
# ext4 creating a file costs about five times the CPU (5,000 files of 2 KB:
# 0.73–1.29 CPU-s against 0.15), and the suite creates tens of thousands.
# The tests hold at most about 0.5 GB there at once. TEST_TMPDIR= (empty)
# keeps the system's TMPDIR.
TEST_TMPDIR ?= $(wildcard /dev/shm)
# TEST_GOGC: the Go garbage collector's target for the tests' processes
# (test binaries, the builds they start, the toolchain): 400 spends less
# CPU on collection for a larger heap (report's tests: 125-131 busy
# CPU-s against 140-146 at Go's default of 100, largest process 580 MB
# against 530). No test depends on it: the memory bounds they check are
# bytes allocated (TotalAlloc), which it does not change.
TEST_GOGC ?= 400
# TEST_LDFLAGS: the tests' binaries are linked without DWARF (-w): a
# test binary is run once and thrown away, its tracebacks and profiles
# read the symbol table, which -w keeps, and linking every test binary
# costs 20-23 busy CPU-s instead of 32-34 (go test -c of every package,
# twice each, alternated). Set it empty to debug a test binary with delve.
TEST_LDFLAGS ?= -ldflags=-w
# TEST_BIN: where make test keeps the test binaries (go test -o): go test
# links a binary only when it is not there already as this source would
# build it, so a run after an edit relinks the packages it changed and
# a run without one relinks none (the links, with -w, were 18-19 busy
# CPU-s and 9-10 s of every run). go test -o takes packages with test
# files only (two without, sites/bench/gen and sites/demo/gen, would
# both be gen.test); go vet compiles the others.
TEST_BIN ?= bin/test
# TEST_FIRST: go test -p 2 starts the packages' test binaries in the
# order they are named, two at a time. The longest (cmd/evalbook, about
# 150 s, most of it Chromium) goes first, beside the ones that mostly
# wait on one core (report/paper's pdflatex runs, report/archive), then
# report; the short packages fill in at the end. In the order of
# go list, paper and archive ran last, one core idle: the whole suite
# took 188 and 190 s wall (365 and 367 busy CPU-s), against 167 and
# 172 s (331 and 342) in this order, alternated, the same 2,139 tests.
TEST_FIRST := ./cmd/evalbook ./report/paper ./report/archive ./report
TEST_PKGS = $(TEST_FIRST) $(filter-out $(TEST_FIRST),$(patsubst github.com/evalbook/evalbook/%,./%,$(shell $(GO) list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./...)))
# in_test_tmp runs a command with TMPDIR a new directory under TEST_TMPDIR.
define in_test_tmp
@base="$(TEST_TMPDIR)"; { [ -n "$$base" ] && [ -d "$$base" ] && [ -w "$$base" ]; } || base="$${TMPDIR:-/tmp}"; \
	tmp=$$(mktemp -d "$$base/evalbook-test-XXXXXX") || exit 1; \
	trap 'rm -rf "$$tmp"' EXIT INT TERM; \
	echo "TMPDIR=$$tmp GOGC=$(TEST_GOGC) $(1)"; \
	TMPDIR="$$tmp" GOGC=$(TEST_GOGC) $(1)
endef
test: assets
	$(GO) vet ./...
	@mkdir -p $(TEST_BIN)
	$(call in_test_tmp,$(GO) test $(TEST_LDFLAGS) -o $(TEST_BIN)/ -p 2 -count=1 -timeout 45m $(TEST_PKGS))

test-race: assets
	$(call in_test_tmp,GORACE=atexit_sleep_ms=0 $(GO) test $(TEST_LDFLAGS) -race -short -p 2 -count=1 $(RACE_PKGS))

# test-short: the quick loop while editing (no browser, no race detector,
# no copy of the module, sampled tables; go test caches the results of
# unchanged packages). Under 30 s with a warm build cache.
test-short: assets
	$(GO) test -short ./...

# fuzz: every fuzz target of the module, one after the other, each for
# FUZZTIME (default 10 minutes: `make fuzz FUZZTIME=30s` for a quick pass),
# on FUZZPAR workers. A finding stops the run and leaves its input under
# the package's testdata/fuzz/, where `make test` then replays it.
FUZZTIME ?= 10m
FUZZPAR ?= 2
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
		dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
		for f in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do \
			echo "== $$pkg $$f ($(FUZZTIME))"; \
			$(GO) test $$pkg -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -parallel $(FUZZPAR); \
		done; \
	done

# The generated studies live where a user's study would (a disk directory),
# not in /tmp: on some machines (this project's own, seen 2026-11) creating a
# file in /tmp costs about 560 µs against 35 µs elsewhere on the same disk,
# which would time the sandbox's /tmp, not evalbook's writing of the site.
BENCH_DIR ?= /var/tmp/evalbook-bench
# The in-process benchmarks' temporary studies go beside them, for the
# same reason (measured 2026-11-29: creating a file in a fresh directory
# under /tmp took 65 µs, under /var/tmp 15 µs; a site write of 13 files
# took 4 ms of a 40 ms cached rebuild in /tmp).
BENCH_TMP ?= $(BENCH_DIR)-tmp
BENCH_USERS ?= 200000

# bench: a large study (100 datasets × 50 methods × 10 metrics × 3 runs of
# results; 30 datasets × 2 methods × BENCH_USERS users × 2 metrics of
# units), timed: the build, then `validate` (the same pipeline, writing nothing);
# then the meta-analyses of Sertkan et al. 2023 against pandas, pack/verify,
# and last the engine bench (issue 18: 100M rows in a two-shard ClickHouse
# cluster against the same rows in a local CSV; about 20 minutes, 10 GB of
# temp space; skipped with a message when clickhouse-server is not
# installed).
bench: build
	$(GO) run ./sites/bench/gen -users $(BENCH_USERS) $(BENCH_DIR)
	@ls -la $(BENCH_DIR)
	@echo "== evalbook build"
	@/usr/bin/time -f "wall %e s, max RSS %M KiB" ./$(BIN) build $(BENCH_DIR) --quiet --no-cache
	@echo "== evalbook validate (the build pipeline, writing nothing)"
	@/usr/bin/time -f "wall %e s, max RSS %M KiB" ./$(BIN) validate $(BENCH_DIR)
	@echo "== the demo (make demo's study), cold"
	@$(GO) run ./sites/demo/gen $(BENCH_DIR)-demo $(DEMO)/manifest.d >/dev/null
	@/usr/bin/time -f "wall %e s, max RSS %M KiB" ./$(BIN) build $(BENCH_DIR)-demo --quiet --no-cache
	@echo "== benchmarks; BenchmarkMetaSummary10k: meta_analysis of 10,000 two-group summaries, sensitivity = true (analysis-ms: read + compute, run-ms: + forest and funnel plots, build-ms: whole site)"
	@echo "   the issues' budgets (printed, never asserted): Stability30x11 < 5 s, Stability100x50 < 60 s, DatasetSelection < 10 s, ServeRebuild < 2000 ms/edit"
	$(GO) test -run '^$$' -bench . -benchtime 1x ./analyses/... ./report/
	@$(MAKE) --no-print-directory bench-scaling
	@$(MAKE) --no-print-directory bench-order
	@$(MAKE) --no-print-directory bench-sertkan2023
	@$(MAKE) --no-print-directory bench-cache
	@$(MAKE) --no-print-directory bench-pack
	@$(MAKE) --no-print-directory bench-engine

# bench-sertkan2023: five meta-analyses over the per-user runs of Sertkan et
# al. 2023 (21 files, 9.8 MB, from ../shared/reference), evalbook's cold build against the
# pandas/scipy script a researcher would write (sites/bench/peers), same
# inputs and numbers, timed in turn in one run, SERTKAN2023_ROUNDS times
# each (wall to the microsecond from date: /usr/bin/time's is in
# hundredths, a tenth of a build), then the medians (the machine's speed drifts by a quarter over
# minutes: one round is a sample, the median of rounds in turn is the
# figure); then BenchmarkSertkan2023Split: how much of the build the
# figures' PDF and PNG take.
SERTKAN2023 := $(BENCH_DIR)-sertkan2023
SERTKAN2023_ROUNDS ?= 7
bench-sertkan2023: build
	@test -d ../shared/reference/sertkan2023/runs || { echo "bench-sertkan2023 needs ../shared/reference/sertkan2023/runs" >&2; exit 1; }
	@/usr/bin/python3 -c 'import pandas, scipy' 2>/dev/null || { 		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pandas python3-scipy >/dev/null; 		else echo "bench-sertkan2023 needs Debian's python3-pandas and python3-scipy" >&2; exit 1; fi; }
	@rm -rf $(SERTKAN2023) && mkdir -p $(SERTKAN2023) && cp -r ../shared/reference/sertkan2023/runs $(SERTKAN2023)/ && cp sites/bench/sertkan2023/study.toml $(SERTKAN2023)/
	@rm -f $(SERTKAN2023).rounds; for i in $$(seq $(SERTKAN2023_ROUNDS)); do \
		t0=$$(date +%s%N); /usr/bin/time -o $(SERTKAN2023).eb.time -f "%U %S %M" ./$(BIN) build $(SERTKAN2023) --quiet --no-cache; t1=$$(date +%s%N); \
		/usr/bin/time -o $(SERTKAN2023).py.time -f "%U %S %M" /usr/bin/python3 sites/bench/peers/meta_pandas.py $(SERTKAN2023) >/dev/null; t2=$$(date +%s%N); \
		awk -v e="$$(cat $(SERTKAN2023).eb.time) $$(( (t1 - t0) / 1000 ))" -v p="$$(cat $(SERTKAN2023).py.time) $$(( (t2 - t1) / 1000 ))" -v l="$$(cut -d' ' -f1 /proc/loadavg)" -v r=$(SERTKAN2023).rounds 'BEGIN { split(e, x, " "); split(p, y, " "); \
			a[1] = x[1]; a[2] = x[2]; a[3] = x[4] / 1e6; a[4] = x[3]; b[1] = y[1]; b[2] = y[2]; b[3] = y[4] / 1e6; b[4] = y[3]; \
			printf "evalbook build (cold): wall %.3f s, CPU %.2f s, max RSS %d KiB | pandas/scipy: wall %.3f s, CPU %.2f s, max RSS %d KiB | evalbook %.1fx faster (wall), %.1fx (CPU), load %s\n", \
			a[3], a[1]+a[2], a[4], b[3], b[1]+b[2], b[4], b[3]/a[3], (b[1]+b[2])/(a[1]+a[2]), l; \
			printf "%.3f %.3f %.3f %.3f %d %d\n", a[3], b[3], b[3]/a[3], (b[1]+b[2])/(a[1]+a[2]), a[4], b[4] >> r }'; \
	done; \
	for c in 1 2 3 4 5 6; do sort -n -k$$c,$$c $(SERTKAN2023).rounds | awk -v c=$$c '{ v[NR] = $$c } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%s ", m }'; done | \
		awk -v n=$(SERTKAN2023_ROUNDS) '{ printf "median of %d rounds: evalbook wall %.3f s, pandas/scipy wall %.3f s | evalbook %.1fx faster (wall, median of the rounds'"'"' ratios), %.1fx (CPU) | max RSS %d KiB against %d KiB (%.2fx)\n", n, $$1, $$2, $$3, $$4, $$5, $$6, $$5 / $$6 }'
	@echo "== where a cold build of it goes (in one process: no start-up, each font face read once): site only, + the figures' PDF and PNG, validate"
	@mkdir -p $(BENCH_TMP) && TMPDIR=$(BENCH_TMP) $(GO) test ./report -run '^$$' -bench Sertkan2023Split -benchtime 3x | grep -E '^Benchmark'

# bench-cache: the cache on the study of Sertkan et al. 2023 (issue 32), each build its own
# process as a user runs it: --no-cache, cold (empty cache), warm, after
# one value of runs/MF_movielens-10M.csv (read by four of the five
# meta-analyses) was edited, and after the edit was undone; CPU and wall,
# medians of 5 rounds, with their ratios to --no-cache and the cost of
# starting the process at all (the budget, printed, never asserted: after
# the edit ≤ 1.0×, after the undo ≤ 0.2×); again with 2,000 entries of
# other studies in the cache (a cache in use, which a build must not
# scan every time it writes); then BenchmarkSertkan2023Cache, the same
# builds in one process, without the process start; then the same builds
# counted in instructions under valgrind's callgrind (cachebench
# -callgrind), which repeat to within about 1 % however loaded the
# machine is, where CPU seconds here drift by a quarter.
SERTKANC := $(BENCH_DIR)-sertkan2023-cache
bench-cache: build
	@test -d ../shared/reference/sertkan2023/runs || { echo "bench-cache needs ../shared/reference/sertkan2023/runs" >&2; exit 1; }
	@rm -rf $(SERTKANC) && mkdir -p $(SERTKANC) && cp -r ../shared/reference/sertkan2023/runs $(SERTKANC)/ && chmod -R u+w $(SERTKANC) && cp sites/bench/sertkan2023/study.toml $(SERTKANC)/
	@echo "== the cache: Sertkan et al. 2023 without it, cold, warm, after one edit, after its undo"
	@$(GO) run ./sites/bench/cachebench -bin $(BIN) -edit runs/MF_movielens-10M.csv -n 5 $(SERTKANC)
	@echo "== the same with 2,000 entries of other studies in the cache (74 MB, under its 256 MiB bound), as a user's cache holds them"
	@$(GO) run ./sites/bench/cachebench -bin $(BIN) -edit runs/MF_movielens-10M.csv -n 5 -others 2000 $(SERTKANC)
	@echo "== the same in one process (no process start): without the cache, warm, after an edit, after its undo"
	@mkdir -p $(BENCH_TMP) && TMPDIR=$(BENCH_TMP) $(GO) test ./report -run '^$$' -bench Sertkan2023Cache -benchtime 5x | grep -E '^Benchmark'
	@echo "== the same counted in instructions under callgrind (the work in user space on one core, which the machine's load does not change; about 4 minutes)"
	@if command -v valgrind >/dev/null; then $(GO) run ./sites/bench/cachebench -bin $(BIN) -edit runs/MF_movielens-10M.csv -n 3 -callgrind $(SERTKANC); \
	else echo "(skipped: install Debian's valgrind to count instructions)"; fi

# bench-scaling: one analysis of each kind (all but offline_metrics) built
# over 10, 100, 1,000 and 10,000 methods, then datasets, with the growth
# exponent between sizes (issue 31: none above n log n; pairwise kinds
# stop at their limit of methods, stability at its limit of work, with an
# error). SCALING_SIZES=10,100 is quick.
SCALING_SIZES ?= 10,100,1000,10000
bench-scaling:
	EVALBOOK_SCALING_SIZES=$(SCALING_SIZES) $(GO) test ./report -run '^$$' -bench BenchmarkScaling -benchtime 1x -timeout 60m -v | grep -E 'over|^ok|FAIL'

# bench-pack: evalbook pack and evalbook verify of the demo, timed (issue
# 17's budget, printed, never asserted: each under 5 s).
PACKDEMO := $(BENCH_DIR)-packdemo
bench-pack: build
	@rm -rf $(PACKDEMO) && $(GO) run ./sites/demo/gen $(PACKDEMO) $(DEMO)/manifest.d >/dev/null
	@echo "== evalbook pack / verify of the demo (budget: each < 5 s)"
	@/usr/bin/time -f "evalbook pack:   wall %e s, CPU %U+%S s, max RSS %M KiB" ./$(BIN) pack $(PACKDEMO) -o $(PACKDEMO).zip
	@/usr/bin/time -f "evalbook verify: wall %e s, CPU %U+%S s, max RSS %M KiB" ./$(BIN) verify $(PACKDEMO).zip

# bench-order: the same two meta-analyses over 6M per-user rows (metagen
# -units 50000) in the two orders a long file comes in: by unit (each
# unit's treatment and control values together) and by method (one
# method's units of a dataset, then the other's, in the same order),
# evalbook's cold build of each, CPU and memory side by side. The
# pairing queues values in their order either way (analyses/meta): the
# two cost about the same.
ORDERU := $(BENCH_DIR)-order-unit
ORDERM := $(BENCH_DIR)-order-method
bench-order: build
	@test -f $(ORDERU)/study.toml || $(GO) run ./sites/bench/metagen -units 50000 $(ORDERU)
	@test -f $(ORDERM)/study.toml || $(GO) run ./sites/bench/metagen -units 50000 -order method $(ORDERM)
	@for i in 1 2; do \
		/usr/bin/time -o $(ORDERU).time -f "%U %S %e %M" ./$(BIN) build $(ORDERU) --quiet --no-cache; \
		/usr/bin/time -o $(ORDERM).time -f "%U %S %e %M" ./$(BIN) build $(ORDERM) --quiet --no-cache; \
		awk -v u="$$(cat $(ORDERU).time)" -v m="$$(cat $(ORDERM).time)" -v l="$$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN { split(u, a, " "); split(m, b, " "); \
			printf "by unit: wall %.2f s, CPU %.2f s, max RSS %d KiB | by method: wall %.2f s, CPU %.2f s, max RSS %d KiB | CPU ratio %.2fx, load %s\n", \
			a[3], a[1]+a[2], a[4], b[3], b[1]+b[2], b[4], (b[1]+b[2])/(a[1]+a[2]), l }'; \
	done

# bench-1g: two meta-analyses over one 1 GB long CSV of per-user values
# (metagen -units 250000), evalbook's cold build against `wc -l` reading
# the same file, CPU seconds side by side; and the sha256 of the file as
# the build's provenance computes it (sites/bench/hashfile): the part of
# the ratio that content hashing alone costs. Then bench-1g-parquet.
META1G := $(BENCH_DIR)-meta1g
bench-1g: build
	@test -f $(META1G)/study.toml || $(GO) run ./sites/bench/metagen -units 250000 $(META1G)
	@$(GO) build -o bin/hashfile ./sites/bench/hashfile
	@ls -la $(META1G)
	@for i in 1 2; do \
		/usr/bin/time -o $(META1G).wc.time -f "%U %S %e %M" wc -l $(META1G)/units.csv >/dev/null; \
		/usr/bin/time -o $(META1G).sha.time -f "%U %S %e %M" bin/hashfile $(META1G)/units.csv >/dev/null; \
		/usr/bin/time -o $(META1G).eb.time -f "%U %S %e %M" ./$(BIN) build $(META1G) --quiet --no-cache; \
		awk -v w="$$(cat $(META1G).wc.time)" -v h="$$(cat $(META1G).sha.time)" -v e="$$(cat $(META1G).eb.time)" -v l="$$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN { split(w, a, " "); split(e, b, " "); split(h, c, " "); \
			printf "wc -l: wall %.2f s, CPU %.2f s | sha256 alone: CPU %.2f s (%.1fx wc -l) | evalbook build (cold): wall %.2f s, CPU %.2f s, max RSS %d KiB | CPU ratio %.1fx, load %s\n", \
			a[3], a[1]+a[2], c[1]+c[2], (c[1]+c[2])/(a[1]+a[2]), b[3], b[1]+b[2], b[4], (b[1]+b[2])/(a[1]+a[2]), l }'; \
	done
	@$(MAKE) --no-print-directory bench-1g-parquet

# bench-1g-parquet: the same 30M rows as Parquet (metagen -format
# parquet: 251 MB against the CSV's 997 MB), evalbook's cold build of each
# and DuckDB's query for the same aggregation on the Parquet file
# (sites/bench/peers/meta_duckdb.mjs: per dataset and metric the paired
# differences' mean, sd and count), CPU seconds side by side with the
# ratios the issue asks for (Parquet ≤ 1/2 the CSV's CPU, ≤ DuckDB's).
# DuckDB is @duckdb/node-api from npm, installed once under $(DUCKDB_DIR),
# never in the repository; without npm the peer is left out, said so.
META1GPQ := $(BENCH_DIR)-meta1g-parquet
DUCKDB_DIR ?= /var/tmp/evalbook-duckdb
DUCKDB_NODE_API := @duckdb/node-api@1.5.6-r.1
# each round times the CSV, the Parquet file and DuckDB in turn; the host's
# speed drifts, so the ratios are taken within a round, then their median
PARQUET_ROUNDS ?= 5
bench-1g-parquet: build
	@test -f $(META1G)/study.toml || $(GO) run ./sites/bench/metagen -units 250000 $(META1G)
	@test -f $(META1GPQ)/study.toml || $(GO) run ./sites/bench/metagen -units 250000 -format parquet $(META1GPQ)
	@test -d $(DUCKDB_DIR)/node_modules/@duckdb/node-api || { mkdir -p $(DUCKDB_DIR) && cd $(DUCKDB_DIR) && npm install --no-audit --no-fund $(DUCKDB_NODE_API) >/dev/null 2>&1; } || echo "(no DuckDB peer: npm install $(DUCKDB_NODE_API) failed)"
	@ls -la $(META1G)/units.csv $(META1GPQ)/units.parquet
	@rm -f $(META1GPQ).rounds
	@for i in $$(seq $(PARQUET_ROUNDS)); do \
		/usr/bin/time -o $(META1GPQ).csv.time -f "%U %S %e %M" ./$(BIN) build $(META1G) --quiet --no-cache; \
		/usr/bin/time -o $(META1GPQ).pq.time -f "%U %S %e %M" ./$(BIN) build $(META1GPQ) --quiet --no-cache; \
		echo "0 0 0 0" > $(META1GPQ).duck.time; \
		if [ -d $(DUCKDB_DIR)/node_modules/@duckdb/node-api ]; then \
			DUCKDB_NODE_DIR=$(DUCKDB_DIR) /usr/bin/time -o $(META1GPQ).duck.time -f "%U %S %e %M" node sites/bench/peers/meta_duckdb.mjs $(META1GPQ)/units.parquet >/dev/null || echo "0 0 0 0" > $(META1GPQ).duck.time; \
		fi; \
		awk -v c="$$(cat $(META1GPQ).csv.time)" -v p="$$(cat $(META1GPQ).pq.time)" -v d="$$(cat $(META1GPQ).duck.time)" -v l="$$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN { split(c, a, " "); split(p, b, " "); split(d, x, " "); \
			cc = a[1]+a[2]; pc = b[1]+b[2]; dc = x[1]+x[2]; \
			printf "CSV build: CPU %.2f s | Parquet build: wall %.2f s, CPU %.2f s, max RSS %d KiB | Parquet/CSV CPU %.2fx", cc, b[3], pc, b[4], pc/cc; \
			if (dc > 0) printf " | DuckDB on the Parquet: wall %.2f s, CPU %.2f s, max RSS %d KiB | evalbook/DuckDB CPU %.2fx", x[3], dc, x[4], pc/dc; \
			printf ", load %s\n", l; \
			printf "%.4f %.4f\n", pc/cc, (dc > 0 ? pc/dc : 0) >> "$(META1GPQ).rounds" }'; \
	done
	@printf "median of %s rounds: Parquet/CSV CPU %.2fx, evalbook/DuckDB CPU %.2fx (each the median of the rounds' ratios)\n" $(PARQUET_ROUNDS) \
		$$(cut -d' ' -f1 $(META1GPQ).rounds | sort -g | awk '{v[NR]=$$1} END {print v[int((NR+1)/2)]}') \
		$$(cut -d' ' -f2 $(META1GPQ).rounds | sort -g | awk '{v[NR]=$$1} END {print v[int((NR+1)/2)]}')

# bench-issues: the full-size benchmarks the issues ask for (minutes; the
# meta-analysis one writes a 4 GB file under $(BENCH_DIR)-meta).
bench-issues: build
	$(GO) test ./analyses/leaderboard ./analyses/datasets -run '^$$' -bench 'Stability|DatasetSelection' -benchtime 1x
	EVALBOOK_BENCH_ROWS=1000000 $(GO) test ./report -run '^$$' -bench CharacteristicsLogs -benchtime 1x
	$(GO) test ./report -run '^$$' -bench OfflineMetrics -benchtime 1x -offline.users 1000000
	$(GO) run ./sites/bench/metagen $(BENCH_DIR)-meta
	/usr/bin/time -f "meta-analysis build: wall %e s, max RSS %M KiB" ./$(BIN) build $(BENCH_DIR)-meta --quiet --no-cache

# bench-pages: the weight of every page of the demo with everything it
# loads (scripts, images, chart options), in bytes as written and gzipped
# (TestDemoPageWeight asserts issue 30's budget: an analysis page at most
# 500 KB gzipped); then the demo's stability page (six charts, three
# large) in headless Chromium: first paint, DOM ready and all charts
# drawn, in ms as the browser measured them (printed, never asserted;
# issue 21's budget: first render ≤ 0.5 s on this machine); then the
# Explore page of a 30 × 11 study: its weight, its first view, and per
# change of view the computation, the CD diagram's chart and the redraw
# with it (issue 35's budget, printed, never asserted: redraw ≤ 100 ms).
bench-pages: assets
	$(GO) test ./cmd/evalbook/ -run '^$$' -bench 'PageWeight|PageFirstRender|ExploreRedraw' -benchtime 5x -v

STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

# shots: screenshots of the demo as a reader sees it (desktop light and
# dark, every page at phone width) in ./shots, from the browser tests,
# which otherwise only check the pages.
shots: assets
	EVALBOOK_SHOTS=$(CURDIR)/shots $(GO) test ./cmd/evalbook -run 'TestBrowser(Demo|Phone)$$' -count=1

lint:
	@test -z "$$(gofmt -l .)" || (gofmt -l . && echo "gofmt: files above need formatting" && exit 1)
	$(GO) vet ./...
	GOOS=windows GOARCH=amd64 $(GO) build ./...  # the binary builds for every dist target (the tests are for unix)
	GOOS=darwin GOARCH=arm64 $(GO) build ./...
	$(GO) run $(STATICCHECK) ./...

# deps installs what the tests need on a fresh Debian machine: Chromium for
# the browser test (and chromium-headless-shell, the same Blink without the
# new headless mode's browser UI, which the tests prefer: a third less CPU), pdflatex and poppler's pdftotext/pdfinfo for the paper
# tests (as root, through apt; the TeX packages take about 2.5 minutes).
deps:
	@{ command -v chromium && test -x /usr/lib/chromium/chromium-headless-shell; } >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-headless-shell >/dev/null; \
		else echo "install Debian's chromium and chromium-headless-shell for the browser tests (sudo apt-get install chromium chromium-headless-shell)" >&2; fi; }
	@{ command -v pdflatex && command -v pdftotext && command -v pdfinfo && kpsewhich acmart.cls IEEEtran.cls xstring.sty hyperxmp.sty ptmr7t.tfm; } >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends texlive-latex-base texlive-latex-recommended texlive-latex-extra texlive-plain-generic texlive-fonts-recommended texlive-publishers poppler-utils >/dev/null; \
		else echo "install Debian's texlive-latex-base, texlive-latex-recommended, texlive-latex-extra, texlive-plain-generic, texlive-fonts-recommended, texlive-publishers and poppler-utils for the paper tests" >&2; fi; }
	@{ command -v clickhouse-server || test -x /usr/sbin/clickhouse-server; } >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clickhouse-server clickhouse-client >/dev/null; \
		else echo "install Debian's clickhouse-server for the engine tests (sudo apt-get install clickhouse-server)" >&2; fi; }

clean:
	rm -rf bin node_modules $(ECHARTS) $(KATEX) $(DEMO)/site $(DEMO)/data $(DEMO)/study.toml $(DEMO)/pages

# bench-offline: offline_metrics on TREC runs (issue 16): 1,000,000 queries ×
# 100-deep runs for 3 runs with compare (fisher, 10,000 permutations), then
# a fully interleaved 10-million-line run grouped by the bounded external
# sort; each prints its times and peak RSS. Needs ~40 GB free in the temp dir.
OFFLINE_QUERIES ?= 1000000
OFFLINE_LINES ?= 10000000
bench-offline:
	$(GO) test ./report -run '^$$' -bench 'BenchmarkOfflineTRECCompare' -benchtime 1x -timeout 60m -offline.trec.queries $(OFFLINE_QUERIES)
	$(GO) test ./report -run '^$$' -bench 'BenchmarkOfflineTRECInterleaved' -benchtime 1x -timeout 60m -offline.trec.lines $(OFFLINE_LINES)

# bench-engine: per-user values in a two-shard ClickHouse cluster on
# loopback (issue 18, docs/ENGINE.md): 100 million rows generated inside
# ClickHouse, one meta-analysis per metric built from the engine (wall
# and CPU time, bytes the engine sent), and the same study from a local
# CSV of the same 100 million rows (3.5 GB), side by side; the two must
# give the same effects. EVALBOOK_BENCH_ENGINE_CSV_ROWS=10000000 compares
# the sides at 10M rows instead (quicker). Needs clickhouse-server (make
# deps) and about 10 GB free in the temp dir.
.PHONY: bench-engine
bench-engine:
	EVALBOOK_BENCH_ENGINE=$${EVALBOOK_BENCH_ENGINE:-100000000} $(GO) test -run '^$$' -bench 'BenchmarkEngineMeta$$' -benchtime 1x -timeout 60m ./report/

# bench-engine-1g: bench-1g's 30 million rows (the same units.csv, 1 GB)
# loaded into one local clickhouse-server (kept in $(META1G)-clickhouse,
# loaded again only when the CSV changes: about 2 minutes), the study
# built from the engine table and from the local file in one run, side by
# side: wall, CPU in evalbook and in the server, bytes the engine sent,
# and the server's query log (duration, CPU, rows read, memory per
# query). Budget (printed, never asserted): engine wall <= 2x the file's.
.PHONY: bench-engine-1g
bench-engine-1g:
	@test -f $(META1G)/study.toml || $(GO) run ./sites/bench/metagen -units 250000 $(META1G)
	EVALBOOK_BENCH_ENGINE_1G=$(META1G) $(GO) test -run '^$$' -bench 'BenchmarkEngineMeta1G$$' -benchtime 1x -timeout 30m ./report/
