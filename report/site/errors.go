package site

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Errors are several rendering errors, one per line.
type Errors []error

// Error lists the errors one per line.
func (es Errors) Error() string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// PageError is an error at a line of a page (or of the abstract, or of
// a method note): "file:line: message".
type PageError struct {
	File string
	Line int
	Msg  string
}

// Error is file:line: message.
func (e *PageError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

func pageErrorf(file string, line int, format string, args ...any) error {
	return &PageError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// maxShown is the most bytes of a page's text a message quotes.
const maxShown = 200

// shownDirective is a directive's (or citation's) text as a message shows
// it: as written when it is printable, else quoted with escapes, so that a
// terminal escape sequence or invalid UTF-8 in a page never reaches the
// terminal raw; at most maxShown bytes of it, with "…" when cut. (The
// same rule as report/input's Clip and Quote, which this package may not
// import.)
func shownDirective(s string) string {
	if printable(s) {
		if len(s) <= maxShown {
			return s
		}
		return cutUTF8(s, maxShown) + "…"
	}
	if len(s) <= maxShown {
		return strconv.Quote(s)
	}
	return strconv.Quote(cutUTF8(s, maxShown)) + "…"
}

// printable reports whether s is valid UTF-8 without control,
// bidirectional control or invisible format characters.
func printable(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return false
		case r < 0x20 || r == 0x7f || unicode.IsControl(r):
			return false
		case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
			return false
		case unicode.Is(unicode.Cf, r): // invisible format characters
			return false
		}
		i += size
	}
	return true
}

// cutUTF8 returns at most n bytes of s, not splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for i := 0; i < utf8.UTFMax-1 && n > 0 && !utf8.RuneStart(s[n]); i++ {
		n--
	}
	return s[:n]
}
