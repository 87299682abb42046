package report

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
	// maxManifestBytes bounds the manifest's size: a study of 10 000
	// declared methods with labels is about 600 KB, and decoding 1 MB of
	// keys costs about 2 s of CPU.
	maxManifestBytes = 1 << 20
	// maxManifestDepth bounds how deep a value lies: the parts of its
	// table header, of its dotted key and of every enclosing inline
	// table or array, less one. A real manifest stays under eight
	// ([analyses.evalrs2022.groups.fairness] with a key: four). The
	// decoder's cost per key grows with the square of its depth: 1 MB of
	// keys 16 deep costs about 3.5 s of CPU, 62 deep about 30 s.
	maxManifestDepth = 16
)

// manifestSizeError is the error for a manifest of size bytes.
func manifestSizeError(name string, size int64) error {
	return &ManifestError{File: name, Msg: fmt.Sprintf("the manifest is %d bytes, above the limit of %d (1 MiB); list long tables in input files instead", size, maxManifestBytes)}
}

// checkManifestShape refuses a manifest above maxManifestBytes or with
// a value nested deeper than maxManifestDepth, at the line where the
// limit is passed. It reads src once and only lexes what TOML needs to
// tell structure from text: comments, the four kinds of strings
// (basic, literal and their multi-line forms), brackets, braces, dots,
// '=' and line ends. It accepts everything the decoder accepts; what it
// lets through that is not TOML the decoder reports.
func checkManifestShape(name string, src []byte) error {
	if len(src) > maxManifestBytes {
		return manifestSizeError(name, int64(len(src)))
	}
	line := 1
	var (
		stack   []int // the parts each open bracket adds
		sum     int   // sum of stack
		base    int   // parts of the current [table] header
		chain   int   // dots of the key being read
		pending = -1  // dots of the key just before '=', until its value opens
		header  bool  // inside a [table] or [[array]] header
	)
	tooDeep := func() error {
		return &ManifestError{File: name, Line: line, Msg: fmt.Sprintf("tables, arrays and dotted keys nested deeper than %d levels (the limit); flatten the value or split the key", maxManifestDepth)}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '\n':
			line++
			chain, pending = 0, -1
		case '#':
			for i+1 < len(src) && src[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			// A string: a quoted key part (it continues the chain) or a
			// value. Multi-line forms may hold newlines, counted here.
			multi := i+2 < len(src) && src[i+1] == c && src[i+2] == c
			if multi {
				i += 3
				for ; i < len(src); i++ {
					if src[i] == '\n' {
						line++
					} else if c == '"' && src[i] == '\\' {
						if i+1 < len(src) && src[i+1] == '\n' {
							line++
						}
						i++
					} else if src[i] == c && i+2 < len(src) && src[i+1] == c && src[i+2] == c {
						// A closing delimiter may be followed by up to two
						// more quotes that belong to the string.
						i += 2
						for i+1 < len(src) && src[i+1] == c {
							i++
						}
						break
					}
				}
				continue
			}
			for i++; i < len(src) && src[i] != c && src[i] != '\n'; i++ {
				if c == '"' && src[i] == '\\' {
					i++
				}
			}
			if i < len(src) && src[i] == '\n' {
				line++ // an unterminated string: the decoder reports it
			}
		case '.':
			chain++
			if base+sum+chain > maxManifestDepth {
				return tooDeep()
			}
		case '=':
			pending, chain = chain, 0
		case '[', '{':
			if c == '[' && len(stack) == 0 && pending < 0 && !header {
				// A [table] or [[array of tables]] header.
				header, base, chain = true, 0, 0
				if i+1 < len(src) && src[i+1] == '[' {
					i++
				}
				continue
			}
			add := 1
			if pending >= 0 {
				add += pending
			}
			pending = -1
			stack = append(stack, add)
			sum += add
			chain = 0
			if base+sum > maxManifestDepth {
				return tooDeep()
			}
		case ']', '}':
			if header && len(stack) == 0 {
				header, base, chain = false, chain+1, 0
				if i+1 < len(src) && src[i+1] == ']' {
					i++
				}
				continue
			}
			if n := len(stack); n > 0 {
				sum -= stack[n-1]
				stack = stack[:n-1]
			}
			chain, pending = 0, -1
		case ',':
			chain, pending = 0, -1
		}
	}
	return nil
}
