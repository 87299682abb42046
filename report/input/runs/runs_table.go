package runs

// Runs, predictions and truth given as a table with a column mapping
// (`columns = { user = "qid", item = "docno" }`) or as Parquet are read
// through input.TableReader, the strict reader every other input uses, so the
// mapping, Parquet's typed columns and the header checks are the same as
// for results and units. Plain CSV/TSV and TREC files keep the byte-level
// readers of runs.go, which are several times faster on the hundreds of
// millions of lines a run can hold.

import (
	"fmt"
	"io"

	"github.com/evalbook/evalbook/report/input"
)

// OpenTable opens a ranked run (`user,item,rank[,score]`) or
// predictions (`user,item,prediction`) through input.TableReader, with a
// mapping of these names onto the file's columns.
func OpenTable(path, display string, predictions bool, mapping map[string]string, maxDecompressed int64) (*Reader, error) {
	t, err := input.OpenTableCapped(path, display, mapping, maxDecompressed)
	if err != nil {
		return nil, err
	}
	r := &Reader{tab: t, format: FormatTable, predictions: predictions, rcol: -1, scol: -1, pcol: -1}
	fail := func(err error) (*Reader, error) {
		t.Close()
		return nil, err
	}
	if r.ucol, err = t.Require("user"); err != nil {
		return fail(err)
	}
	if r.icol, err = t.Require("item"); err != nil {
		return fail(err)
	}
	if predictions {
		if r.pcol, err = t.Require("prediction"); err != nil {
			return fail(err)
		}
	} else {
		r.rcol, r.scol = t.Col("rank"), t.Col("score")
		if r.rcol < 0 && r.scol < 0 {
			return fail(input.Errorf(display, 1, "no column \"rank\" (or \"score\" to rank by): want user,item,rank[,score] (map yours with columns = { rank = \"…\" })"))
		}
		r.byScore = r.rcol < 0
	}
	r.want = max(r.ucol, r.icol, r.rcol, r.scol, r.pcol) + 1
	t.Only(r.ucol, r.icol, r.rcol, r.scol, r.pcol)
	return r, nil
}

// readRecord reads the next record of a table run into r.fields (only
// the columns read are filled).
func (r *Reader) readRecord() error {
	rec, err := r.tab.Next()
	if err != nil {
		return err // io.EOF at the end; positioned errors otherwise
	}
	if cap(r.fields) < len(rec) {
		r.fields = make([][]byte, len(rec))
	}
	r.fields = r.fields[:len(rec)]
	for _, c := range []int{r.ucol, r.icol, r.rcol, r.scol, r.pcol} {
		if c >= 0 {
			r.fields[c] = append(r.fields[c][:0], rec[c]...)
		}
	}
	if len(input.TrimBytes(r.fields[r.ucol])) == 0 {
		return r.errorf(r.lineNo(), "empty user id")
	}
	if len(input.TrimBytes(r.fields[r.icol])) == 0 {
		return r.errorf(r.lineNo(), "empty item id")
	}
	return nil
}

// ScanTruthTable calls fn for every row of a truth table
// (`user,item[,relevance]`, through a mapping) read by input.TableReader — a
// mapped CSV/TSV or a Parquet file — and returns its rows.
func ScanTruthTable(path, display string, mapping map[string]string, maxDecompressed int64, fn func(user, item []byte, rel float64, line int) error) (int64, error) {
	t, err := input.OpenTableCapped(path, display, mapping, maxDecompressed)
	if err != nil {
		return 0, err
	}
	defer t.Close()
	ucol, err := t.Require("user")
	if err != nil {
		return 0, err
	}
	icol, err := t.Require("item")
	if err != nil {
		return 0, err
	}
	rcol := t.Col("relevance")
	t.Only(ucol, icol, rcol)
	var rows int64
	for {
		rec, err := t.Next()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		user, item := input.TrimBytes([]byte(rec[ucol])), input.TrimBytes([]byte(rec[icol]))
		if why := input.BadName(string(user)); why != "" {
			return rows, t.Errorf(ucol, "user id %s holds %s", input.Quote(string(user)), why)
		}
		if len(item) == 0 {
			return rows, t.Errorf(icol, "empty item id")
		}
		rel := 1.0
		if rcol >= 0 {
			v, ok, err := t.Float(rcol)
			if err != nil {
				return rows, err
			}
			if !ok {
				return rows, t.Errorf(rcol, "empty relevance")
			}
			rel = v
		}
		rows++
		if err := fn(user, item, rel, t.Line()); err != nil {
			return rows, &input.InputError{File: display, Line: t.Line(), Msg: fmt.Sprint(err)}
		}
	}
}
