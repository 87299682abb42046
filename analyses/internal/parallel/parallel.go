// Package parallel is the one worker pool of the analyses: a for-loop
// over [0, n) on several goroutines that turns a worker's panic into an
// error for the caller, instead of a crash of the whole program.
package parallel

import (
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// PanicError is a panic raised by fn in For: the index it was called
// with, the value passed to panic and the stack of the goroutine.
type PanicError struct {
	Index int
	Value any
	Stack []byte
}

// Error gives the index, the panic value and the stack.
func (e *PanicError) Error() string {
	return fmt.Sprintf("internal error at item %d: %v\n%s", e.Index, e.Value, e.Stack)
}

// For calls fn(i) for every i in [0, n) on up to jobs goroutines (one
// when jobs < 2, then on the caller's). Indices are handed out in
// increasing order; fn must write only to slots of its own index, so the
// outcome does not depend on scheduling. When a call panics, no new index
// is started and For returns a *PanicError for the first panic once the
// calls under way have returned.
func For(n, jobs int, fn func(i int)) error {
	jobs = min(max(jobs, 1), n)
	if n <= 0 {
		return nil
	}
	var (
		next  atomic.Int64
		stop  atomic.Bool
		once  sync.Once
		first error
	)
	work := func() {
		for !stop.Load() {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			if err := call(fn, i); err != nil {
				once.Do(func() { first = err })
				stop.Store(true)
			}
		}
	}
	if jobs == 1 {
		work()
		return first
	}
	var wg sync.WaitGroup
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	wg.Wait()
	return first
}

// call runs fn(i), turning a panic into a *PanicError.
func call(fn func(i int), i int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Index: i, Value: r, Stack: debug.Stack()}
		}
	}()
	fn(i)
	return nil
}
