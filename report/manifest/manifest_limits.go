package manifest

// Why this file exists: the TOML decoder (BurntSushi/toml) costs time
// and memory that grow faster than the text for deeply nested values: a
// 48 KB manifest of inline tables nested 4 000 deep took 16 s and 714
// MB, 16 000 deep ran past two minutes, and a dotted key of 10 000 parts
// (20 KB) took 34 s. So before the decoder sees a manifest, its size is
// checked and one linear pass over its bytes measures how deep every key
// lies (tables, arrays and dotted keys together), refusing the first
// place deeper than maxManifestDepth at its line.

import "fmt"

const (
	// MaxManifestBytes bounds the manifest's size: a study of 10 000
	// declared methods with labels is about 600 KB, and decoding 1 MB of
	// keys costs about 2 s of CPU.
	MaxManifestBytes = 1 << 20
	// MaxManifestDepth bounds how deep a value lies: the parts of its
	// table header, of its dotted key and of every enclosing inline
	// table or array, less one. A real manifest stays under eight
	// ([analyses.evalrs2022.groups.fairness] with a key: four). The
	// decoder's cost per key grows with the square of its depth: 1 MB of
	// keys 16 deep costs about 3.5 s of CPU, 62 deep about 30 s.
	MaxManifestDepth = 16
	// maxManifestEntries bounds the keys, tables and arrays of a
	// manifest: each part of a key or table header (a dotted key makes
	// a table of each part), each inline table and each array. The
	// decoder spends about 5 µs on one whatever its depth, so 1 MB of
	// short keys (130 000) took 0.6 s of CPU and 1 MB of table headers
	// six parts long (360 000) 1.5 s. A study declaring 10 000 methods
	// with a name and a label has 30 000.
	maxManifestEntries = 100_000
)

// manifestSizeError is the error for a manifest of size bytes.
func manifestSizeError(name string, size int64) error {
	return &ManifestError{File: name, Msg: fmt.Sprintf("the manifest is %d bytes, above the limit of %d (1 MiB); list long tables in input files instead", size, MaxManifestBytes)}
}

// CheckManifestShape refuses a manifest above maxManifestBytes, with a
// value nested deeper than maxManifestDepth or with more than
// maxManifestEntries keys, tables and arrays, at the line where the
// limit is passed. It reads src once and only lexes what TOML needs to
// tell structure from text: comments, the four kinds of strings
// (basic, literal and their multi-line forms), brackets, braces, dots,
// '=' and line ends. It accepts everything the decoder accepts; what it
// lets through that is not TOML the decoder reports.
func CheckManifestShape(name string, src []byte) error {
	if len(src) > MaxManifestBytes {
		return manifestSizeError(name, int64(len(src)))
	}
	d := depthScan{line: 1, pending: -1}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '\n':
			d.line++
			d.chain, d.pending = 0, -1
		case '#':
			for i+1 < len(src) && src[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			i = skipTOMLString(src, i, &d.line)
		case '.':
			d.chain++
		case '=':
			d.entries += d.chain + 1
			d.pending, d.chain = d.chain, 0
		case '[', '{':
			i = d.open(src, i)
		case ']', '}':
			i = d.close(src, i)
		case ',':
			d.chain, d.pending = 0, -1
		}
		if d.base+d.sum+d.chain > MaxManifestDepth {
			return &ManifestError{File: name, Line: d.line, Msg: fmt.Sprintf("tables, arrays and dotted keys nested deeper than %d levels (the limit); flatten the value or split the key", MaxManifestDepth)}
		}
		if d.entries > maxManifestEntries {
			return &ManifestError{File: name, Line: d.line, Msg: fmt.Sprintf("more than %d keys, tables and arrays (the limit; each part of a dotted key or table header counts); list long tables in input files instead", maxManifestEntries)}
		}
	}
	return nil
}

// depthScan is checkManifestShape's state: how deep the current key lies.
type depthScan struct {
	line    int
	stack   []int // the parts each open bracket adds
	sum     int   // sum of stack
	base    int   // parts of the current [table] header
	chain   int   // dots of the key being read
	pending int   // dots of the key just before '=', until its value opens (-1: none)
	header  bool  // inside a [table] or [[array]] header
	entries int   // keys (each part), tables and arrays so far
}

// open handles '[' or '{' at src[i]: a table header, or a value's
// array or inline table. It returns the index of its last byte.
func (d *depthScan) open(src []byte, i int) int {
	if src[i] == '[' && len(d.stack) == 0 && d.pending < 0 && !d.header {
		d.header, d.base, d.chain = true, 0, 0
		if i+1 < len(src) && src[i+1] == '[' {
			i++
		}
		return i
	}
	add := 1 + max(d.pending, 0)
	d.pending, d.chain = -1, 0
	d.entries++
	d.stack = append(d.stack, add)
	d.sum += add
	return i
}

// close handles ']' or '}' at src[i].
func (d *depthScan) close(src []byte, i int) int {
	if d.header && len(d.stack) == 0 {
		d.header, d.base, d.chain = false, d.chain+1, 0
		d.entries += d.base
		if i+1 < len(src) && src[i+1] == ']' {
			i++
		}
		return i
	}
	if n := len(d.stack); n > 0 {
		d.sum -= d.stack[n-1]
		d.stack = d.stack[:n-1]
	}
	d.chain, d.pending = 0, -1
	return i
}

// skipTOMLString skips the string that opens at src[i] (a quoted key
// part or a value; basic or literal, single- or multi-line), counting
// its line ends, and returns the index of its last byte.
func skipTOMLString(src []byte, i int, line *int) int {
	c := src[i]
	if i+2 < len(src) && src[i+1] == c && src[i+2] == c {
		for i += 3; i < len(src); i++ {
			switch {
			case src[i] == '\n':
				*line++
			case c == '"' && src[i] == '\\':
				if i+1 < len(src) && src[i+1] == '\n' {
					*line++
				}
				i++
			case src[i] == c && i+2 < len(src) && src[i+1] == c && src[i+2] == c:
				// A closing delimiter may be followed by up to two more
				// quotes that belong to the string.
				i += 2
				for i+1 < len(src) && src[i+1] == c {
					i++
				}
				return i
			}
		}
		return i
	}
	for i++; i < len(src) && src[i] != c && src[i] != '\n'; i++ {
		if c == '"' && src[i] == '\\' {
			i++
		}
	}
	if i < len(src) && src[i] == '\n' {
		*line++ // an unterminated string: the decoder reports it
	}
	return i
}
