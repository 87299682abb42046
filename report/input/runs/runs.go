// Package runs reads what offline_metrics reads: ranked runs, held-out
// truth and rating predictions, as tables (`user,item,rank[,score]`, CSV
// or TSV, optionally .gz; a mapped table or Parquet through
// input.TableReader) or in TREC format (`qid Q0 doc rank score tag` runs
// and `qid iter doc rel` qrels). Runs can hold a hundred million lines, so
// they are read through the tokenizer every loader uses (input.Lines over
// report/input's record reader: its whitespace mode for TREC, transient
// fields, no allocation per line) rather than encoding/csv, one user's
// list at a time, and every problem is reported at its file:line. A TREC
// run whose queries are not contiguous is grouped by a bounded external
// sort (trec_sort.go).
package runs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/offline"

	"github.com/evalbook/evalbook/report/input"
)

// Format is how a run or truth file is laid out.
type Format int

const (
	FormatTable Format = iota // header row, comma or tab (.tsv)
	FormatTREC                // whitespace-separated, no header
)

// FormatOf picks a file's format: "csv" and "trec" force one; "auto"
// reads .csv and .tsv (optionally .gz) as tables and anything else
// (.run, .txt, .qrels, …) as TREC.
func FormatOf(path, opt string) Format {
	switch opt {
	case "csv":
		return FormatTable
	case "trec":
		return FormatTREC
	}
	ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(strings.ToLower(path), ".gz")))
	if ext == ".csv" || ext == ".tsv" {
		return FormatTable
	}
	return FormatTREC
}

// tableColumns reads a table's header and finds the named columns (-1
// when an optional one is absent); "#" is the number of columns. Header
// cells must be names (valid UTF-8, no control character), none twice.
func tableColumns(l *input.Lines, required, optional []string) (map[string]int, error) {
	fields, err := l.Record()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file (no header row)", l.File())
	}
	if err != nil {
		return nil, err
	}
	names := make([]string, len(fields))
	cols := map[string]int{}
	for i, f := range fields {
		if why := input.BadName(string(f)); why != "" {
			return nil, l.Errorf(1, "header cell %d, %s, holds %s", i+1, input.Quote(string(f)), why)
		}
		names[i] = strings.ToLower(strings.TrimSpace(string(f)))
		if j, dup := cols[names[i]]; dup && names[i] != "" {
			return nil, l.Errorf(1, "column %s appears twice in the header (columns %d and %d); rename one", input.Quote(names[i]), j+1, i+1)
		}
		cols[names[i]] = i
	}
	out := map[string]int{"#": len(fields)}
	for _, r := range required {
		i, ok := cols[r]
		if !ok {
			return nil, l.Errorf(1, "no column %q (header: %s)%s", r, input.Clip(strings.Join(names, ",")), analyses.DidYouMean(r, names))
		}
		out[r] = i
	}
	for _, o := range optional {
		if i, ok := cols[o]; ok {
			out[o] = i
		} else {
			out[o] = -1
		}
	}
	return out, nil
}

// parseRank parses a positive decimal integer ("3", or "3.0", "3e0").
func parseRank(b []byte) (int, bool) {
	b = input.TrimBytes(b)
	if len(b) == 0 || len(b) > 9 {
		if v, ok := input.Number(b); ok && v == math.Trunc(v) && v >= -1e9 && v <= 1e9 {
			return int(v), true // "3.0"
		}
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			if v, ok := input.Number(b); ok && v == math.Trunc(v) {
				return int(v), true
			}
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// ScanTruthCapped calls fn for every row of a truth file
// (`user,item[,relevance]` or TREC qrels `qid iter doc rel`), with a
// decompressed-size cap (0: the default), and returns its rows; an error
// of fn is placed at the row's line.
func ScanTruthCapped(path, display string, format Format, maxDecompressed int64, fn func(user, item []byte, rel float64, line int) error) (int64, error) {
	l, err := input.OpenLines(path, display, format == FormatTREC, maxDecompressed)
	if err != nil {
		return 0, err
	}
	defer l.Close()
	var delim byte
	ucol, icol, rcol, want, header := 0, 2, 3, 4, 0
	if format == FormatTable {
		delim = input.Delim(path)
		cols, err := tableColumns(l, []string{"user", "item"}, []string{"relevance"})
		if err != nil {
			return 0, err
		}
		ucol, icol, rcol, header = cols["user"], cols["item"], cols["relevance"], cols["#"]
		want = max(ucol, icol, rcol) + 1
	}
	var lastUser []byte // checked as a name when it changes
	var rows int64
	for {
		fields, err := l.Record()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		if format == FormatTREC && len(fields) != 4 {
			return rows, l.Errorf(l.Line(), "%d fields, a TREC qrels line has 4: qid iter docno rel", len(fields))
		}
		if err := l.FieldCount(fields, want, header, delim); err != nil {
			return rows, err
		}
		rel := 1.0
		if format == FormatTREC {
			// trec_eval's levels are integers; a negative one is a judged
			// document left out of the pool (not relevant, unjudged for bpref).
			lv, ok := parseLevel(fields[rcol])
			if !ok {
				return rows, l.Errorf(l.Line(), "relevance level %s is not an integer (TREC qrels levels are integers: -1, 0, 1, 2, …)", input.Quote(string(fields[rcol])))
			}
			rel = float64(lv)
		} else if rcol >= 0 {
			var ok bool
			if rel, ok = input.Number(fields[rcol]); !ok {
				return rows, l.Errorf(l.Line(), "%s", input.NumberProblem("relevance", fields[rcol]))
			}
		}
		if user := input.TrimBytes(fields[ucol]); !bytes.Equal(user, lastUser) {
			if why := input.BadName(string(user)); why != "" {
				return rows, l.Errorf(l.Line(), "user id %s holds %s", input.Quote(string(user)), why)
			}
			lastUser = append(lastUser[:0], user...)
		}
		rows++
		if err := fn(input.TrimBytes(fields[ucol]), input.TrimBytes(fields[icol]), rel, l.Line()); err != nil {
			return rows, l.Errorf(l.Line(), "%v", err)
		}
	}
}

// Reader streams a run (or predictions) file one user's block at a
// time: the consecutive lines of one user, in rank order.
type Reader struct {
	l      *input.Lines
	format Format
	delim  byte
	// columns (table format); -1 when absent
	ucol, icol, rcol, scol, pcol int
	want                         int
	predictions                  bool
	byScore                      bool // order by score (TREC, or no rank column)

	header  int // fields of the header (table format)
	fields  [][]byte
	pending bool // the current line starts the next block
	eof     bool

	// sorted groups a TREC run whose queries are not contiguous.
	sorted *trecSorter
	// stamp is the file's identity when its layout was found (SetStamp).
	stamp    input.FileStamp
	stampSet bool
	path     string
	// tab reads a mapped table or a Parquet file (runs_table.go) instead
	// of l.
	tab *input.TableReader

	blockData
	Rows int64
}

// blockData is one user's block: the reader fills its own, and Stream
// swaps it with a batch's (no copy of the items).
type blockData struct {
	user  []byte
	arena []byte
	rows  []runRow
	items [][]byte
	preds []float64
}

type runRow struct {
	off, end int
	rank     int
	score    float64
	line     int
}

// OpenCapped opens a ranked run (predictions: `user,item,prediction`)
// with a decompressed-size cap (0: the default).
func OpenCapped(path, display string, format Format, predictions bool, maxDecompressed int64) (*Reader, error) {
	return OpenGrouping(path, display, format, predictions, maxDecompressed, GroupingUnknown)
}

// Grouping is what is known of a TREC run's layout before it is read.
type Grouping int

const (
	GroupingUnknown   Grouping = iota // found by a pass over the file
	QueriesContiguous                 // each query's lines are together: streamed
	QueriesApart                      // some are not: grouped by the external sort
)

// OpenGrouping is OpenCapped for a run whose layout may be known
// (TRECGroupScan, fed by the pass that hashed the file).
func OpenGrouping(path, display string, format Format, predictions bool, maxDecompressed int64, grouping Grouping) (*Reader, error) {
	l, err := input.OpenLines(path, display, format == FormatTREC, maxDecompressed)
	if err != nil {
		return nil, err
	}
	r := &Reader{l: l, format: format, predictions: predictions, rcol: -1, scol: -1, pcol: -1, path: path}
	if predictions && format == FormatTREC {
		l.Close()
		return nil, fmt.Errorf("%s: predictions must be a table (user,item,prediction), not TREC", display)
	}
	switch {
	case format == FormatTREC:
		r.ucol, r.icol, r.rcol, r.scol, r.want = 0, 2, 3, 4, 6
		r.byScore = true
		grouped := grouping == QueriesContiguous
		if grouping == GroupingUnknown {
			if grouped, err = trecGrouped(path, display, maxDecompressed); err != nil {
				l.Close()
				return nil, err
			}
		}
		if !grouped {
			if r.sorted, err = newTrecSorter(r); err != nil {
				l.Close()
				return nil, err
			}
		}
	case predictions:
		r.delim = input.Delim(path)
		cols, err := tableColumns(l, []string{"user", "item", "prediction"}, nil)
		if err != nil {
			l.Close()
			return nil, err
		}
		r.ucol, r.icol, r.pcol, r.header = cols["user"], cols["item"], cols["prediction"], cols["#"]
		r.want = max(r.ucol, r.icol, r.pcol) + 1
	default:
		r.delim = input.Delim(path)
		cols, err := tableColumns(l, []string{"user", "item"}, []string{"rank", "score"})
		if err != nil {
			l.Close()
			return nil, err
		}
		r.ucol, r.icol, r.rcol, r.scol, r.header = cols["user"], cols["item"], cols["rank"], cols["score"], cols["#"]
		if r.rcol < 0 && r.scol < 0 {
			l.Close()
			return nil, l.Errorf(1, "no column \"rank\" (or \"score\" to rank by): want user,item,rank[,score]")
		}
		r.byScore = r.rcol < 0
		r.want = max(r.ucol, r.icol, r.rcol, r.scol) + 1
	}
	return r, nil
}

// SetStamp records the file's identity at the time its layout (Grouping)
// was found, for Unchanged.
func (r *Reader) SetStamp(st input.FileStamp) { r.stamp, r.stampSet = st, true }

// Unchanged reports whether the file still has the identity SetStamp
// recorded (true when none was): a run read as streamed because it was
// found contiguous must not have changed since (any write changes its
// change time).
func (r *Reader) Unchanged() bool {
	if !r.stampSet {
		return true
	}
	now, ok := input.Stamp(r.path)
	return ok && now == r.stamp
}

// Close closes the run file (and its spilled chunks, when it was sorted).
func (r *Reader) Close() {
	if r.sorted != nil {
		r.sorted.Close()
	}
	if r.tab != nil {
		r.tab.Close()
		return
	}
	r.l.Close()
}

// lineNo is the line of the current record (a Parquet file's row).
func (r *Reader) lineNo() int {
	if r.tab != nil {
		return r.tab.Line()
	}
	return r.l.Line()
}

// file is the file's name as errors show it.
func (r *Reader) file() string {
	if r.tab != nil {
		return r.tab.File
	}
	return r.l.File()
}

func (r *Reader) errorf(line int, format string, args ...any) error {
	return &input.InputError{File: r.file(), Line: line, Msg: fmt.Sprintf(format, args...)}
}

// readLine reads and splits the next non-blank line; io.EOF at the end.
func (r *Reader) readLine() error {
	if r.tab != nil {
		return r.readRecord()
	}
	fields, err := r.l.Record() // blank lines are skipped there
	if err != nil {
		return err
	}
	r.fields = fields
	if r.format == FormatTREC && len(r.fields) < 6 {
		return r.errorf(r.lineNo(), "%d fields, a TREC run line has 6: qid Q0 docno rank score tag", len(r.fields))
	}
	// Text after the sixth field is ignored, as trec_eval ignores it.
	if err := r.l.FieldCount(r.fields, r.want, r.header, r.delim); err != nil {
		return err
	}
	if len(input.TrimBytes(r.fields[r.ucol])) == 0 {
		return r.errorf(r.lineNo(), "empty user id")
	}
	if len(input.TrimBytes(r.fields[r.icol])) == 0 {
		return r.errorf(r.lineNo(), "empty item id")
	}
	return nil
}

// addRow appends the current line to the block.
func (r *Reader) addRow() error {
	it := input.TrimBytes(r.fields[r.icol])
	row := runRow{off: len(r.arena), line: r.lineNo()}
	r.arena = append(r.arena, it...)
	row.end = len(r.arena)
	switch {
	case r.predictions:
		v, ok := input.Number(r.fields[r.pcol])
		if !ok {
			return r.errorf(r.lineNo(), "%s", input.NumberProblem("prediction", r.fields[r.pcol]))
		}
		row.score = v
	case r.byScore:
		v, ok := input.Number(r.fields[r.scol])
		if !ok {
			return r.errorf(r.lineNo(), "%s", input.NumberProblem("score", r.fields[r.scol]))
		}
		row.score = v
	default:
		k, ok := parseRank(r.fields[r.rcol])
		if !ok || k < 1 {
			return r.errorf(r.lineNo(), "rank %s is not a positive integer", input.Quote(string(r.fields[r.rcol])))
		}
		row.rank = k
	}
	r.rows = append(r.rows, row)
	return nil
}

// Next reads the next user's block: the user and the items in rank order
// (predictions: in file order, with Preds). io.EOF after the last block.
func (r *Reader) Next() (user []byte, items [][]byte, err error) {
	if r.eof {
		return nil, nil, io.EOF
	}
	r.rows = r.rows[:0]
	r.arena = r.arena[:0]
	if r.sorted != nil {
		if err := r.sorted.nextBlock(r); err != nil {
			if err == io.EOF {
				r.eof = true
			}
			return nil, nil, err
		}
		return r.finishBlock()
	}
	if !r.pending {
		if err := r.readLine(); err != nil {
			if err == io.EOF {
				r.eof = true
			}
			return nil, nil, err
		}
	}
	r.pending = false
	r.user = append(r.user[:0], input.TrimBytes(r.fields[r.ucol])...)
	if why := input.BadName(string(r.user)); why != "" {
		return nil, nil, r.errorf(r.lineNo(), "user id %s holds %s", input.Quote(string(r.user)), why)
	}
	if err := r.addRow(); err != nil {
		return nil, nil, err
	}
	for {
		err := r.readLine()
		if err == io.EOF {
			r.eof = true
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if !bytes.Equal(input.TrimBytes(r.fields[r.ucol]), r.user) {
			r.pending = true
			break
		}
		if err := r.addRow(); err != nil {
			return nil, nil, err
		}
	}
	return r.finishBlock()
}

// finishBlock orders the block Next gathered and lists its items.
func (r *Reader) finishBlock() (user []byte, items [][]byte, err error) {
	r.Rows += int64(len(r.rows))
	if err := r.order(); err != nil {
		return nil, nil, err
	}
	r.items = r.items[:0]
	r.preds = r.preds[:0]
	for _, row := range r.rows {
		r.items = append(r.items, r.arena[row.off:row.end])
		r.preds = append(r.preds, row.score)
	}
	return r.user, r.items, nil
}

// order sorts the block into rank order and checks the ranks. Ranks must
// run 1, 2, 3, … without a gap or a repeat. By score (TREC runs, and
// tables without a rank column) the order is trec_eval's: score
// descending, ties broken by item id descending (byte order), the TREC
// rank column being ignored as trec_eval ignores it.
func (r *Reader) order() error {
	if r.predictions {
		return nil
	}
	item := func(x runRow) []byte { return r.arena[x.off:x.end] }
	if r.byScore {
		cmp := func(a, b runRow) int {
			if a.score != b.score {
				if a.score > b.score {
					return -1
				}
				return 1
			}
			return bytes.Compare(item(b), item(a))
		}
		if !slices.IsSortedFunc(r.rows, cmp) {
			slices.SortStableFunc(r.rows, cmp)
		}
		return nil
	}
	cmp := func(a, b runRow) int { return a.rank - b.rank }
	if !slices.IsSortedFunc(r.rows, cmp) {
		slices.SortStableFunc(r.rows, cmp)
	}
	for i, row := range r.rows {
		switch {
		case i == 0 && row.rank != 1:
			return r.errorf(row.line, "user %s: ranks start at %d, want 1", input.Quote(string(r.user)), row.rank)
		case i > 0 && row.rank == r.rows[i-1].rank:
			return r.errorf(max(row.line, r.rows[i-1].line), "user %s: rank %d appears twice (lines %d and %d)", input.Quote(string(r.user)), row.rank, min(row.line, r.rows[i-1].line), max(row.line, r.rows[i-1].line))
		case i > 0 && row.rank != r.rows[i-1].rank+1:
			return r.errorf(row.line, "user %s: rank gap: rank %d follows rank %d", input.Quote(string(r.user)), row.rank, r.rows[i-1].rank)
		}
	}
	return nil
}

// ListError places an *offline.ListError of the current block at
// its line.
func (r *Reader) ListError(err error) error {
	var le *offline.ListError
	if !errors.As(err, &le) {
		return err
	}
	line := r.rows[0].line
	if le.Pos >= 0 && le.Pos < len(r.rows) {
		line = r.rows[le.Pos].line
	}
	if le.Other > 0 && le.Other <= len(r.rows) {
		return r.errorf(line, "%s (lines %d and %d)", le.Msg, min(line, r.rows[le.Other-1].line), max(line, r.rows[le.Other-1].line))
	}
	return r.errorf(line, "%s", le.Msg)
}

// Block is one user's block, handed from the reading goroutine to
// the evaluating one.
type Block struct {
	blockData
}

type runBatch struct {
	blocks []Block
	n      int
	err    error // after the n blocks: the reader's error (io.EOF at the end)
}

// Stream reads the file on its own goroutine, in batches of users, and
// calls fn for every block in file order on the calling goroutine, so
// parsing and evaluation use two cores. An error of fn stops the reader.
func (r *Reader) Stream(fn func(b *Block) error) error {
	const batchSize, inFlight = 256, 4
	free := make(chan *runBatch, inFlight)
	full := make(chan *runBatch, inFlight)
	done := make(chan struct{})
	for range inFlight {
		free <- &runBatch{blocks: make([]Block, batchSize)}
	}
	go func() {
		defer close(full)
		for {
			var batch *runBatch
			select {
			case batch = <-free:
			case <-done:
				return
			}
			batch.n, batch.err = 0, nil
			for batch.n < batchSize {
				if _, _, err := r.Next(); err != nil {
					batch.err = err
					break
				}
				// The block is r.blockData: swapped into the batch, not copied.
				b := &batch.blocks[batch.n]
				b.blockData, r.blockData = r.blockData, b.blockData
				batch.n++
			}
			full <- batch
			if batch.err != nil {
				return
			}
		}
	}()
	defer func() {
		close(done)
		for range full {
		}
	}()
	for batch := range full {
		for i := range batch.n {
			if err := fn(&batch.blocks[i]); err != nil {
				return err
			}
		}
		if batch.err == io.EOF {
			return nil
		}
		if batch.err != nil {
			return batch.err
		}
		free <- batch
	}
	return nil
}

// BlockError places an *offline.ListError of a block at its line.
func (r *Reader) BlockError(b *Block, err error) error {
	var le *offline.ListError
	if !errors.As(err, &le) {
		return err
	}
	line := b.rows[0].line
	if le.Pos >= 0 && le.Pos < len(b.rows) {
		line = b.rows[le.Pos].line
	}
	if le.Other > 0 && le.Other <= len(b.rows) {
		o := b.rows[le.Other-1].line
		return r.errorf(max(line, o), "%s (lines %d and %d)", le.Msg, min(line, o), max(line, o))
	}
	return r.errorf(line, "%s", le.Msg)
}

// Preds are the predictions of the block Next returned (a predictions
// file), in file order; valid until the following call.
func (r *Reader) Preds() []float64 { return r.preds }

// User is the block's user.
func (b *Block) User() []byte { return b.user }

// Items are the block's items in rank order.
func (b *Block) Items() [][]byte { return b.items }

// parseLevel parses a TREC qrels level: an optionally signed decimal
// integer of at most 9 digits.
func parseLevel(b []byte) (int, bool) {
	b = input.TrimBytes(b)
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
