package input

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestStrictParseDecimal(t *testing.T) { // not parallel: AllocsPerRun
	for s, want := range map[string]float64{"0": 0, "-0": 0, "1": 1, "+2.5": 2.5, "1e3": 1000, "1E-3": 0.001, "  7 ": 7, "\t.25": 0.25, "3.": 3,
		"1.7976931348623157e308": math.MaxFloat64, "4.9406564584124654e-324": 5e-324, "000.5e+01": 5} {
		if v, bad := parseDecimal(s); bad != numOK || v != want {
			t.Errorf("parseDecimal(%q) = %v, %v; want %v", s, v, bad, want)
		}
	}
	for s, want := range map[string]numErr{"": numSyntax, " ": numSyntax, "NaN": numNaN, "-nan": numNaN, "inf": numInf, "-Infinity": numInf,
		"0x10": numHex, "-0X1p3": numHex, "1_0": numSeparator, "1_000.5": numSeparator, "0,5": numComma, "1e309": numRange,
		"1e-330": numUnderflow, "e5": numSyntax, "+": numSyntax, "1e+": numSyntax, "1 2": numSyntax, "٣": numSyntax, "1e5e5": numSyntax, "0x": numHex} {
		if _, bad := parseDecimal(s); bad != want {
			t.Errorf("parseDecimal(%q): %v, want %v", s, bad, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { parseDecimal("0.123456") }); n != 0 {
		t.Errorf("parseDecimal allocates %v times", n)
	}
	// Its own fast path gives strconv's bits.
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		s := randomDecimal(rng)
		if err := sameAsStrconv(s); err != nil {
			t.Fatal(err)
		}
	}
}

// randomDecimal writes a decimal of 1–25 digits with a point anywhere and
// sometimes an exponent.
func randomDecimal(rng *rand.Rand) string {
	var b strings.Builder
	if rng.IntN(3) == 0 {
		b.WriteByte("+-"[rng.IntN(2)])
	}
	nd := 1 + rng.IntN(25)
	point := rng.IntN(nd + 2)
	for j := 0; j < nd; j++ {
		if j == point {
			b.WriteByte('.')
		}
		d := byte('0' + rng.IntN(10))
		if rng.IntN(4) == 0 {
			d = '0'
		}
		b.WriteByte(d)
	}
	if rng.IntN(3) == 0 {
		b.WriteByte("eE"[rng.IntN(2)])
		b.WriteString(strconv.Itoa(rng.IntN(700) - 350))
	}
	return b.String()
}

// sameAsStrconv: on a plain decimal parseDecimal gives strconv.ParseFloat's
// exact bits, or refuses what strconv calls out of range or rounds to 0.
func sameAsStrconv(s string) error {
	v, bad := parseDecimal(s)
	want, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	switch {
	case err != nil && errors.Is(err, strconv.ErrRange):
		if bad != numRange {
			return fmt.Errorf("%q: strconv %v, parseDecimal %v %v", s, err, v, bad)
		}
	case err != nil:
		if bad == numOK {
			return fmt.Errorf("%q: strconv %v, parseDecimal read %v", s, err, v)
		}
	case bad == numUnderflow && want == 0:
	case bad != numOK || math.Float64bits(v) != math.Float64bits(want):
		return fmt.Errorf("%q: parseDecimal %v (%v), strconv %v", s, v, bad, want)
	}
	return nil
}

// FuzzParseDecimal: what parseDecimal accepts, strconv reads to the same
// bits; a plain decimal strconv reads, parseDecimal reads too.
// TestEightDigits: the word-at-a-time digit test takes a word exactly
// when each of its bytes is an ASCII digit (every byte value, in every
// place, among digits), and its value is what the digits spell (random
// words, and the edges). Planted: a test that lets '/' or ':' pass, or
// a value with two digits swapped, fails it.
func TestEightDigits(t *testing.T) {
	word := func(b []byte) uint64 {
		x := uint64(0)
		for i := 7; i >= 0; i-- {
			x = x<<8 | uint64(b[i])
		}
		return x
	}
	base := []byte("73529104")
	for at := range 8 {
		for c := range 256 {
			b := append([]byte(nil), base...)
			b[at] = byte(c)
			if got, want := eightDigits(word(b)), c >= '0' && c <= '9'; got != want {
				t.Fatalf("%q: eightDigits %v, want %v", b, got, want)
			}
		}
	}
	rng := rand.New(rand.NewPCG(8, 8))
	for trial := range 100000 {
		b := []byte(fmt.Sprintf("%08d", rng.IntN(100000000)))
		switch trial {
		case 0:
			b = []byte("00000000")
		case 1:
			b = []byte("99999999")
		}
		want, _ := strconv.ParseUint(string(b), 10, 32)
		if got := eightDigitsValue(word(b)); uint64(got) != want {
			t.Fatalf("%s: %d", b, got)
		}
	}
}

func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"0.5", "-1e-3", "1234567890123456789012", "9007199254740993", "1e22", "1e23", ".5e-22", "NaN", "0x1p3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, bad := parseDecimal(s)
		if fast, ok := parsePlainDecimal(s); ok {
			if full, fbad := parseDecimalFull(s); fbad != numOK || math.Float64bits(fast) != math.Float64bits(full) {
				t.Fatalf("%q: fast path %v, full path %v (%v)", s, fast, full, fbad)
			}
		}
		if bad == numOK {
			want, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || math.Float64bits(v) != math.Float64bits(want) {
				t.Fatalf("%q: parseDecimal %v, strconv %v %v", s, v, want, err)
			}
		}
		if strings.Trim(strings.TrimSpace(s), "0123456789.eE+-") == "" {
			if err := sameAsStrconv(s); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestStrictNames: names with invalid UTF-8, NUL or other control
// characters are errors, quoted with escapes; a message quotes at most
// about 200 bytes of
// TestStrictTableReaderDifferential: where encoding/csv reads a text with
// its default field-count rule (every record as long as the first), the
// table reader gives the same records; where encoding/csv finds a record
// of another length, the table reader fails at that record.
func TestStrictTableReaderDifferential(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"a,b\n1,2\n3,4\n",
		"a,b\n1,2\n3,4,5\n",
		"a,b\n1,2\n3\n",
		"a,\"b\nc\"\n1,\"2,3\"\n",
		"a,b\n\n1,2\n\n",
	} {
		if err := diffTableReader(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
}

// FuzzTableReader is the fuzz form of TestStrictTableReaderDifferential.
func FuzzTableReader(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "a,b\n1,2,3\n", "a,\"b\nc\",d\r\n1,2,3\n", "x\n1\n2\n", "a,\n1,2\n", "x\n1\n\n2\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if err := diffTableReader(s); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
	})
}

// diffTableReader compares the table reader with encoding/csv on s.
func diffTableReader(s string) error {
	if strings.Contains(s, "\r") {
		return nil // encoding/csv rewrites \r inside quotes
	}
	r := csv.NewReader(strings.NewReader(s))
	want, stdErr := r.ReadAll()
	var fieldCount bool
	if stdErr != nil {
		if !errors.Is(stdErr, csv.ErrFieldCount) {
			return nil
		}
		fieldCount = true
	}
	t := &TableReader{File: "f.csv"}
	if err := t.start(bufio.NewReader(strings.NewReader(s)), false, nil); err != nil {
		if len(want) == 0 || strings.Contains(err.Error(), "header cell") || strings.Contains(err.Error(), "in the header") || strings.Contains(err.Error(), "empty file") {
			return nil // no header, or a header the strict rules refuse
		}
		if fieldCount && strings.Contains(err.Error(), "fields, the header has") {
			return nil
		}
		return err
	}
	got := [][]string{t.Header}
	for {
		rec, err := t.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if fieldCount && strings.Contains(err.Error(), "fields, the header has") {
				return nil
			}
			if strings.Contains(err.Error(), "which has no name in the header") || strings.Contains(err.Error(), "a blank line in a file of one column") {
				return nil // the strict rules' own refusals (README), which encoding/csv has not
			}
			return err
		}
		got = append(got, append([]string(nil), rec...))
	}
	if fieldCount {
		return errors.New("encoding/csv finds a record of another length; the table reader read it")
	}
	if !reflect.DeepEqual(got, want) {
		return errors.New("records differ from encoding/csv's")
	}
	return nil
}

// TestStrictParquetNumbers: NaN and ±Inf stored in a Parquet float column
// are errors unless declared missing; text columns parse as CSV cells.
// The default cap on a decompressed input is 64 GiB.
func TestDefaultDecompressedCap(t *testing.T) {
	if got := capDecompressed(strings.NewReader("x"), 0).(*capReader).max; got != DefaultMaxDecompressed || DefaultMaxDecompressed != 64<<30 {
		t.Errorf("default cap %d", got)
	}
}

// TestPlainDecimalMatchesFull: wherever the fast path accepts a text, it
// gives the full parser's bits; it declines what is not a plain decimal.
func TestPlainDecimalMatchesFull(t *testing.T) {
	cases := []string{"0", "-0", "0.5", "-0.5", "5.", ".5", "9007199254740992", "9007199254740993", "0.1", "0.3",
		"123456789.123456789", "0.0000000000000000000001", "1234567890123456789", "12345678901234567890",
		"2.4500346750406794", "0.974990684453752", "00000000000000000001.5"}
	rng := uint64(1)
	for k := 0; k < 20000; k++ {
		rng = rng*6364136223846793005 + 1442695040888963407
		all := strconv.FormatUint(rng>>1, 10)
		digits := all[:1+int(rng%uint64(len(all)))]
		dot := int(rng>>40) % (len(digits) + 1)
		s := digits[:dot] + "." + digits[dot:]
		if rng&(1<<20) != 0 {
			s = "-" + s
		}
		cases = append(cases, s)
	}
	for _, s := range cases {
		fast, ok := parsePlainDecimal(s)
		full, bad := parseDecimalFull(s)
		if ok && (bad != numOK || math.Float64bits(fast) != math.Float64bits(full)) {
			t.Fatalf("%q: fast %v, full %v (%v)", s, fast, full, bad)
		}
	}
	for _, s := range []string{"", "-", ".", "+1", "1e5", " 1", "1 ", "1.2.3", "NaN", "0x10", "1,5", "--1"} {
		if _, ok := parsePlainDecimal(s); ok {
			t.Errorf("fast path accepted %q", s)
		}
	}
}

// TestBadNameWords: BadName, which passes plain bytes eight at a time,
// says what a byte-by-byte scan says, wherever the bad byte is.
func TestBadNameWords(t *testing.T) {
	t.Parallel()
	ref := func(s string) string {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c == 0x7f {
				return fmt.Sprintf("a control character (%U)", rune(c))
			} else if c >= 0x80 {
				return badNameRunes(s[i:])
			}
		}
		return ""
	}
	alphabet := []string{"a", "Z", " ", "~", "\x00", "\x1f", "\x7f", "\x80", "\xff", "é", "\u202e", "\u200b", "0"}
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 200000; trial++ {
		var b strings.Builder
		n := rng.IntN(30)
		for i := 0; i < n; i++ {
			if rng.IntN(8) == 0 {
				b.WriteString(alphabet[rng.IntN(len(alphabet))])
			} else {
				b.WriteString(alphabet[rng.IntN(4)])
			}
		}
		if s := b.String(); BadName(s) != ref(s) {
			t.Fatalf("BadName(%q) = %q, want %q", s, BadName(s), ref(s))
		}
	}
}

// TestNearestQuotient: a plain decimal of 17 to 19 significant digits,
// which the exact fast path cannot take as a float64 integer, reads to
// strconv's bits: random ones, and exact midpoints between two floats
// (ties, to even), with and without a fractional part.
func TestNearestQuotient(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	check := func(s string) {
		t.Helper()
		want, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := parsePlainDecimal(s); ok && math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%q: %v (%#x), strconv %v (%#x)", s, got, math.Float64bits(got), want, math.Float64bits(want))
		}
		if got, bad := parseDecimal(s); bad != numOK || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%q: parseDecimal %v (%v), strconv %v", s, got, bad, want)
		}
	}
	for _, s := range []string{"9007199254740993", "9007199254740995", "9007199254740997", "18014398509481985", "0.38685280723454163",
		"9999999999999999999", "9007199254740993.0", "0.9007199254740993", "1000000000000000001", "-0.38685280723454163"} {
		check(s)
	}
	taken := 0
	for trial := 0; trial < 300000; trial++ {
		m := 1<<53 + rng.Uint64N(10_000_000_000_000_000_000-1<<53)
		digits := strconv.FormatUint(m, 10)
		k := rng.IntN(len(digits) + 1)
		s := digits[:len(digits)-k] + "." + digits[len(digits)-k:]
		check(s)
		if _, ok := parsePlainDecimal(s); ok {
			taken++
		}
	}
	if taken < 290000 {
		t.Errorf("the quotient path took %d of 300000 long decimals", taken)
	}
	// ties: (2M+1)·2^-j for M in [2^52, 2^53), written out exactly
	for trial := 0; trial < 20000; trial++ {
		mant := 1<<52 + rng.Uint64N(1<<52)
		j := rng.IntN(3)
		x := new(big.Rat).SetFrac(new(big.Int).SetUint64(2*mant+1), new(big.Int).Lsh(big.NewInt(1), uint(j+1)))
		s := x.FloatString(j + 1)
		if len(strings.TrimLeft(strings.ReplaceAll(s, ".", ""), "0")) <= 19 {
			check(s)
		}
	}
}

// TestEiselLemire: the one-multiplication path gives strconv's bits for
// 17 to 19 significant digits and any point (m / 10^k, k ≤ 22), and
// decides nearly all of them itself (what it leaves open goes to
// nearestQuotient); its table is 10^-k truncated to 128 bits.
func TestEiselLemire(t *testing.T) {
	t.Parallel()
	if pow10Neg128[1] != [2]uint64{0xcccccccccccccccc, 0xcccccccccccccccc} || pow10Neg128[3] != [2]uint64{0x83126e978d4fdf3b, 0x645a1cac083126e9} {
		t.Fatalf("10^-1, 10^-3 as 128 bits: %x, %x", pow10Neg128[1], pow10Neg128[3])
	}
	rng := rand.New(rand.NewPCG(21, 22))
	decided, n := 0, 200000
	for trial := 0; trial < n; trial++ {
		m := 1<<53 + rng.Uint64N(10_000_000_000_000_000_000-1<<53)
		k := rng.IntN(23)
		v, ok := eiselLemire(m, k)
		if !ok {
			continue
		}
		decided++
		want, err := strconv.ParseFloat(strconv.FormatUint(m, 10)+"e-"+strconv.Itoa(k), 64)
		if err != nil || math.Float64bits(v) != math.Float64bits(want) {
			t.Fatalf("%d / 10^%d: %v (%#x), strconv %v (%#x)", m, k, v, math.Float64bits(v), want, math.Float64bits(want))
		}
	}
	if decided < n*995/1000 {
		t.Errorf("decided %d of %d", decided, n)
	}
}
