package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
)

// Server builds a study, serves its site on a local address, watches the
// manifest, inputs and pages, rebuilds what changed (analyses whose files
// did not change come from the cache) and reloads open browsers.
type Server struct {
	opts  Options
	log   io.Writer
	cache *Cache

	mu      sync.Mutex
	version int    // bumped on every successful rebuild
	lastErr string // the last build error, shown in the browser
	stamps  map[string]input.FileStamp
	waiters []chan struct{}
	// read and patterns are what the last build read and expanded, as
	// the input layer recorded it (Options.OnRead).
	read     []string
	patterns map[string][]string
	root     string
}

// reloadScript is added to served HTML pages only (never to built files):
// it waits for a rebuild on an event stream and reloads the page.
const reloadScript = `<script>(function(){var v=null;var es=new EventSource("/__evalbook/events");es.onmessage=function(e){if(v!==null&&e.data!==v){location.reload()}v=e.data}})()</script>`

// NewServer prepares a server; Poll is the watch interval.
func NewServer(o Options, log io.Writer) *Server {
	if log == nil {
		log = io.Discard
	}
	o.Cache = NewCache()
	if o.Kinds == nil {
		o.Kinds = kinds.Kinds()
	}
	if o.Manifest == "" {
		o.Manifest = "study.toml"
	}
	if st, err := os.Stat(o.Manifest); err == nil && st.IsDir() {
		o.Manifest = filepath.Join(o.Manifest, "study.toml")
	}
	srv := &Server{opts: o, log: log, cache: o.Cache}
	srv.opts.OnRead = func(files []string, patterns map[string][]string) {
		srv.mu.Lock()
		srv.read, srv.patterns = files, patterns
		srv.mu.Unlock()
	}
	return srv
}

// Build runs one build and records the files to watch.
func (s *Server) Build() error {
	return s.build(context.Background(), true)
}

// build runs one build; a refused output is logged only when logRefusal
// is set (Serve returns it from the first build instead). A build
// cancelled through ctx (superseded by a newer change) changes nothing:
// the files stay marked as changed, so the next build runs.
func (s *Server) build(ctx context.Context, logRefusal bool) error {
	before, previous := s.stampBefore()
	return s.runBuild(ctx, logRefusal, before, previous)
}

// stampBefore stamps what the previous build read, before a build: an
// edit made while the build runs is then seen by the next poll (and can
// cancel the build). It makes these stamps the current ones at once, so
// a poll between this call and the build's start does not take the
// build itself for a change; previous is what to restore if the build is
// cancelled. Files a build reads for the first time are stamped after it.
func (s *Server) stampBefore() (before, previous map[string]input.FileStamp) {
	before = map[string]input.FileStamp{}
	for _, p := range s.watchList() {
		before[p], _ = input.Stamp(p)
	}
	s.mu.Lock()
	previous = s.stamps
	s.stamps = before
	s.mu.Unlock()
	return before, previous
}

// runBuild runs a build after stampBefore.
func (s *Server) runBuild(ctx context.Context, logRefusal bool, before, previous map[string]input.FileStamp) error {
	if s.opts.onBuildStart != nil {
		s.opts.onBuildStart()
	}
	sum, err := Build(ctx, s.opts)
	if ctx.Err() != nil {
		s.mu.Lock()
		s.stamps = previous // still changed: the next poll rebuilds
		s.mu.Unlock()
		fmt.Fprintln(s.log, "evalbook: rebuild superseded by a newer change")
		return ctx.Err()
	}
	watched := s.watchList()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stamps = map[string]input.FileStamp{}
	for _, p := range watched {
		st, ok := before[p]
		if !ok {
			st, _ = input.Stamp(p)
		}
		s.stamps[p] = st
	}
	var refused *OutputError
	if err != nil {
		s.lastErr = err.Error()
		if logRefusal || !errors.As(err, &refused) {
			fmt.Fprintf(s.log, "evalbook: build failed:\n%v\n", err)
		}
		s.notify()
		return err
	}
	s.lastErr = ""
	s.root = sum.Out
	s.version++
	fmt.Fprintf(s.log, "evalbook: built in %.2fs (%s from cache)\n", sum.Elapsed.Seconds(), analyses.Count(sum.Cached, "analysis", "analyses"))
	s.notify()
	return nil
}

func (s *Server) notify() {
	for _, w := range s.waiters {
		close(w)
	}
	s.waiters = nil
}

// watchList is every file a rebuild depends on: the manifest, every file
// the last build read and the current matches of every pattern it
// expanded (so a new or removed match counts) — the input layer's record
// — and, so that a failed build still watches what it should have read,
// the files the manifest declares.
func (s *Server) watchList() []string {
	set := map[string]bool{s.opts.Manifest: true}
	s.mu.Lock()
	read, patterns := s.read, s.patterns
	s.mu.Unlock()
	for _, p := range read {
		set[p] = true
	}
	for pat := range patterns {
		files, _ := input.MatchPattern("", pat)
		for _, f := range files {
			set[f.Path] = true
		}
		set["pattern:"+pat+":"+strconv.Itoa(len(files))] = true
	}
	if st, err := manifest.LoadStudy(s.opts.Manifest, s.opts.Kinds); err == nil {
		in := load.NewInputs(inputConfig(st, false))
		for _, k := range []string{"results", "units", "characteristics"} {
			for _, p := range in.FilesOf(k) {
				set[p] = true
			}
		}
		for _, p := range st.Pages {
			set[filepath.Join(st.Dir, p.Source)] = true
		}
		if st.Bibliography != "" {
			set[filepath.Join(st.Dir, st.Bibliography)] = true
		}
		for _, d := range st.Datasets {
			if d.Interactions != "" {
				set[filepath.Join(st.Dir, d.Interactions)] = true
			}
		}
	}
	files := make([]string, 0, len(set))
	for p := range set {
		files = append(files, p)
	}
	sort.Strings(files)
	return files
}

// changed reports whether a watched file (or the set of them) changed.
func (s *Server) changed() bool {
	now := s.watchList()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(now) != len(s.stamps) {
		return true
	}
	for _, p := range now {
		was, ok := s.stamps[p]
		st, _ := input.Stamp(p)
		if !ok || st != was {
			return true
		}
	}
	return false
}

// Watch polls for changes every interval and rebuilds until ctx ends. A
// change seen while a rebuild runs cancels it (its result would be stale
// anyway) and starts the next one.
func (s *Server) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	var cancel context.CancelFunc
	var done chan struct{}
	superseded := 0 // builds cancelled in a row
	stop := func() {
		if cancel != nil {
			cancel()
			<-done
			cancel = nil
		}
	}
	defer stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if !s.changed() {
				continue
			}
			if done != nil {
				select {
				case <-done:
					superseded = 0
				default:
					if superseded >= 3 {
						// Inputs that never stop changing (a log being
						// written): let this build finish.
						continue
					}
					superseded++
					if s.opts.onSupersede != nil {
						s.opts.onSupersede()
					}
				}
			}
			stop()
			bctx, c := context.WithCancel(ctx)
			cancel = c // called by stop(), deferred above
			done = make(chan struct{})
			before, previous := s.stampBefore() // before the next poll can look
			go func(bctx context.Context, done chan struct{}) {
				defer close(done)
				s.runBuild(bctx, true, before, previous)
			}(bctx, done)
		}
	}
}

// Handler serves the built site. Only GET and HEAD are answered (405
// otherwise). Paths are confined to the site directory: anything that
// would leave it (.., symbolic links out of it) is refused with 403.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/__evalbook/events", s.events)
	mux.HandleFunc("/", s.file)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, fmt.Sprintf("method %s not allowed: evalbook serve answers GET and HEAD only", r.Method), http.StatusMethodNotAllowed)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// loopbackOnly wraps a handler for a server bound to a loopback address:
// a request whose Host is not a loopback name or address (localhost,
// 127.x.y.z, [::1], with or without a port) gets 421, so a web page whose
// domain was rebound to 127.0.0.1 (DNS rebinding) cannot read the site.
func loopbackOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host) {
			http.Error(w, fmt.Sprintf("misdirected request: this server answers requests for localhost only, not for Host %q", r.Host), http.StatusMisdirectedRequest)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a Host header names the local machine:
// localhost or a loopback IP address, with or without a port.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s *Server) file(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	root, lastErr := s.root, s.lastErr
	s.mu.Unlock()
	if root == "" {
		http.Error(w, "the site has not been built yet: "+lastErr, http.StatusServiceUnavailable)
		return
	}
	raw := r.URL.Path
	if strings.Contains(raw, "..") || strings.Contains(r.URL.RawPath, "%2e") || strings.Contains(strings.ToLower(r.URL.RawPath), "%2f") {
		http.Error(w, "outside the site", http.StatusForbidden)
		return
	}
	rel := filepath.FromSlash(strings.TrimPrefix(raw, "/"))
	if rel == "" || strings.HasSuffix(raw, "/") {
		rel = filepath.Join(rel, "index.html")
	}
	if lastErr != "" && withheldAfterFailure(filepath.ToSlash(rel)) {
		w.Header().Set("Cache-Control", "no-store")
		http.Error(w, "the last build failed: the data files of the previous build are withheld until a build succeeds, since they may no longer match the study's inputs (the pages show that build under the error)\n\nbuild failed:\n"+lastErr, http.StatusServiceUnavailable)
		return
	}
	path := filepath.Join(root, rel)
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil || (real != realRoot && !strings.HasPrefix(real, realRoot+string(filepath.Separator))) {
		http.Error(w, "outside the site", http.StatusForbidden)
		return
	}
	st, err := os.Stat(real)
	if err != nil || st.IsDir() {
		http.NotFound(w, r)
		return
	}
	data, err := input.ReadOwn(real)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	if strings.HasSuffix(real, ".html") {
		banner := ""
		if lastErr != "" {
			banner = `<pre style="position:fixed;bottom:0;left:0;right:0;max-height:40vh;overflow:auto;margin:0;padding:1em;background:#fee;color:#900;z-index:99">` +
				strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace("build failed (this page is the last good build; its data files answer 503 until a build succeeds):\n"+lastErr) + `</pre>`
		}
		data = bytes.Replace(data, []byte("</body>"), []byte(banner+reloadScript+"</body>"), 1)
	}
	w.Header().Set("Cache-Control", "no-store")
	http.ServeContent(w, r, real, st.ModTime(), bytes.NewReader(data))
}

// withheldAfterFailure reports whether a site file (a slash path) is
// withheld while the last build failed: the files whose numbers leave
// the browser without the error banner the pages carry — the data
// directory (CSV, JSON, LaTeX tables), paper/, the citation files and
// Markdown pages. A reviewer's script that fetches data/lb.csv after a
// failed rebuild gets the error, not the previous build's numbers as if
// they were current. The pages, their figures and assets stay, under the
// banner, so the site can still be read while it is being fixed.
func withheldAfterFailure(rel string) bool {
	switch {
	case strings.HasPrefix(rel, "data/"), strings.HasPrefix(rel, "paper/"),
		rel == "CITATION.cff", rel == "citation.bib", strings.HasSuffix(rel, ".md"):
		return true
	}
	return false
}

// events streams the build version; a browser reloads when it changes.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	if r.Method == http.MethodHead {
		return
	}
	for {
		s.mu.Lock()
		v := fmt.Sprintf("%d:%d", s.version, len(s.lastErr))
		wait := make(chan struct{})
		s.waiters = append(s.waiters, wait)
		s.mu.Unlock()
		fmt.Fprintf(w, "data: %s\n\n", v)
		fl.Flush()
		select {
		case <-r.Context().Done():
			return
		case <-wait:
		case <-time.After(25 * time.Second):
		}
	}
}

// Serve binds addr, builds, then serves until ctx ends, rebuilding on
// change. Nothing is built before the address is bound, so a server that
// cannot listen leaves the site alone. ready, when not nil, receives the
// address once the first build is done.
func (s *Server) Serve(ctx context.Context, addr string, ready chan<- string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: %w (is another server using that address? choose another with --addr); nothing was built", err)
	}
	// A failed first build is shown in the browser, unless the output is
	// refused: no rebuild can fix that.
	var refused *OutputError
	if err := s.build(ctx, false); errors.As(err, &refused) {
		ln.Close()
		return err
	}
	h := s.Handler()
	if a, ok := ln.Addr().(*net.TCPAddr); ok && a.IP.IsLoopback() {
		h = loopbackOnly(h)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go s.Watch(ctx, 250*time.Millisecond)
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	fmt.Fprintf(s.log, "evalbook: serving http://%s/ (Ctrl-C to stop)\n", ln.Addr())
	if ready != nil {
		ready <- ln.Addr().String()
	}
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
