package pdf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"

	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
)

// ttFont is what the PDF canvas needs of a TrueType face to embed a
// subset of it: the face's bytes, the tables it copies and the glyphs'
// places and metrics. It is read once per face and process (ttFontOf)
// and only read afterwards, so canvases drawing at once share it.
type ttFont struct {
	raw        []byte
	tables     map[string][]byte // the source's tables by tag
	loca       []uint32          // numGlyphs+1 offsets into glyf
	advance    []uint16          // per glyph, font units
	lsb        []int16           // per glyph
	unitsPerEm int
	bbox       [4]int // head's xMin, yMin, xMax, yMax, font units
	ascent     int    // hhea, font units
	descent    int
	capHeight  int
	italic     float64 // post's italicAngle, degrees
	psName     string  // PostScript name, a PDF name's characters only
}

// ttFonts holds every face read so far, by the gonum/plot face's font.
var ttFonts sync.Map // *opentype.Font → *ttFont or error

// ttFontOf reads f once per process (see ttFont).
func ttFontOf(f *opentype.Font) (*ttFont, error) {
	if v, ok := ttFonts.Load(f); ok {
		return ttFontResult(v)
	}
	var v any
	t, err := readTTFont(f)
	if v = t; err != nil {
		v = err
	}
	v, _ = ttFonts.LoadOrStore(f, v)
	return ttFontResult(v)
}

func ttFontResult(v any) (*ttFont, error) {
	if err, ok := v.(error); ok {
		return nil, err
	}
	return v.(*ttFont), nil
}

var errNotTrueType = errors.New("not a TrueType font (only glyf outlines can be embedded)")

// readTTFont reads f's bytes and the tables a subset is made of.
func readTTFont(f *opentype.Font) (*ttFont, error) {
	var src sliceWriter
	if _, err := f.WriteSourceTo(nil, &src); err != nil {
		return nil, err
	}
	t := &ttFont{raw: src, tables: map[string][]byte{}}
	b := t.raw
	if len(b) < 12 || (binary.BigEndian.Uint32(b) != 0x00010000 && string(b[:4]) != "true") {
		return nil, errNotTrueType
	}
	n := int(binary.BigEndian.Uint16(b[4:]))
	if len(b) < 12+16*n {
		return nil, errors.New("truncated table directory")
	}
	for i := range n {
		rec := b[12+16*i:]
		off, size := binary.BigEndian.Uint32(rec[8:]), binary.BigEndian.Uint32(rec[12:])
		if uint64(off)+uint64(size) > uint64(len(b)) {
			return nil, fmt.Errorf("table %q out of the file", rec[:4])
		}
		t.tables[string(rec[:4])] = b[off : off+size]
	}
	for _, tag := range []string{"head", "hhea", "maxp", "hmtx", "loca", "glyf"} {
		if t.tables[tag] == nil {
			return nil, fmt.Errorf("%w: no %q table", errNotTrueType, tag)
		}
	}
	if err := t.readMetrics(); err != nil {
		return nil, err
	}
	var buf sfnt.Buffer
	name, err := f.Name(&buf, sfnt.NameIDPostScript)
	if err != nil || name == "" {
		name = "Font"
	}
	t.psName = pdfNameChars(name)
	return t, nil
}

type sliceWriter []byte

func (w *sliceWriter) Write(p []byte) (int, error) { *w = append(*w, p...); return len(p), nil }

// readMetrics reads head, hhea, maxp, hmtx, loca, post and OS/2.
func (t *ttFont) readMetrics() error {
	head, hhea, maxp := t.tables["head"], t.tables["hhea"], t.tables["maxp"]
	if len(head) < 54 || len(hhea) < 36 || len(maxp) < 6 {
		return errors.New("truncated head, hhea or maxp table")
	}
	be := binary.BigEndian
	t.unitsPerEm = int(be.Uint16(head[18:]))
	for i := range t.bbox {
		t.bbox[i] = int(int16(be.Uint16(head[36+2*i:])))
	}
	t.ascent, t.descent = int(int16(be.Uint16(hhea[4:]))), int(int16(be.Uint16(hhea[6:])))
	t.capHeight = t.ascent
	if os2 := t.tables["OS/2"]; len(os2) >= 90 && be.Uint16(os2) >= 2 {
		t.capHeight = int(int16(be.Uint16(os2[88:])))
	}
	if post := t.tables["post"]; len(post) >= 8 {
		t.italic = float64(int32(be.Uint32(post[4:]))) / 65536
	}
	numGlyphs, numHM := int(be.Uint16(maxp[4:])), int(be.Uint16(hhea[34:]))
	hmtx, loca := t.tables["hmtx"], t.tables["loca"]
	if t.unitsPerEm == 0 || numHM == 0 || numHM > numGlyphs || len(hmtx) < 4*numHM+2*(numGlyphs-numHM) {
		return errors.New("bad hmtx table")
	}
	t.advance, t.lsb = make([]uint16, numGlyphs), make([]int16, numGlyphs)
	for g := range numGlyphs {
		if g < numHM {
			t.advance[g], t.lsb[g] = be.Uint16(hmtx[4*g:]), int16(be.Uint16(hmtx[4*g+2:]))
		} else {
			t.advance[g], t.lsb[g] = t.advance[numHM-1], int16(be.Uint16(hmtx[4*numHM+2*(g-numHM):]))
		}
	}
	t.loca = make([]uint32, numGlyphs+1)
	long := be.Uint16(head[50:]) != 0
	if (long && len(loca) < 4*(numGlyphs+1)) || (!long && len(loca) < 2*(numGlyphs+1)) {
		return errors.New("truncated loca table")
	}
	for g := range t.loca {
		if long {
			t.loca[g] = be.Uint32(loca[4*g:])
		} else {
			t.loca[g] = 2 * uint32(be.Uint16(loca[2*g:]))
		}
		if g > 0 && (t.loca[g] < t.loca[g-1] || int(t.loca[g]) > len(t.tables["glyf"])) {
			return fmt.Errorf("bad loca entry for glyph %d", g)
		}
	}
	return nil
}

// glyph is glyph g's outline.
func (t *ttFont) glyph(g uint16) []byte {
	return t.tables["glyf"][t.loca[g]:t.loca[g+1]]
}

// components lists the glyphs a composite glyph g is made of.
func (t *ttFont) components(g uint16) []uint16 {
	d := t.glyph(g)
	if len(d) < 10 || int16(binary.BigEndian.Uint16(d)) >= 0 {
		return nil
	}
	var out []uint16
	for p := 10; p+4 <= len(d); {
		flags, gid := binary.BigEndian.Uint16(d[p:]), binary.BigEndian.Uint16(d[p+2:])
		if int(gid) < len(t.advance) {
			out = append(out, gid)
		}
		p += 4 + 2 // flags, glyph, two byte-sized arguments
		if flags&0x0001 != 0 {
			p += 2 // the arguments are words
		}
		switch {
		case flags&0x0008 != 0:
			p += 2 // one scale
		case flags&0x0040 != 0:
			p += 4 // x and y scales
		case flags&0x0080 != 0:
			p += 8 // a 2×2 matrix
		}
		if flags&0x0020 == 0 {
			break
		}
	}
	return out
}

// subset is a TrueType font holding t's glyphs used (and the glyphs
// they are composed of, and .notdef) at their original indices, the
// others empty: a CIDFontType2 with an identity CIDToGIDMap then shows
// glyph g for code g. It keeps only the tables a PDF viewer reads.
func (t *ttFont) subset(used []uint16) []byte {
	keep := map[uint16]bool{0: true}
	todo := slices.Clone(used)
	for len(todo) > 0 {
		g := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if !keep[g] {
			keep[g] = true
			todo = append(todo, t.components(g)...)
		}
	}
	n := 0
	for g := range keep {
		n = max(n, int(g)+1)
	}
	be := binary.BigEndian
	var glyf []byte
	loca := make([]byte, 4*(n+1))
	hmtx := make([]byte, 4*n)
	for g := range n {
		be.PutUint32(loca[4*g:], uint32(len(glyf)))
		if keep[uint16(g)] {
			glyf = append(glyf, t.glyph(uint16(g))...)
			for len(glyf)%4 != 0 {
				glyf = append(glyf, 0)
			}
			be.PutUint16(hmtx[4*g:], t.advance[g])
			be.PutUint16(hmtx[4*g+2:], uint16(t.lsb[g]))
		}
	}
	be.PutUint32(loca[4*n:], uint32(len(glyf)))
	head := slices.Clone(t.tables["head"])
	be.PutUint32(head[8:], 0)  // checkSumAdjustment, set below
	be.PutUint16(head[50:], 1) // long loca
	hhea := slices.Clone(t.tables["hhea"])
	be.PutUint16(hhea[34:], uint16(n))
	maxp := slices.Clone(t.tables["maxp"])
	be.PutUint16(maxp[4:], uint16(n))
	tables := map[string][]byte{"glyf": glyf, "head": head, "hhea": hhea, "hmtx": hmtx, "loca": loca, "maxp": maxp}
	for _, tag := range []string{"cvt ", "fpgm", "prep"} { // the hinting programs glyphs may call
		if b := t.tables[tag]; b != nil {
			tables[tag] = b
		}
	}
	return sfntFile(tables)
}

// sfntFile is a TrueType file of tables, in tag order, with checksums.
func sfntFile(tables map[string][]byte) []byte {
	tags := make([]string, 0, len(tables))
	for tag := range tables {
		tags = append(tags, tag)
	}
	slices.Sort(tags)
	be := binary.BigEndian
	n := len(tags)
	size := 12 + 16*n
	for _, tag := range tags {
		size += (len(tables[tag]) + 3) &^ 3
	}
	out := make([]byte, 12+16*n, size)
	be.PutUint32(out, 0x00010000)
	be.PutUint16(out[4:], uint16(n))
	sel := 0
	for 2<<sel <= n {
		sel++
	}
	be.PutUint16(out[6:], uint16(16<<sel))
	be.PutUint16(out[8:], uint16(sel))
	be.PutUint16(out[10:], uint16(16*n-16<<sel))
	headAt := 0
	for i, tag := range tags {
		rec := out[12+16*i:]
		copy(rec, tag)
		be.PutUint32(rec[4:], sfntChecksum(tables[tag]))
		be.PutUint32(rec[8:], uint32(len(out)))
		be.PutUint32(rec[12:], uint32(len(tables[tag])))
		if tag == "head" {
			headAt = len(out)
		}
		out = append(out, tables[tag]...)
		for len(out)%4 != 0 {
			out = append(out, 0)
		}
	}
	be.PutUint32(out[headAt+8:], 0xB1B0AFBA-sfntChecksum(out))
	return out
}

func sfntChecksum(b []byte) uint32 {
	var sum uint32
	for i := 0; i < len(b); i += 4 {
		var w [4]byte
		copy(w[:], b[i:])
		sum += binary.BigEndian.Uint32(w[:])
	}
	return sum
}

// subsetTag is the six capital letters a subset font's name starts with
// (PDF 32000-1 9.6.4): a function of the face and the glyphs kept, so
// equal drawings give equal names.
func subsetTag(name string, used []uint16) string {
	h := fnv.New64a()
	h.Write([]byte(name))
	for _, g := range used {
		h.Write([]byte{byte(g >> 8), byte(g)})
	}
	s := h.Sum64()
	tag := make([]byte, 6)
	for i := range tag {
		tag[i] = 'A' + byte(s%26)
		s /= 26
	}
	return string(tag)
}

// pdfNameChars keeps the characters of s a PDF name may hold unescaped.
func pdfNameChars(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c > ' ' && c < 0x7f && !strings.ContainsRune("()<>[]{}/%#", rune(c)) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return "Font"
	}
	return string(out)
}
