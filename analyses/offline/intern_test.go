package offline

import (
	"fmt"
	"testing"
)

// Both lookups of the interner (hash table, numeric index) agree on every
// name, present or not.
func TestOfflineIntern(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		names   []string
		numeric bool
	}{
		{[]string{"i0", "i7", "i12", "i300"}, true},
		{[]string{"i0", "i3000"}, false}, // too sparse
		{[]string{"5", "10", "0"}, true},
		{[]string{"i7", "i007"}, false}, // leading zeros: names stay apart
		{[]string{"i1", "j2"}, false},   // two prefixes
		{[]string{"i1", "i999999"}, false},
		{[]string{"a", "b", "a-long-name-over-twelve-bytes"}, false},
	} {
		tab := newInterner()
		for i, n := range c.names {
			if id, added := tab.Intern([]byte(n)); !added || id != int32(i) {
				t.Fatalf("%v: intern %q = %d, %v", c.names, n, id, added)
			}
		}
		probes := append([]string{"", "i", "i01", "i8", "07", "x", "i1000000000", "i300 ", "i300"}, c.names...)
		want := map[string]int32{}
		for _, p := range probes {
			id, ok := tab.Lookup([]byte(p))
			want[p] = -1
			if ok {
				want[p] = id
			}
		}
		tab.buildNumeric()
		if (tab.num != nil) != c.numeric {
			t.Errorf("%v: numeric index %v, want %v", c.names, tab.num != nil, c.numeric)
		}
		for _, p := range probes {
			id, ok := tab.Lookup([]byte(p))
			got := int32(-1)
			if ok {
				got = id
			}
			if got != want[p] {
				t.Errorf("%v: lookup %q = %d after buildNumeric, %d before", c.names, p, got, want[p])
			}
		}
		for i, n := range c.names {
			if tab.Name(int32(i)) != n {
				t.Errorf("name %d = %q", i, tab.Name(int32(i)))
			}
		}
	}
	// Growth keeps every name.
	tab := newInterner()
	for i := range 5000 {
		tab.Intern([]byte(fmt.Sprintf("item-%d", i)))
	}
	for i := range 5000 {
		if id, ok := tab.Lookup([]byte(fmt.Sprintf("item-%d", i))); !ok || id != int32(i) {
			t.Fatalf("item-%d: %d %v", i, id, ok)
		}
	}
}
