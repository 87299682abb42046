package report

import (
	"context"
	"errors"
	"github.com/evalbook/evalbook/report/kinds"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// blockingKinds is the registry plus a kind "wait" that blocks until the
// build is cancelled (or a minute passes), telling started when it runs
// and cancelled when it saw the cancellation.
func blockingKinds(started, cancelled chan<- struct{}) kinds.Registry {
	reg := kinds.Kinds()
	reg["wait"] = kinds.NewKind("wait", "blocks until the build is cancelled", func(ctx *kinds.Job, o *struct {
		Metric string `toml:"metric"`
	}) (*kinds.Output, error) {
		started <- struct{}{}
		deadline := time.Now().Add(time.Minute)
		for !ctx.Canceled() {
			if time.Now().After(deadline) {
				return &kinds.Output{Result: newInfResult(1)}, nil
			}
			time.Sleep(5 * time.Millisecond) // a poll: the analysis checks between steps
		}
		cancelled <- struct{}{}
		return nil, errors.New("stopped")
	})
	return reg
}

// TestBuildCancelled: a build cancelled while an analysis runs returns
// the context's error, writes nothing and leaves the previous site as it
// was; cancelled before it starts, it runs no analysis.
func TestBuildCancelled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := ParseArchive([]byte(smallStudy)).WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, "study.toml")
	if _, err := Build(context.Background(), Options{Manifest: manifest, Version: "test", NoCache: true}); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(dir, "site", "index.html")
	before, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(manifest)
	os.WriteFile(manifest, []byte(strings.Replace(string(src), `type    = "aggregate"`, `type    = "wait"`, 1)), 0o644)
	started, cancelled := make(chan struct{}, 1), make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	_, err = Build(ctx, Options{Manifest: manifest, Version: "test", NoCache: true, Kinds: blockingKinds(started, cancelled)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled build: %v, want context.Canceled", err)
	}
	select {
	case <-cancelled:
	default:
		t.Error("the analysis never saw the cancellation")
	}
	if after, err := os.ReadFile(index); err != nil || string(after) != string(before) {
		t.Errorf("the previous site changed: %v", err)
	}
	// Cancelled before it starts: no analysis runs.
	var ran atomic.Bool
	reg := kinds.Kinds()
	reg["wait"] = kinds.NewKind("wait", "records that it ran", func(ctx *kinds.Job, o *struct {
		Metric string `toml:"metric"`
	}) (*kinds.Output, error) {
		ran.Store(true)
		return &kinds.Output{Result: newInfResult(1)}, nil
	})
	done, stop := context.WithCancel(context.Background())
	stop()
	if _, err := Build(done, Options{Manifest: manifest, Version: "test", NoCache: true, Kinds: reg}); !errors.Is(err, context.Canceled) {
		t.Errorf("build with a cancelled context: %v", err)
	}
	if ran.Load() {
		t.Error("an analysis ran in a cancelled build")
	}
}

// TestServeCancelsSupersededRebuild: a change seen while a rebuild runs
// cancels that rebuild (its analysis sees the cancellation) and starts
// the next one.
func TestServeCancelsSupersededRebuild(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := ParseArchive([]byte(smallStudy)).WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, "study.toml")
	started, cancelled := make(chan struct{}, 8), make(chan struct{}, 8)
	var superseded atomic.Int32
	// Builds start slowly (as under the race detector): a poll while one
	// starts must not take it for a change and cancel it.
	o := Options{Manifest: manifest, Version: "test", Kinds: blockingKinds(started, cancelled),
		onSupersede: func() { superseded.Add(1) }, onBuildStart: func() { time.Sleep(60 * time.Millisecond) }}
	srv := NewServer(o, nil)
	if err := srv.Build(); err != nil { // the aggregate study: no "wait" yet
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		srv.Watch(ctx, 20*time.Millisecond)
	}()
	defer func() {
		cancel()
		<-watching // Watch cancels and waits for its last rebuild
	}()
	src, _ := os.ReadFile(manifest)
	waiting := strings.Replace(string(src), `type    = "aggregate"`, `type    = "wait"`, 1)
	// Each change is one rename, so no poll sees a half-written manifest.
	write := func(text string) {
		tmp := manifest + ".tmp"
		os.WriteFile(tmp, []byte(text), 0o644)
		if err := os.Rename(tmp, manifest); err != nil {
			t.Fatal(err)
		}
	}
	write(waiting)
	wait := func(ch chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(time.Minute): // a hang guard, not a speed budget
			t.Fatalf("no %s within a minute", what)
		}
	}
	wait(started, "rebuild")
	write(waiting + "\n# a newer change\n")
	wait(cancelled, "cancellation of the superseded rebuild")
	wait(started, "rebuild after the newer change")
	if n := superseded.Load(); n != 1 {
		t.Errorf("serve cancelled %d rebuilds, want the one superseded", n)
	}
}
