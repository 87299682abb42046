// Command filedeps prints the file-to-file dependencies of one package.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/evalbook/evalbook/internal/tools/filedeps"
)

func main() {
	p, err := filedeps.Load(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, e := range p.Edges() {
		fmt.Printf("%s -> %s: %s\n", e.From, e.To, strings.Join(e.Names, " "))
	}
}
