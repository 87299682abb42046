//go:build js && wasm

package main

import "syscall/js"

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
}
