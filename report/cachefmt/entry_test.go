package cachefmt

import (
	"errors"
	"testing"
)

// TestDecodeLeading: the fields named before any other are decoded; the
// first other key ends the decoding, so what follows it is not read
// (here, not even valid JSON); a payload that is not an object, or a
// leading field of the wrong type, is damaged.
func TestDecodeLeading(t *testing.T) {
	var rows []int
	var flag bool
	fields := map[string]any{"rows": &rows, "flag": &flag}
	if err := DecodeLeading([]byte(`{"rows":[1,2],"flag":true,"rest":{not json`), fields); err != nil || len(rows) != 2 || !flag {
		t.Fatalf("rows %v, flag %v, err %v", rows, flag, err)
	}
	rows, flag = nil, false
	if err := DecodeLeading([]byte(`{"rest":1,"rows":[1]}`), fields); err != nil || rows != nil || flag {
		t.Fatalf("a field after another key was read: rows %v, flag %v, err %v", rows, flag, err)
	}
	for _, bad := range []string{``, `[1]`, `{"rows":"x"}`, `{"rows":[1,`} {
		if err := DecodeLeading([]byte(bad), fields); !errors.Is(err, ErrDamaged) {
			t.Errorf("%q: %v, want a damaged entry", bad, err)
		}
	}
}
