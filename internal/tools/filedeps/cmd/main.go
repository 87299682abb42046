// Command filedeps prints the file-to-file dependencies of one package,
// or with -walk start:Type the walk that follows Type's fields from the
// function start (see filedeps.Walk) and how often it returns to a file.
//
//	go run ./internal/tools/filedeps/cmd ./report
//	go run ./internal/tools/filedeps/cmd -walk Build:Options ./report
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/evalbook/evalbook/internal/tools/filedeps"
)

func main() {
	walk := flag.String("walk", "", "start:Type: follow Type's fields from the function start")
	flag.Parse()
	p, err := filedeps.Load(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *walk != "" {
		start, typ, _ := strings.Cut(*walk, ":")
		steps, returns := p.Walk(start, typ)
		for _, s := range steps {
			mark := ""
			if s.Return {
				mark = "  ← back"
			}
			fmt.Printf("%-28s %s%s\n", s.File, s.Func, mark)
		}
		fmt.Printf("%d functions follow %s; the walk returns to a file it had left %d times\n", len(steps), typ, returns)
		return
	}
	for _, e := range p.Edges() {
		fmt.Printf("%s -> %s: %s\n", e.From, e.To, strings.Join(e.Names, " "))
	}
}
