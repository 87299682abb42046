package report

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rawRequest sends one request with exactly this method and Host header
// and returns the response and its body (not read for an event stream,
// which never ends).
func rawRequest(t *testing.T, addr, method, host, path string) (*http.Response, string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", method, path, host)
	req := &http.Request{Method: method}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		t.Fatalf("%s %s (Host %q): %v", method, path, host, err)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp, "" // the deferred conn.Close ends it; closing the body would wait for its end
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

// TestServeMethods: only GET and HEAD are answered; any other method gets
// 405 with Allow: GET, HEAD, and changes nothing.
func TestServeMethods(t *testing.T) {
	t.Parallel()
	dir, addr, _ := startServer(t)
	before := tree(t, dir)
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"} {
		for _, path := range []string{"/", "/index.html", "/__evalbook/events"} {
			resp, body := rawRequest(t, addr, m, addr, path)
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: %d, Allow %q", m, path, resp.StatusCode, resp.Header.Get("Allow"))
			}
			if !strings.Contains(body, "method "+m+" not allowed: evalbook serve answers GET and HEAD only") {
				t.Errorf("%s %s: body %q", m, path, body)
			}
		}
	}
	for _, path := range []string{"/index.html", "/__evalbook/events"} {
		if resp, body := rawRequest(t, addr, "HEAD", addr, path); resp.StatusCode != 200 || body != "" {
			t.Errorf("HEAD %s: %d, %d bytes of body", path, resp.StatusCode, len(body))
		}
	}
	if resp, body := rawRequest(t, addr, "GET", addr, "/index.html"); resp.StatusCode != 200 || !strings.Contains(body, "</html>") {
		t.Errorf("GET /index.html: %d", resp.StatusCode)
	}
	sameTree(t, "the study", before, tree(t, dir))
}

// TestServeHostCheck: bound to a loopback address, the server answers
// requests for localhost and loopback addresses only (with or without a
// port); any other Host (a rebound domain) gets 421.
func TestServeHostCheck(t *testing.T) {
	t.Parallel()
	_, addr, _ := startServer(t)
	_, port, _ := net.SplitHostPort(addr)
	for _, host := range []string{"localhost", "localhost:" + port, "LocalHost:" + port, "localhost.:" + port,
		"127.0.0.1", "127.0.0.1:" + port, "127.1.2.3:" + port, "[::1]", "[::1]:" + port} {
		if resp, _ := rawRequest(t, addr, "GET", host, "/index.html"); resp.StatusCode != 200 {
			t.Errorf("Host %q: %d, want 200", host, resp.StatusCode)
		}
	}
	for _, host := range []string{"evil.example", "evil.example:" + port, "127.0.0.1.evil.example:" + port,
		"localhost.evil.example", "0.0.0.0:" + port, "10.0.0.1:" + port, "[::2]:" + port, ""} {
		for _, path := range []string{"/index.html", "/data/provenance.json", "/__evalbook/events"} {
			resp, body := rawRequest(t, addr, "GET", host, path)
			if resp.StatusCode != http.StatusMisdirectedRequest {
				t.Errorf("Host %q, %s: %d, want 421", host, path, resp.StatusCode)
			}
			if !strings.Contains(body, "this server answers requests for localhost only") || strings.Contains(body, "<html") {
				t.Errorf("Host %q, %s: body %q", host, path, body)
			}
		}
	}
}

// TestServeBusyPort: a second server on a busy address fails with a
// clear error before building anything: the existing site is not
// replaced (even though a page changed) and a study never built gets no
// site.
func TestServeBusyPort(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	addr := busy.Addr().String()

	built, fresh := t.TempDir(), t.TempDir()
	for _, dir := range []string{built, fresh} {
		if err := Init(dir); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Build(context.Background(), Options{Manifest: filepath.Join(built, "study.toml"), Version: "test"}); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(built, "pages", "findings.md")
	src, _ := os.ReadFile(page)
	os.WriteFile(page, append(src, "\nA change the second server must not build.\n"...), 0o644)

	for _, dir := range []string{built, fresh} {
		before := tree(t, dir)
		srv := NewServer(Options{Manifest: filepath.Join(dir, "study.toml"), Version: "test"}, io.Discard)
		ready := make(chan string, 1)
		err := srv.Serve(context.Background(), addr, ready)
		if err == nil || !strings.Contains(err.Error(), "serve: listen tcp "+addr) || !strings.Contains(err.Error(), "address already in use") ||
			!strings.Contains(err.Error(), "choose another with --addr); nothing was built") {
			t.Errorf("serve on a busy port: %v", err)
		}
		if len(ready) > 0 {
			t.Error("the server said it was ready")
		}
		sameTree(t, dir, before, tree(t, dir))
	}
	if _, err := os.Stat(filepath.Join(fresh, "site")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a site was built: %v", err)
	}
}

// TestServeRefusedOutput: serve with an output the build refuses (the
// study directory) fails at once with that message, serves nothing and
// changes nothing.
func TestServeRefusedOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := Init(dir); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	srv := NewServer(Options{Manifest: filepath.Join(dir, "study.toml"), Out: dir, Version: "test"}, io.Discard)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a bound on a broken test, not a timing assertion
	defer cancel()
	ready := make(chan string, 1)
	err := srv.Serve(ctx, "127.0.0.1:0", ready)
	var oe *OutputError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "refusing to write the site into the study directory") {
		t.Errorf("serve -o <study dir>: %v", err)
	}
	if len(ready) > 0 {
		t.Error("the server said it was ready")
	}
	sameTree(t, "the study", before, tree(t, dir))
}

func TestLoopbackHost(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]bool{
		"localhost": true, "localhost:8080": true, "LOCALHOST": true, "localhost.": true,
		"127.0.0.1": true, "127.0.0.1:8080": true, "127.255.0.9:1": true, "[::1]": true, "[::1]:8080": true, "::1": true,
		"": false, "example.org": false, "example.org:8080": false, "localhost.example.org": false, "mylocalhost": false,
		"127.0.0.1.nip.io": false, "0.0.0.0": false, "[::]:8080": false, "192.168.1.2:8080": false, "[::1]x": false,
	} {
		if got := loopbackHost(host); got != want {
			t.Errorf("loopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}
