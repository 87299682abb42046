package pdf

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// pdfDoc collects a PDF file's objects, numbered from 1 in the order
// they are written.
type pdfDoc struct {
	b    []byte
	offs []int // offs[n-1]: where object n starts
	z    *zlib.Writer
	zbuf bytes.Buffer
}

// deflate is data zlib-compressed, for a /FlateDecode stream. The
// document's streams share one compressor (each new one allocates about
// a megabyte of tables).
func (d *pdfDoc) deflate(data []byte) []byte {
	d.zbuf.Reset()
	if d.z == nil {
		d.z = zlib.NewWriter(&d.zbuf)
	} else {
		d.z.Reset(&d.zbuf)
	}
	d.z.Write(data) // a bytes.Buffer takes everything
	d.z.Close()
	return d.zbuf.Bytes()
}

// obj starts object n (the next one).
func (d *pdfDoc) obj(n int) {
	if n != len(d.offs)+1 {
		panic(fmt.Sprintf("pdf object %d written after %d", n, len(d.offs)))
	}
	d.offs = append(d.offs, len(d.b))
	d.b = strconv.AppendInt(d.b, int64(n), 10)
	d.b = append(d.b, " 0 obj\n"...)
}

// dict writes object n as the dictionary body ("<<…>>" without them).
func (d *pdfDoc) dict(n int, body string) {
	d.obj(n)
	d.b = append(d.b, "<<"...)
	d.b = append(d.b, body...)
	d.b = append(d.b, ">>\nendobj\n"...)
}

// stream writes object n as a stream of data, compressed, with the
// dictionary entries extra besides /Length and /Filter.
func (d *pdfDoc) stream(n int, extra string, data []byte) {
	z := d.deflate(data)
	d.obj(n)
	d.b = append(d.b, "<</Length "...)
	d.b = strconv.AppendInt(d.b, int64(len(z)), 10)
	d.b = append(d.b, " /Filter /FlateDecode"...)
	d.b = append(d.b, extra...)
	d.b = append(d.b, ">>\nstream\n"...)
	d.b = append(d.b, z...)
	d.b = append(d.b, "\nendstream\nendobj\n"...)
}

// epoch is every PDF's creation and modification date: a figure's bytes
// depend on the drawing only, so a site (and its archive) builds
// byte-identical.
var epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// pdfDate is epoch as a PDF date string.
func pdfDate() string { return epoch.UTC().Format("D:20060102150405Z") }

// Bytes is the finished PDF file: one page of the canvas's size.
func (c *Canvas) Bytes() ([]byte, error) {
	if c.err != nil {
		return nil, c.err
	}
	if len(c.stack) != 0 {
		return nil, fmt.Errorf("pdf: %d Push without Pop", len(c.stack))
	}
	var res []byte
	next := 6 // 1 catalog, 2 pages, 3 page, 4 content, 5 info
	res = c.resources(res, "Font", "F", len(c.fonts), &next, 5)
	res = c.resources(res, "ExtGState", "GS", len(c.alphas), &next, 1)
	imgAt := next
	res = append(res, "/XObject <<"...)
	for i, im := range c.images {
		res = fmt.Appendf(res, "/Im%d %d 0 R ", i+1, next)
		next += 1 + btoi(im.alpha != nil)
	}
	res = append(res, ">>"...)
	d := &pdfDoc{b: make([]byte, 0, len(c.page)/3+4096)}
	d.b = append(d.b, "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"...)
	d.dict(1, "/Type /Catalog /Pages 2 0 R")
	d.dict(2, "/Type /Pages /Kids [3 0 R] /Count 1")
	d.dict(3, "/Type /Page /Parent 2 0 R /MediaBox ["+pageBox(c)+"] /Resources <<"+string(res)+">> /Contents 4 0 R")
	d.stream(4, "", c.page)
	d.dict(5, "/Producer (evalbook) /CreationDate ("+pdfDate()+") /ModDate ("+pdfDate()+")")
	n := 6
	for _, f := range c.fonts {
		c.writeFont(d, f, n)
		n += 5
	}
	for _, a := range c.alphas {
		d.dict(n, "/Type /ExtGState /ca "+string(num(nil, a, 4))+" /CA "+string(num(nil, a, 4)))
		n++
	}
	if n != imgAt {
		panic("pdf: resource numbering")
	}
	for _, im := range c.images {
		n = writeImage(d, im, n)
	}
	return d.finish(), nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func pageBox(c *Canvas) string {
	b := append([]byte(nil), "0 0 "...)
	b = num(b, float64(c.w), 3)
	b = append(b, ' ')
	return string(num(b, float64(c.h), 3))
}

// resources appends the resource dictionary /kind << /prefix1 n 0 R … >>
// of count resources of objs objects each, numbered from *next on.
func (c *Canvas) resources(b []byte, kind, prefix string, count int, next *int, objs int) []byte {
	b = fmt.Appendf(b, "/%s <<", kind)
	for i := range count {
		b = fmt.Appendf(b, "/%s%d %d 0 R ", prefix, i+1, *next)
		*next += objs
	}
	return append(b, ">> "...)
}

// writeImage writes im as an image XObject (and its soft mask) from
// object n on and returns the next free number.
func writeImage(d *pdfDoc, im pdfImg, n int) int {
	dims := fmt.Sprintf(" /Type /XObject /Subtype /Image /Width %d /Height %d /BitsPerComponent 8", im.w, im.h)
	if im.alpha == nil {
		d.stream(n, dims+" /ColorSpace /DeviceRGB", im.rgb)
		return n + 1
	}
	d.stream(n, fmt.Sprintf("%s /ColorSpace /DeviceRGB /SMask %d 0 R", dims, n+1), im.rgb)
	d.stream(n+1, dims+" /ColorSpace /DeviceGray", im.alpha)
	return n + 2
}

// finish appends the cross-reference table and trailer.
func (d *pdfDoc) finish() []byte {
	xref := len(d.b)
	d.b = fmt.Appendf(d.b, "xref\n0 %d\n0000000000 65535 f \n", len(d.offs)+1)
	for _, o := range d.offs {
		d.b = fmt.Appendf(d.b, "%010d 00000 n \n", o)
	}
	d.b = fmt.Appendf(d.b, "trailer\n<</Size %d /Root 1 0 R /Info 5 0 R>>\nstartxref\n%d\n%%%%EOF\n", len(d.offs)+1, xref)
	return d.b
}

// writeFont writes pf as objects n to n+4: the Type0 font, its
// CIDFontType2 descendant, the font descriptor, the subset font program
// and the ToUnicode map.
func (c *Canvas) writeFont(d *pdfDoc, pf *pdfFont, n int) {
	tt := pf.tt
	used := make([]uint16, 0, len(pf.runs))
	for g := range pf.runs {
		used = append(used, g)
	}
	slices.Sort(used)
	name := subsetTag(tt.psName, used) + "+" + tt.psName
	d.dict(n, fmt.Sprintf("/Type /Font /Subtype /Type0 /BaseFont /%s /Encoding /Identity-H /DescendantFonts [%d 0 R] /ToUnicode %d 0 R", name, n+1, n+4))
	d.dict(n+1, fmt.Sprintf("/Type /Font /Subtype /CIDFontType2 /BaseFont /%s /CIDSystemInfo <</Registry (Adobe) /Ordering (Identity) /Supplement 0>> /FontDescriptor %d 0 R /CIDToGIDMap /Identity /W [%s]", name, n+2, c.widths(tt, used)))
	em := func(v int) string { return string(num(nil, float64(v)*1000/float64(tt.unitsPerEm), 0)) }
	flags := 4 // symbolic: the glyphs are addressed by index, not a standard encoding
	if tt.italic != 0 {
		flags |= 64
	}
	d.dict(n+2, fmt.Sprintf("/Type /FontDescriptor /FontName /%s /Flags %d /FontBBox [%s %s %s %s] /ItalicAngle %s /Ascent %s /Descent %s /CapHeight %s /StemV 80 /FontFile2 %d 0 R",
		name, flags, em(tt.bbox[0]), em(tt.bbox[1]), em(tt.bbox[2]), em(tt.bbox[3]), num(nil, tt.italic, 2), em(tt.ascent), em(tt.descent), em(tt.capHeight), n+3))
	font := tt.subset(used)
	d.stream(n+3, " /Length1 "+strconv.Itoa(len(font)), font)
	d.stream(n+4, "", toUnicode(pf.runs, used))
}

// widths is the /W array of the glyphs used: their advances, in
// thousandths of an em, runs of consecutive glyphs in one array.
func (c *Canvas) widths(tt *ttFont, used []uint16) string {
	var b []byte
	for i, g := range used {
		if i == 0 || used[i-1] != g-1 {
			if i > 0 {
				b = append(b, "] "...)
			}
			b = strconv.AppendInt(b, int64(g), 10)
			b = append(b, " ["...)
		} else {
			b = append(b, ' ')
		}
		b = num(b, float64(tt.advance[g])*1000/float64(tt.unitsPerEm), 3)
	}
	if len(used) > 0 {
		b = append(b, ']')
	}
	return string(b)
}

// toUnicode is the CMap from the glyphs used to the characters they
// show (PDF 32000-1 9.10.3), for searching and copying text.
func toUnicode(runs map[uint16]rune, used []uint16) []byte {
	b := []byte("/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n" +
		"/CIDSystemInfo <</Registry (Adobe) /Ordering (UCS) /Supplement 0>> def\n" +
		"/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n" +
		"1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n")
	for i := 0; i < len(used); i += 100 {
		chunk := used[i:min(i+100, len(used))]
		b = fmt.Appendf(b, "%d beginbfchar\n", len(chunk))
		for _, g := range chunk {
			b = fmt.Appendf(b, "<%04X> <", g)
			for _, u := range utf16Units(runs[g]) {
				b = fmt.Appendf(b, "%04X", u)
			}
			b = append(b, ">\n"...)
		}
		b = append(b, "endbfchar\n"...)
	}
	return append(b, "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n"...)
}

func utf16Units(r rune) []uint16 {
	if r < 0x10000 {
		return []uint16{uint16(r)}
	}
	r -= 0x10000
	return []uint16{uint16(0xD800 + r>>10), uint16(0xDC00 + r&0x3FF)}
}
