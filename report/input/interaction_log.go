package input

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/datasets"
	"github.com/evalbook/evalbook/report/input/parquet"
)

// ReadInteractionLog streams a dataset's interaction log (user, item and
// optional rating and timestamp columns) into its summary under the
// preprocessing p. Errors name the file, line and column, and the
// dataset.
func ReadInteractionLog(t *TableReader, dataset string, p datasets.Preprocessing) (*datasets.LogSummary, error) {
	col := func(name string) (int, error) {
		i := t.Col(name)
		if i < 0 {
			return -1, Errorf(t.File, 1, "dataset %q: the interaction log has no %q column (header: %s; want user,item[,rating][,timestamp])%s", dataset, name, strings.Join(t.Header, ","), parquet.SuggestColumn(name, t.Header))
		}
		return i, nil
	}
	uc, err := col("user")
	if err != nil {
		return nil, err
	}
	ic, err := col("item")
	if err != nil {
		return nil, err
	}
	rc := t.Col("rating")
	if p.HasThreshold && rc < 0 {
		return nil, Errorf(t.File, 1, "dataset %q: rating_threshold = %g needs a rating column (header: %s)", dataset, p.Threshold, strings.Join(t.Header, ","))
	}
	at := func(err error) error {
		var ie *InputError
		if errors.As(err, &ie) {
			e := *ie
			e.Msg = fmt.Sprintf("dataset %q: %s", dataset, e.Msg)
			return &e
		}
		return fmt.Errorf("dataset %q: %w", dataset, err)
	}
	l := datasets.NewInteractionLog()
	for {
		rec, err := t.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, at(err)
		}
		user, item := TrimName(rec[uc]), TrimName(rec[ic]) // as names are: " u1" is u1
		if user == "" {
			return nil, at(t.Errorf(uc, "empty user id"))
		}
		if item == "" {
			return nil, at(t.Errorf(ic, "empty item id"))
		}
		r := math.NaN()
		if rc >= 0 {
			v, ok, err := t.Float(rc)
			if err != nil {
				return nil, at(err)
			}
			if ok {
				if !analyses.Finite(v) {
					return nil, at(t.Errorf(rc, "rating is not a finite number: %q", rec[rc]))
				}
				r = v
			} else if p.HasThreshold {
				return nil, at(t.Errorf(rc, "empty rating (rating_threshold needs every rating)"))
			}
		}
		l.Add(user, item, r)
	}
	s, err := l.Finish(p)
	if err != nil {
		return nil, fmt.Errorf("%s: dataset %q: %w", t.File, dataset, err)
	}
	return s, nil
}

// TrimName trims a name's surrounding spaces, as names are read
// everywhere (" u1" is u1), with a fast path for a name without them.
func TrimName(s string) string {
	if n := len(s); n > 0 && s[0] > ' ' && s[0] < 0x80 && s[n-1] > ' ' && s[n-1] < 0x80 {
		return s
	}
	return strings.TrimSpace(s)
}
