// Command wasm is the Explore page's WebAssembly module: built with
// GOOS=js GOARCH=wasm by `make assets` into themes/assets, embedded in
// the page, it registers two functions for the page's script:
//
//	evalbookExploreLoad(dataJSON)      → "" or an error message
//	evalbookExplore(stateJSON, quick)  → resultJSON ({"error": …} on a bad view)
//	evalbookExploreStability(stateJSON, progress) → resultJSON of the stability analysis,
//	                                     progress(label, done, total) told as it goes
//
// The data is the study as the build embedded it (explore.Data), the
// state a reader's view (explore.State), the result explore.Result: the
// build's own aggregate and critical_difference code, run on the view.
package main

import (
	"encoding/json"

	"github.com/evalbook/evalbook/report/site/explore"
)

func main() {
	register()
	select {} // the page calls the functions for as long as it is open
}

// session holds the study the page loaded.
type session struct{ data *explore.Data }

// load decodes the embedded study.
func (s *session) load(dataJSON string) string {
	var d explore.Data
	if err := json.Unmarshal([]byte(dataJSON), &d); err != nil {
		return "explore data: " + err.Error()
	}
	s.data = &d
	return ""
}

// explore computes a view: the result's JSON, or {"error": …}.
func (s *session) explore(stateJSON string, quick bool) string {
	compute := explore.Compute
	if quick {
		compute = explore.ComputeQuick
	}
	return s.run(stateJSON, compute)
}

// stability computes the view's stability analysis, telling progress.
func (s *session) stability(stateJSON string, progress func(string, int, int)) string {
	return s.run(stateJSON, func(d *explore.Data, st explore.State) (*explore.Result, error) {
		return explore.ComputeStability(d, st, progress)
	})
}

// run decodes a view and computes it: the result's JSON, or {"error": …}.
func (s *session) run(stateJSON string, compute func(*explore.Data, explore.State) (*explore.Result, error)) string {
	fail := func(msg string) string {
		b, _ := json.Marshal(map[string]string{"error": msg})
		return string(b)
	}
	if s.data == nil {
		return fail("no study loaded")
	}
	var st explore.State
	if err := json.Unmarshal([]byte(stateJSON), &st); err != nil {
		return fail("view: " + err.Error())
	}
	res, err := compute(s.data, st)
	if err != nil {
		return fail(err.Error())
	}
	b, err := json.Marshal(res)
	if err != nil {
		return fail(err.Error())
	}
	return string(b)
}
