// Command hashfile prints the sha256 of a file as evalbook's provenance
// computes it (Go's crypto/sha256, SHA-NI where the CPU has it, 1 MiB
// reads). make bench-1g times it beside `wc -l` and the build: the part of
// the build's CPU time that content hashing alone costs, which no parser
// can save.
//
//	go run ./sites/bench/hashfile FILE
package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: hashfile FILE")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "hashfile:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyBuffer(h, f, make([]byte, 1<<20)); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	fmt.Printf("%x  %s\n", h.Sum(nil), path)
	return nil
}
