package input

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// gzipMagic starts every gzip stream (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

// notNamedGzip is the error of a file whose bytes are a gzip stream but
// whose name does not end in .gz: read as text, its first line would be
// binary noise ("header cell holds a control character"). It is refused
// rather than read transparently, because the name decides how the file
// is read everywhere else (byte ranges read in parallel, the
// decompression cap, the tools that share the study) and an archive
// that only looks like text to evalbook is one that misleads the next
// reader.
func notNamedGzip(br *bufio.Reader, file, display string) error {
	if strings.HasSuffix(strings.ToLower(file), ".gz") {
		return nil
	}
	if b, _ := br.Peek(2); len(b) == 2 && b[0] == gzipMagic[0] && b[1] == gzipMagic[1] {
		return fmt.Errorf("%s: the file is gzip-compressed but its name does not end in .gz: rename it to %s.gz (and its entry in study.toml)", display, path.Base(strings.ReplaceAll(display, "\\", "/")))
	}
	return nil
}

// gzipReadError is the message of an error of a gzip stream met after
// line `after` was read whole, or "" when err is none: the stream ends
// early (a truncated file), its checksum or size does not match, or
// its compressed data are corrupt.
func gzipReadError(err error, after int) string {
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("truncated gzip file: the compressed data end after line %d (an interrupted copy or download?)", after)
	case errors.Is(err, gzip.ErrChecksum):
		return fmt.Sprintf("corrupt gzip file: its checksum does not match the data (after line %d)", after)
	case errors.Is(err, gzip.ErrHeader):
		return fmt.Sprintf("corrupt gzip file: a gzip member after line %d has no valid header", after)
	case errors.As(err, &corrupt):
		return fmt.Sprintf("corrupt gzip file: invalid compressed data after line %d", after)
	}
	return ""
}

// gzipOpenError is the error of a .gz file whose gzip header cannot be
// read: empty, cut inside its header, or not gzip at all.
func gzipOpenError(display string, err error) error {
	switch {
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%s: empty file: a .gz input must hold a gzip stream", display)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: truncated gzip file: it ends inside its gzip header", display)
	}
	return fmt.Errorf("%s: not a gzip file: %w", display, err)
}
