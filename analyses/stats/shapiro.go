package stats

// Shapiro–Wilk's W by Royston's algorithm AS R94 (Appl. Statist. 1995,
// 44(4)) as scipy 1.10 runs it: scipy.stats.shapiro centres the data on
// the median, sorts it and calls the single-precision Fortran SWILK of
// scipy/stats/statlib/swilk.f with the normal quantiles of AS 111. The
// arithmetic below is float32 where the Fortran declares REAL, so W and
// its p-value agree with scipy to its single precision (the fixtures are
// checked to 1e-6) rather than differing by a float32 rounding pattern.

import (
	"fmt"
	"math"
	"sort"
)

// ShapiroWilk returns W and its p-value for x (n ≥ 3). It is an error
// when n < 3 or when the values have zero range (scipy then warns and
// returns W = 1, p = 1, which would read as perfect normality).
func ShapiroWilk(x []float64) (w, p float64, err error) {
	n := len(x)
	if n < 3 {
		return math.NaN(), math.NaN(), fmt.Errorf("shapiro-wilk needs at least 3 values, got %d", n)
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	y := make([]float32, n)
	for i, v := range s {
		y[i] = float32(v - med)
	}
	w32, p32, fault := swilk(y)
	if fault == 6 {
		return math.NaN(), math.NaN(), fmt.Errorf("shapiro-wilk is undefined: the values have zero range")
	}
	// For n = 3 at the smallest W (two equal values) the float32 formula
	// gives a p a hair below 0 (scipy 1.10 returns −9.1e-7 for
	// [−8, −508, −8]); a probability is clipped to [0, 1].
	return float64(w32), math.Min(math.Max(float64(p32), 0), 1), nil
}

// Constants of SWILK (AS R94).
const (
	swSmall = float32(1e-19)
	swSqrth = float32(0.70711)
	swQtr   = float32(0.25)
	swTh    = float32(0.375)
	swPi6   = float32(0.1909859e1)
	swStqr  = float32(0.1047198e1)
)

// Polynomial coefficients of SWILK (AS R94).
var (
	swC1 = []float32{0.0, 0.221157, -0.147981, -0.207119e1, 0.4434685e1, -0.2706056e1}
	swC2 = []float32{0.0, 0.42981e-1, -0.293762, -0.1752461e1, 0.5682633e1, -0.3582633e1}
	swC3 = []float32{0.5440, -0.39978, 0.25054e-1, -0.6714e-3}
	swC4 = []float32{0.13822e1, -0.77857, 0.62767e-1, -0.20322e-2}
	swC5 = []float32{-0.15861e1, -0.31082, -0.83751e-1, 0.38915e-2}
	swC6 = []float32{-0.4803, -0.82676e-1, 0.30302e-2}
	swG  = []float32{-0.2273e1, 0.459}
)

// swilk is SWILK with INIT = false, N1 = N, W = 0 on entry (no
// censoring), as scipy calls it.
func swilk(x []float32) (w, pw float32, fault int) {
	n := len(x)
	a := swilkCoefficients(n)
	X := func(i int) float32 { return x[i-1] }
	rng := X(n) - X(1)
	if rng < swSmall {
		return 1, 1, 6
	}
	w1 := swilkW1(x, a, rng)
	w = 1 - w1
	return w, swilkP(n, w, w1), 0
}

// swilkCoefficients returns the coefficients a[1…n/2] (1-based, as the
// Fortran) of the W statistic for n values.
func swilkCoefficients(n int) []float32 {
	an := float32(n)
	n2 := n / 2
	a := make([]float32, n2+1) // 1-based as the Fortran
	if n == 3 {
		a[1] = swSqrth
		return a
	}
	an25 := an + swQtr
	var summ2 float32
	for i := 1; i <= n2; i++ {
		a[i] = ppnd((float32(i) - swTh) / an25)
		summ2 += a[i] * a[i]
	}
	summ2 *= 2
	ssumm2 := sqrt32(summ2)
	rsn := 1 / sqrt32(an)
	a1 := poly32(swC1, rsn) - a[1]/ssumm2
	var i1 int
	var fac float32
	if n > 5 {
		i1 = 3
		a2 := -a[2]/ssumm2 + poly32(swC2, rsn)
		fac = sqrt32((summ2 - 2*(a[1]*a[1]) - 2*(a[2]*a[2])) / (1 - 2*(a1*a1) - 2*(a2*a2)))
		a[1] = a1
		a[2] = a2
	} else {
		i1 = 2
		fac = sqrt32((summ2 - 2*(a[1]*a[1])) / (1 - 2*(a1*a1)))
		a[1] = a1
	}
	for i := i1; i <= n2; i++ {
		a[i] = -a[i] / fac
	}
	return a
}

// swilkW1 returns 1 − W for the sorted values x with range rng and
// coefficients a.
func swilkW1(x, a []float32, rng float32) float32 {
	n := len(x)
	X := func(i int) float32 { return x[i-1] }
	xx := X(1) / rng
	sx := xx
	sa := -a[1]
	j := n - 1
	for i := 2; i <= n; i++ {
		xi := X(i) / rng
		sx += xi
		if i != j {
			sa += float32(sign(i-j)) * a[min(i, j)]
		}
		j--
	}
	sa /= float32(n)
	sx /= float32(n)
	var ssa, ssx, sax float32
	j = n
	for i := 1; i <= n; i++ {
		var asa float32
		if i != j {
			asa = float32(sign(i-j))*a[min(i, j)] - sa
		} else {
			asa = -sa
		}
		xsx := X(i)/rng - sx
		ssa += asa * asa
		ssx += xsx * xsx
		sax += asa * xsx
		j--
	}
	ssassx := sqrt32(ssa * ssx)
	return (ssassx - sax) * (ssassx + sax) / (ssa * ssx)
}

// swilkP is the p-value of W = 1 − w1 for n values (Royston 1995).
func swilkP(n int, w, w1 float32) float32 {
	if n == 3 {
		return swPi6 * (float32(math.Asin(float64(sqrt32(w)))) - swStqr)
	}
	an := float32(n)
	y := log32(w1)
	lxx := log32(an)
	var m, s float32
	if n <= 11 {
		gamma := poly32(swG, an)
		if y >= gamma {
			return swSmall
		}
		y = -log32(gamma - y)
		m = poly32(swC3, an)
		s = float32(math.Exp(float64(poly32(swC4, an))))
	} else {
		m = poly32(swC5, lxx)
		s = float32(math.Exp(float64(poly32(swC6, lxx))))
	}
	return float32(alnormUpper(float64((y - m) / s)))
}

func sign(i int) int {
	if i < 0 {
		return -1
	}
	return 1
}

func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }
func log32(x float32) float32  { return float32(math.Log(float64(x))) }

// poly32 is AS 181.2's POLY in single precision.
func poly32(c []float32, x float32) float32 {
	res := c[0]
	nord := len(c)
	if nord == 1 {
		return res
	}
	p := x * c[nord-1]
	if nord > 2 {
		for j := nord - 2; j >= 1; j-- {
			p = (p + c[j]) * x
		}
	}
	return res + p
}

// ppnd is AS 111 (the REAL version), the normal quantile SWILK uses.
func ppnd(p float32) float32 {
	const (
		split = float32(0.42)
		a0    = float32(2.50662823884)
		a1    = float32(-18.61500062529)
		a2    = float32(41.39119773534)
		a3    = float32(-25.44106049637)
		b1    = float32(-8.47351093090)
		b2    = float32(23.08336743743)
		b3    = float32(-21.06224101826)
		b4    = float32(3.13082909833)
		c0    = float32(-2.78718931138)
		c1    = float32(-2.29796479134)
		c2    = float32(4.85014127135)
		c3    = float32(2.32121276858)
		d1    = float32(3.54388924762)
		d2    = float32(1.63706781897)
	)
	q := p - 0.5
	if abs32(q) <= split {
		r := q * q
		return q * (((a3*r+a2)*r+a1)*r + a0) / ((((b4*r+b3)*r+b2)*r+b1)*r + 1)
	}
	r := p
	if q > 0 {
		r = 1 - p
	}
	if r <= 0 {
		return 0
	}
	r = sqrt32(-log32(r))
	v := (((c3*r+c2)*r+c1)*r + c0) / ((d2*r+d1)*r + 1)
	if q < 0 {
		v = -v
	}
	return v
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// alnormUpper is AS 66's ALNORM(x, upper = true) in double precision, as
// SWILK calls it.
func alnormUpper(x float64) float64 {
	const (
		ltone  = 7.0
		utzero = 38.0
		con    = 1.28
		a1     = 0.398942280444
		a2     = 0.399903438504
		a3     = 5.75885480458
		a4     = 29.8213557808
		a5     = 2.62433121679
		a6     = 48.6959930692
		a7     = 5.92885724438
		b1     = 0.398942280385
		b2     = 3.8052e-8
		b3     = 1.00000615302
		b4     = 3.98064794e-4
		b5     = 1.98615381364
		b6     = 0.151679116635
		b7     = 5.29330324926
		b8     = 4.8385912808
		b9     = 15.1508972451
		b10    = 0.742380924027
		b11    = 30.789933034
		b12    = 3.99019417011
	)
	up := true
	z := x
	if z < 0 {
		up = false
		z = -z
	}
	var v float64
	if z <= ltone || up && z <= utzero {
		y := 0.5 * z * z
		if z > con {
			v = b1 * math.Exp(-y) / (z - b2 + b3/(z+b4+b5/(z-b6+b7/(z+b8-b9/(z+b10+b11/(z+b12))))))
		} else {
			v = 0.5 - z*(a1-a2*y/(y+a3-a4/(y+a5+a6/(y+a7))))
		}
	}
	if !up {
		v = 1 - v
	}
	return v
}
