package parquet

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"unsafe"
)

// Parquet numbers that a float64 does not hold as written.
//
// An INT64 value beyond ±2^53 whose significant bits do not fit in a
// float64's 53 would change when read as a number (9007199254740993
// reads as 9007199254740992): the decode stores NaN for it in the
// batch's numbers and notes the value (pqBig), and Float fails at its
// row. The column's text (an id column never read by Float) keeps the
// exact integer.
//
// A FLOAT (float32) value is read as the float64 nearest to its shortest
// decimal text, the text a CSV export of the same column holds and the
// one Next gives: 0.1f is 0.1, not 0.100000001490116. Widening the bits
// exactly would keep float32's rounding error and show it in every table.

// pqBig is a value of an INT64 column that a float64 cannot hold, at row
// of the batch.
type pqBig struct {
	row      int
	v        int64
	unsigned bool
}

// exactInt64 reports whether float64(x) == x exactly.
func exactInt64(x int64) bool {
	if -1<<53 <= x && x <= 1<<53 {
		return true
	}
	a := uint64(x)
	if x < 0 {
		a = -a
	}
	return exactUint64(a)
}

// exactUint64 reports whether float64(u) == u exactly.
func exactUint64(u uint64) bool {
	return bits.Len64(u)-bits.TrailingZeros64(u) <= 53
}

// int64Number is x as a float64, or NaN when it would be rounded.
func int64Number(x int64, unsigned bool) float64 {
	if unsigned {
		u := uint64(x)
		if u <= 1<<53 || exactUint64(u) {
			return float64(u)
		}
		return math.NaN()
	}
	if exactInt64(x) {
		return float64(x)
	}
	return math.NaN()
}

// float32Number is the float64 nearest to x's shortest decimal text.
func float32Number(x float32) float64 {
	f := float64(x)
	if f == math.Trunc(f) && math.Abs(f) <= 1<<24 {
		return f // a small integer: its text is itself
	}
	var buf [32]byte
	b := strconv.AppendFloat(buf[:0], f, 'g', -1, 32)
	v, err := strconv.ParseFloat(unsafe.String(&b[0], len(b)), 64)
	if err != nil {
		return f // NaN and ±Inf parse; nothing else fails
	}
	return v
}

// bigText is the message of an INT64 value a float64 cannot hold.
func (b pqBig) text() string {
	var s, r string
	if b.unsigned {
		s = strconv.FormatUint(uint64(b.v), 10)
		r = new(big.Float).SetFloat64(float64(uint64(b.v))).Text('f', 0)
	} else {
		s = strconv.FormatInt(b.v, 10)
		r = new(big.Float).SetFloat64(float64(b.v)).Text('f', 0)
	}
	return "the integer " + s + " is beyond ±2^53 and a float64 cannot hold it exactly (it would read as " + r + "); store the column as a double or a decimal, or scale it"
}
