//go:build js && wasm

package main

import (
	"sync"
	"syscall/js"
)

// register exposes the session's functions to the page's script.
func register() {
	s := &session{}
	js.Global().Set("evalbookExploreLoad", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 1 {
			return "evalbookExploreLoad takes the study's JSON"
		}
		return s.load(args[0].String())
	}))
	js.Global().Set("evalbookExplore", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 2 {
			return `{"error":"evalbookExplore takes the view's JSON and whether to leave the Bayesian test out"}`
		}
		return s.explore(args[0].String(), args[1].Truthy())
	}))
	js.Global().Set("evalbookExploreStability", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) != 2 {
			return `{"error":"evalbookExploreStability takes the view's JSON and a progress function"}`
		}
		report := args[1]
		var mu sync.Mutex
		return s.stability(args[0].String(), func(label string, done, total int) {
			mu.Lock() // told from the analysis's goroutines
			defer mu.Unlock()
			report.Invoke(label, done, total)
		})
	}))
}
