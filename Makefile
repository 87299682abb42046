# evalbook — build, demo, test, bench, lint.
# `make demo` builds the example study and prints the path of its index.html;
# `make test` runs every test (the browser test needs Debian's chromium:
# `make deps` installs it, and .ci/run calls that on a fresh machine).

GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)
LDFLAGS  := -X main.version=$(VERSION)
ECHARTS  := themes/assets/echarts.min.js
BIN      := bin/evalbook
DEMO     := sites/demo

.PHONY: all build assets demo test test-go test-browser bench lint deps clean

all: build

# ECharts comes from the npm registry, pinned in package.json and
# package-lock.json (version and integrity), and is embedded by go build.
# Without npm the binary still builds and falls back to static SVG figures.
assets: $(ECHARTS)

$(ECHARTS): package.json package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --no-audit --no-fund --ignore-scripts --loglevel=error && \
		cp node_modules/echarts/dist/echarts.min.js $(ECHARTS); \
	else \
		echo "warning: npm not found; building without interactive charts (static SVG only)" >&2; \
	fi

build: assets
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/evalbook

demo: build
	$(GO) run ./sites/demo/gen $(DEMO)
	./$(BIN) build $(DEMO) --quiet
	@echo "$(abspath $(DEMO))/site/index.html"
	@if [ -z "$$CI" ] && command -v xdg-open >/dev/null 2>&1 && [ -n "$$DISPLAY" ]; then xdg-open "$(DEMO)/site/index.html" >/dev/null 2>&1 & fi

test: assets
	$(GO) vet ./...
	$(GO) test -count=1 ./...

bench: build
	$(GO) run ./sites/bench/gen /tmp/evalbook-bench
	@echo "building the benchmark study (/tmp/evalbook-bench):"
	@/usr/bin/time -v ./$(BIN) build /tmp/evalbook-bench --quiet 2>&1 | grep -E "Elapsed|Maximum resident" || ./$(BIN) build /tmp/evalbook-bench --quiet
	$(GO) test -run '^$$' -bench . -benchtime 1x ./analyses/ ./report/

lint:
	@test -z "$$(gofmt -l .)" || (gofmt -l . && echo "gofmt: files above need formatting" && exit 1)
	$(GO) vet ./...

# deps installs what the tests need on a fresh Debian machine: Chromium for
# the browser test (as root, through apt).
deps:
	@command -v chromium >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
		else echo "install Debian's chromium for the browser test (sudo apt-get install chromium)" >&2; fi; }

clean:
	rm -rf bin node_modules $(ECHARTS) $(DEMO)/site $(DEMO)/data $(DEMO)/study.toml $(DEMO)/pages
