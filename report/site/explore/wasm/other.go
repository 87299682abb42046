//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

// register refuses to run outside a browser: the module is built with
// GOOS=js GOARCH=wasm (make assets) and loaded by the Explore page.
func register() {
	fmt.Fprintln(os.Stderr, "explore/wasm: build with GOOS=js GOARCH=wasm (make assets); the Explore page loads it")
	os.Exit(2)
}
