package report

// Lockstep reading of per-(method, dataset) unit files for the
// meta-analysis. ctx.Units streams files one after another in sorted
// order, so with a layout such as runs/{method}_{dataset}.csv every
// treatment file is read before any control file and the pair builder
// would hold all treatment values. When every units file gets its method
// from the path, the two files of a dataset are instead read side by side
// (each by the shared readUnitsFile, in its own goroutine) and consumed in
// alternating batches of a fixed size, so a pair's two values arrive close
// together and the builder's waiting set stays within a batch whenever the
// two files list their units in the same order. The batches are taken in
// a fixed order, so the result does not depend on scheduling.

import (
	"errors"
	"strings"
	"sync"
)

const metaBatch = 4096

type metaFileJob struct {
	e  InputEntry
	mf matchedFile
}

// metaUnitsLockstep streams the units inputs to emit, reading each
// dataset's treatment and control files in lockstep. It returns false
// (and reads nothing) when some file does not get its method from its
// path or the entry, and the caller should use ctx.Units.
//
// A file of another method can add no pair: when it is wide (one column
// per metric) only its header is read, and seen is told its dataset and
// method if it has the metric's column — what reading it would have
// told emit, without parsing its values.
func metaUnitsLockstep(ctx *Context, treatment, control, metric string, emit func(u *UnitRow) error, seen func(dataset, method string)) (bool, error) {
	in := ctx.inputs
	if len(in.study.Inputs.Units) == 0 {
		return false, nil
	}
	type group struct {
		t, c   *metaFileJob
		others []metaFileJob
	}
	var order []string
	groups := map[string]*group{}
	for _, e := range in.study.Inputs.Units {
		files, err := in.expand(e, "units")
		if err != nil {
			return false, err
		}
		for _, mf := range files {
			if mf.Method == "" || mf.Dataset == "" {
				return false, nil
			}
			g := groups[mf.Dataset]
			if g == nil {
				g = &group{}
				groups[mf.Dataset] = g
				order = append(order, mf.Dataset)
			}
			j := metaFileJob{e, mf}
			switch {
			case mf.Method == treatment && g.t == nil:
				g.t = &j
			case mf.Method == control && g.c == nil:
				g.c = &j
			default:
				g.others = append(g.others, j)
			}
		}
	}
	for _, d := range order {
		g := groups[d]
		for _, j := range g.others {
			wide, has, err := in.unitsHeaderHas(j.e, j.mf, metric)
			if err != nil {
				return true, err
			}
			if wide {
				if has {
					seen(j.mf.Dataset, j.mf.Method)
				}
				continue
			}
			if err := in.readUnitsFile(j.e, j.mf, emit); err != nil {
				return true, err
			}
		}
		switch {
		case g.t != nil && g.c != nil:
			if err := metaLockstep(in, *g.t, *g.c, emit); err != nil {
				return true, err
			}
		case g.t != nil:
			if err := in.readUnitsFile(g.t.e, g.t.mf, emit); err != nil {
				return true, err
			}
		case g.c != nil:
			if err := in.readUnitsFile(g.c.e, g.c.mf, emit); err != nil {
				return true, err
			}
		}
	}
	return true, nil
}

var errMetaStopped = errors.New("stopped")

// unitsHeaderHas reads a units file's header only: wide reports whether
// the file is wide (a column per metric), has whether one is metric.
func (in *inputs) unitsHeaderHas(e InputEntry, mf matchedFile, metric string) (wide, has bool, err error) {
	t, err := in.openMapped(mf.Path, e.Columns)
	if err != nil {
		return false, false, err
	}
	defer t.Close()
	if t.Col("metric") >= 0 && t.Col("value") >= 0 {
		return false, false, nil
	}
	dcol, mcol, ucol := t.Col("dataset"), t.Col("method"), t.Col("unit")
	for i, h := range t.Header {
		if !reservedColumns[strings.ToLower(strings.TrimSpace(h))] && i != dcol && i != mcol && i != ucol && strings.TrimSpace(h) == metric {
			return true, true, nil
		}
	}
	return true, false, nil
}

// metaLockstep reads two files concurrently and hands their values to
// emit in alternating batches: a batch of a, then a batch of b, ….
func metaLockstep(in *inputs, a, b metaFileJob, emit func(u *UnitRow) error) error {
	stop := make(chan struct{})
	chans := [2]chan []UnitRow{make(chan []UnitRow, 2), make(chan []UnitRow, 2)}
	// Batches go back to their reader once emitted, so a pair of files
	// costs a few batches of memory, not one per 4096 rows.
	free := [2]chan []UnitRow{make(chan []UnitRow, 4), make(chan []UnitRow, 4)}
	errs := [2]error{}
	var wg sync.WaitGroup
	for i, j := range []metaFileJob{a, b} {
		wg.Add(1)
		go func(i int, j metaFileJob) {
			defer wg.Done()
			defer close(chans[i])
			batch := make([]UnitRow, 0, metaBatch)
			send := func() bool {
				select {
				case chans[i] <- batch:
					select {
					case batch = <-free[i]:
						batch = batch[:0]
					default:
						batch = make([]UnitRow, 0, metaBatch)
					}
					return true
				case <-stop:
					return false
				}
			}
			err := in.readUnitsFile(j.e, j.mf, func(u *UnitRow) error {
				batch = append(batch, *u)
				if len(batch) == metaBatch && !send() {
					return errMetaStopped
				}
				return nil
			})
			if err == nil && len(batch) > 0 {
				send()
			}
			errs[i] = err
		}(i, j)
	}
	var emitErr error
	open := [2]bool{true, true}
	for (open[0] || open[1]) && emitErr == nil {
		for i := 0; i < 2 && emitErr == nil; i++ {
			if !open[i] {
				continue
			}
			batch, ok := <-chans[i]
			if !ok {
				open[i] = false
				continue
			}
			for k := range batch {
				if emitErr = emit(&batch[k]); emitErr != nil {
					break
				}
			}
			select {
			case free[i] <- batch:
			default:
			}
		}
	}
	if emitErr != nil {
		close(stop)
		for i := range chans {
			for range chans[i] {
			}
		}
	}
	wg.Wait()
	if emitErr != nil {
		return emitErr
	}
	for _, err := range errs {
		if err != nil && !errors.Is(err, errMetaStopped) {
			return err
		}
	}
	return nil
}
