package load

// Why this file exists: goldmark, which renders the narrative pages,
// costs time growing faster than the page for some shapes of Markdown
// (measured on 2 cores): lists nested 1 000 deep (1 MB) took 38 s,
// blockquotes opened one more per line 1 000 deep 9.7 s, a paragraph of
// backtick runs of growing length (500 KB) 3.5 s and twice as many 28 s,
// a table of 200 columns and 4 000 empty rows (9 KB) 5.4 s; a 300 MB
// page took 96 s and 3.7 GB. Inline parsing (code spans, brackets,
// emphasis, raw HTML) is quadratic within one paragraph, nesting costs
// per line as deep as the line lies, and a table costs rows × columns
// whatever its bytes. So before goldmark sees a page, one pass over its
// lines bounds each of these, and the page's size is checked before it
// is read at all.

import (
	"bytes"
	"fmt"

	"github.com/evalbook/evalbook/report/input"
)

const (
	// MaxPageBytes bounds a narrative page (a long paper is 100 KB of
	// Markdown).
	MaxPageBytes = 1 << 20
	// MaxBibBytes bounds the bibliography (a group's whole BibTeX
	// database is a few MB; it is read whole and parsed in one pass).
	MaxBibBytes = 16 << 20
	// maxPageNesting bounds how deep a line lies: its blockquote and
	// list markers plus its indentation in steps of four columns.
	maxPageNesting = 16
	// maxPageBlock bounds the bytes of one block (lines between blank
	// lines, outside fenced code): goldmark's inline parsing is
	// quadratic within it.
	maxPageBlock = 32 << 10
	// maxPageTableCells bounds one Markdown table's rows × columns.
	maxPageTableCells = 10_000
)

// CheckPageShape refuses a page that passes one of the limits above, at
// the line where it does. shown is the page's path as messages name it.
func CheckPageShape(shown string, src []byte) error {
	if len(src) > MaxPageBytes {
		return fmt.Errorf("%s: %d bytes, above the limit of %d (1 MiB); split it into pages", shown, len(src), MaxPageBytes)
	}
	var (
		fence      byte // '`' or '~' inside a fenced code block
		fenceLen   int
		blockStart int // line of the block's first line (0: between blocks)
		blockBytes int
		prevPipes  bool // the previous line of the block holds a '|'
		tableCols  int  // columns of the table being read (0: none)
		tableRows  int
		tableLine  int
	)
	line := 0
	for len(src) > 0 {
		line++
		raw := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			raw, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		depth, rest := containerPrefix(raw)
		if fence != 0 {
			if n := fenceRun(rest, fence); n >= fenceLen && len(bytes.TrimSpace(rest[n:])) == 0 {
				fence = 0
			}
			continue
		}
		if len(bytes.TrimSpace(rest)) == 0 {
			blockStart, blockBytes, prevPipes, tableCols = 0, 0, false, 0
			continue
		}
		if depth > maxPageNesting {
			return input.Errorf(shown, line, "blockquotes, lists and indentation nested %d deep, above the limit of %d", depth, maxPageNesting)
		}
		for _, c := range []byte{'`', '~'} {
			if n := fenceRun(rest, c); n >= 3 && (c == '~' || bytes.IndexByte(rest[n:], '`') < 0) {
				fence, fenceLen = c, n
				blockStart, blockBytes, prevPipes, tableCols = 0, 0, false, 0
				break
			}
		}
		if fence != 0 {
			continue
		}
		if blockStart == 0 {
			blockStart = line
		}
		blockBytes += len(raw) + 1
		if blockBytes > maxPageBlock {
			return input.Errorf(shown, blockStart, "a paragraph, list or table of more than %d bytes without a blank line (the limit); break it with blank lines", maxPageBlock)
		}
		switch {
		case tableCols > 0:
			tableRows++
			if tableRows*tableCols > maxPageTableCells {
				return input.Errorf(shown, tableLine, "a table of %d columns × %d rows (header included) is above the limit of %d cells; show a long table as an analysis table", tableCols, tableRows, maxPageTableCells)
			}
		case prevPipes && delimiterRow(rest):
			tableCols, tableRows, tableLine = bytes.Count(bytes.Trim(bytes.TrimSpace(rest), "|"), []byte("|"))+1, 1, line-1
		}
		prevPipes = bytes.IndexByte(rest, '|') >= 0
	}
	return nil
}

// containerPrefix measures a line's container prefix: each blockquote
// marker, list marker and four columns of indentation is one level. It
// returns the depth and the line after the prefix.
func containerPrefix(line []byte) (depth int, rest []byte) {
	cols := 0
	for i := 0; i < len(line); {
		switch c := line[i]; {
		case c == ' ':
			cols++
			i++
		case c == '\t':
			cols += 4 - cols%4
			i++
		case c == '>':
			depth++
			i = skipSpace(line, i+1)
		case (c == '-' || c == '*' || c == '+') && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t'):
			depth++
			i = skipSpace(line, i+1)
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j+1 < len(line) && (line[j] == '.' || line[j] == ')') && (line[j+1] == ' ' || line[j+1] == '\t') {
				depth++
				i = skipSpace(line, j+1)
				continue
			}
			return depth + cols/4, line[i:]
		default:
			return depth + cols/4, line[i:]
		}
	}
	return depth + cols/4, nil
}

// skipSpace skips the one space that belongs to a container marker.
func skipSpace(line []byte, i int) int {
	if i < len(line) && line[i] == ' ' {
		return i + 1
	}
	return i
}

// fenceRun is the length of the run of c that begins s.
func fenceRun(s []byte, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// delimiterRow reports a GitHub table's delimiter row: cells of dashes,
// each with optional colons, separated by '|'.
func delimiterRow(s []byte) bool {
	s = bytes.TrimSpace(s)
	if bytes.IndexByte(s, '|') < 0 && bytes.IndexByte(s, '-') < 0 {
		return false
	}
	dash := false
	for _, c := range s {
		switch c {
		case '-':
			dash = true
		case '|', ':', ' ', '\t':
		default:
			return false
		}
	}
	return dash
}
