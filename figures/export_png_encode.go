package figures

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
)

// encodePNG encodes an RGBA image as a PNG: an opaque one as an 8-bit
// RGB PNG by pngEncoder, one that is not by image/png.
func encodePNG(img *image.RGBA) ([]byte, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if !img.Opaque() || w == 0 || h == 0 {
		var buf bytes.Buffer
		err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img)
		return buf.Bytes(), err
	}
	var e pngEncoder
	e.start(w, h)
	sub := img.SubImage(img.Rect).(*image.RGBA)
	sub.Rect = image.Rect(0, 0, w, h) // rows from Pix's start
	if err := e.rows(sub, h); err != nil {
		return nil, err
	}
	return e.finish()
}

// pngEncoder encodes an opaque image as an 8-bit RGB PNG (PNG
// specification, ISO/IEC 15948) from its rows given a few at a time
// (rows), top down, so the image need never be whole in memory. Each
// row is filtered with Up or Sub, whichever leaves the smaller sum of
// absolute values (Up on a tie), and the rows are deflated at the
// fastest level. image/png tries all five filters on every row, a third
// of its encoding time for files about the same size
// (BenchmarkPNGEncode). A pngEncoder may be started again (start) to
// encode another image with the same buffers.
type pngEncoder struct {
	w, h, done int
	idat       bytes.Buffer
	z          *zlib.Writer
	prev       []byte // the last row given, RGBA; black before the first
	up, sub    []byte // a row filtered by Up and by Sub, RGBA
	line       []byte // the filter type and the filtered row, RGB (and one byte more)
	zero       []byte // the filter type Up and a row of zeros
}

// start begins a w×h image.
func (e *pngEncoder) start(w, h int) {
	e.w, e.h, e.done = w, h, 0
	e.idat.Reset()
	if e.z == nil {
		e.z, _ = zlib.NewWriterLevel(&e.idat, zlib.BestSpeed) // the level is valid
	} else {
		e.z.Reset(&e.idat)
	}
	e.prev = grow(e.prev, 4*w)
	for i := range e.prev {
		e.prev[i] = 0
		if i%4 == 3 {
			e.prev[i] = 0xff // as opaque as the rows: Up leaves 0 in alpha
		}
	}
	e.up, e.sub = grow(e.up, 4*w), grow(e.sub, 4*w)
	e.line = grow(e.line, 3*w+2)
	e.zero = grow(e.zero, 3*w+1)
	clear(e.zero)
	e.zero[0] = 2
}

// grow is b resliced to n bytes, made anew if too short.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// rows encodes the first n rows of img, the image's next rows; img is
// opaque and its width is the image's.
func (e *pngEncoder) rows(img *image.RGBA, n int) error {
	if img.Rect.Dx() != e.w || e.done+n > e.h || n > img.Rect.Dy() {
		return fmt.Errorf("png: %d rows of %d pixels given at row %d of a %d×%d image", n, img.Rect.Dx(), e.done, e.w, e.h)
	}
	prev := e.prev
	for y := range n {
		row := img.Pix[y*img.Stride : y*img.Stride+4*e.w]
		line := e.zero
		if !bytes.Equal(row, prev) { // else Up leaves zeros
			line = e.filter(row, prev)
		}
		if _, err := e.z.Write(line); err != nil {
			return fmt.Errorf("png: deflating row %d: %w", e.done+y, err)
		}
		prev = row
	}
	copy(e.prev, prev)
	e.done += n
	return nil
}

// lanes16 is the low byte of each 16-bit lane of a word.
const lanes16 = 0x00ff00ff00ff00ff

// filter filters row (RGBA) by Up and Sub, eight bytes at a time, and
// returns the filter type and the row of the one that leaves the smaller
// sum of absolute values (its bytes taken as signed), RGB. The alpha
// bytes add nothing to Up (every row is opaque, prev too) and one to
// Sub (the first pixel's, less its left neighbour's 0).
func (e *pngEncoder) filter(row, prev []byte) []byte {
	up, sub := e.up, e.sub
	var sumUp, sumSub, accUp, accSub uint64
	i := 0
	for ; i+8 <= len(row); i += 8 {
		cur := binary.LittleEndian.Uint64(row[i:])
		left := cur << 32 // the first pixel's left neighbour is 0
		if i > 0 {
			left = binary.LittleEndian.Uint64(row[i-4:])
		}
		u := subBytes(cur, binary.LittleEndian.Uint64(prev[i:]))
		s := subBytes(cur, left)
		binary.LittleEndian.PutUint64(up[i:], u)
		binary.LittleEndian.PutUint64(sub[i:], s)
		u, s = absBytes(u), absBytes(s)
		accUp += u&lanes16 + u>>8&lanes16
		accSub += s&lanes16 + s>>8&lanes16
		if i&1023 == 1016 { // 128 words of at most 256 a lane: flush before 65536
			sumUp, sumSub, accUp, accSub = sumUp+sum16(accUp), sumSub+sum16(accSub), 0, 0
		}
	}
	sumUp, sumSub = sumUp+sum16(accUp), sumSub+sum16(accSub)
	for ; i < len(row); i++ { // an odd last pixel
		up[i], sub[i] = row[i]-prev[i], row[i]
		if i >= 4 {
			sub[i] -= row[i-4]
		}
		sumUp += uint64(absByte(up[i]))
		sumSub += uint64(absByte(sub[i]))
	}
	best, typ := up, byte(2)
	if sumSub-1 < sumUp {
		best, typ = sub, 1
	}
	line := e.line
	line[0] = typ
	for x := range e.w { // four bytes stored, three kept: the next pixel overwrites the fourth
		binary.LittleEndian.PutUint32(line[1+3*x:], binary.LittleEndian.Uint32(best[4*x:]))
	}
	return line[:1+3*e.w]
}

// subBytes is a−b in each byte of the words, modulo 256.
func subBytes(a, b uint64) uint64 {
	const hi = 0x8080808080808080
	return ((a | hi) - (b &^ hi)) ^ ((a ^ ^b) & hi)
}

// absBytes is each byte's distance from 0 as a signed byte (0 to 128).
func absBytes(x uint64) uint64 {
	neg := x >> 7 & 0x0101010101010101 // 1 in each negative byte
	return (x ^ neg*0xff) + neg
}

// sum16 is the sum of a word's four 16-bit lanes.
func sum16(x uint64) uint64 {
	return x&0xffff + x>>16&0xffff + x>>32&0xffff + x>>48
}

// absByte is a filtered byte's distance from 0, as a signed byte.
func absByte(b byte) int {
	if b < 128 {
		return int(b)
	}
	return 256 - int(b)
}

// finish ends the image and returns its file.
func (e *pngEncoder) finish() ([]byte, error) {
	if e.done != e.h {
		return nil, fmt.Errorf("png: %d rows of a %d-row image encoded", e.done, e.h)
	}
	if err := e.z.Close(); err != nil {
		return nil, fmt.Errorf("png: deflating: %w", err)
	}
	out := bytes.NewBuffer(make([]byte, 0, 8+3*12+13+e.idat.Len()))
	out.WriteString("\x89PNG\r\n\x1a\n")
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(e.w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(e.h))
	ihdr[8], ihdr[9] = 8, 2 // 8 bits per sample, truecolour
	pngChunk(out, "IHDR", ihdr[:])
	pngChunk(out, "IDAT", e.idat.Bytes())
	pngChunk(out, "IEND", nil)
	return out.Bytes(), nil
}

// pngChunk appends a chunk: length, type, data, CRC of type and data.
func pngChunk(out *bytes.Buffer, typ string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	out.Write(n[:])
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(data)
	out.WriteString(typ)
	out.Write(data)
	binary.BigEndian.PutUint32(n[:], crc.Sum32())
	out.Write(n[:])
}
