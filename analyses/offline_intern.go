package analyses

// A run of a million users asks for a hundred million item ids. Go's map
// keyed by separately allocated strings costs several cache misses per
// lookup; this open-addressing table keeps the hash beside the slot and
// every name in one arena, so a lookup is usually one slot read and one
// byte comparison. Ids are dense, in insertion order, so results never
// depend on the hash seed.

import "hash/maphash"

type offlineIntern struct {
	seed  maphash.Seed
	slots []internSlot // power-of-two length; id 0 marks an empty slot
	arena []byte
	offs  []uint32 // start of name i in arena; offs[i+1] its end
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

func newOfflineIntern() *offlineIntern {
	return &offlineIntern{seed: maphash.MakeSeed(), slots: make([]internSlot, 1024), offs: []uint32{0}}
}

// Len is the number of names.
func (t *offlineIntern) Len() int { return len(t.offs) - 1 }

// Name returns name i.
func (t *offlineIntern) Name(i int32) string { return string(t.arena[t.offs[i]:t.offs[i+1]]) }

func (t *offlineIntern) find(b []byte, h uint64) (*internSlot, bool) {
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
func (t *offlineIntern) Lookup(b []byte) (int32, bool) {
	s, ok := t.find(b, maphash.Bytes(t.seed, b))
	return s.id - 1, ok
}

// Intern returns the id of a name, adding it when new.
func (t *offlineIntern) Intern(b []byte) (int32, bool) {
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

func (t *offlineIntern) grow() {
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
