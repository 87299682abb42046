package offline

// A run of a million users asks for a hundred million item ids. Go's map
// keyed by separately allocated strings costs several cache misses per
// lookup; this open-addressing table keeps the hash beside the slot and
// every name in one arena, so a lookup is usually one slot read and one
// byte comparison. Ids are dense, in insertion order, so results never
// depend on the hash seed.

import "hash/maphash"

type interner struct {
	seed  maphash.Seed
	slots []internSlot // power-of-two length; id 0 marks an empty slot
	arena []byte
	offs  []uint32 // start of name i in arena; offs[i+1] its end
	num   *numIndex
}

// A slot is 32 bytes, two to a cache line; names of up to 12 bytes are
// compared in the slot itself, longer ones in the arena.
type internSlot struct {
	h      uint64
	id     int32 // id+1
	n      uint32
	off    uint32
	inline [12]byte
}

func newInterner() *interner {
	return &interner{seed: maphash.MakeSeed(), slots: make([]internSlot, 1024), offs: []uint32{0}}
}

// Len is the number of names.
func (t *interner) Len() int { return len(t.offs) - 1 }

// Name returns name i.
func (t *interner) Name(i int32) string { return string(t.arena[t.offs[i]:t.offs[i+1]]) }

func (t *interner) find(b []byte, h uint64) (*internSlot, bool) {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.id == 0 {
			return s, false
		}
		if s.h == h && int(s.n) == len(b) {
			if len(b) <= len(s.inline) {
				if string(s.inline[:len(b)]) == string(b) {
					return s, true
				}
			} else if string(t.arena[s.off:s.off+s.n]) == string(b) {
				return s, true
			}
		}
	}
}

// Lookup returns the id of a name.
func (t *interner) Lookup(b []byte) (int32, bool) {
	if t.num != nil {
		v, ok := parseCanonical(b, t.num.prefix)
		if !ok || v >= len(t.num.table) || t.num.table[v] == 0 {
			return 0, false
		}
		return t.num.table[v] - 1, true
	}
	s, ok := t.find(b, maphash.Bytes(t.seed, b))
	return s.id - 1, ok
}

// Intern returns the id of a name, adding it when new.
func (t *interner) Intern(b []byte) (int32, bool) {
	if t.num != nil {
		panic("offline: interner.Intern after buildNumeric")
	}
	h := maphash.Bytes(t.seed, b)
	s, ok := t.find(b, h)
	if ok {
		return s.id - 1, false
	}
	id := int32(t.Len())
	off := uint32(len(t.arena))
	t.arena = append(t.arena, b...)
	t.offs = append(t.offs, uint32(len(t.arena)))
	*s = internSlot{h: h, id: id + 1, off: off, n: uint32(len(b))}
	copy(s.inline[:], b)
	if 2*t.Len() > len(t.slots) {
		t.grow()
	}
	return id, true
}

func (t *interner) grow() {
	old := t.slots
	t.slots = make([]internSlot, 2*len(old))
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if s.id == 0 {
			continue
		}
		i := s.h & mask
		for t.slots[i].id != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

// numIndex maps names of the form prefix + canonical decimal
// ("i12345", "1032") straight to ids through an array: item ids in
// recommender data are nearly always numbered, and an array read is
// cheaper than any hash probe. It is built only when every name of the
// table has that form and the numbers are dense enough.
type numIndex struct {
	prefix string
	table  []int32 // id+1 by number; 0: no such name
}

// buildNumeric switches Lookup to a numeric index when every name fits
// one; the table must not grow afterwards.
func (t *interner) buildNumeric() {
	n := t.Len()
	if n == 0 {
		return
	}
	first := t.Name(0)
	p := 0
	for p < len(first) && (first[p] < '0' || first[p] > '9') {
		p++
	}
	prefix := first[:p]
	maxNum := 0
	nums := make([]int, n)
	for i := range n {
		b := t.arena[t.offs[i]:t.offs[i+1]]
		v, ok := parseCanonical(b, prefix)
		if !ok {
			return
		}
		nums[i] = v
		maxNum = max(maxNum, v)
	}
	if maxNum > 8*n+1024 {
		return // too sparse: the table would waste memory
	}
	idx := &numIndex{prefix: prefix, table: make([]int32, maxNum+1)}
	for i, v := range nums {
		idx.table[v] = int32(i) + 1
	}
	t.num = idx
}

// parseCanonical parses prefix + a decimal without leading zeros (so that
// "i7" and "i007" stay different names) of at most 9 digits.
func parseCanonical(b []byte, prefix string) (int, bool) {
	if len(b) <= len(prefix) || string(b[:len(prefix)]) != prefix {
		return 0, false
	}
	d := b[len(prefix):]
	if len(d) > 9 || (d[0] == '0' && len(d) > 1) {
		return 0, false
	}
	v := 0
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}
