package model

// A heatmap's cell colours (a Scale's, or the correlation heatmap's
// diverging one) and their labels' colour, for both backends.

import (
	"fmt"
	"image/color"
	"math"
)

// Heatmap ends of the colour scales: Okabe–Ito blue for strong positive
// association (Shevchenko et al. 2024: "darker blue indicates stronger correlations"),
// vermillion for negative, white at zero; grey for undefined cells.
var (
	CellPositive = Palette[0] // blue
	CellNegative = Palette[1] // vermillion
	CellMissing  = color.NRGBA{0xE0, 0xE0, 0xE0, 0xFF}
)

// CellColour is the colour of a cell of value v on a scale from lo to
// hi: with lo < 0 the scale diverges around 0 (negative → vermillion),
// otherwise it runs white → blue from lo to hi (hi → lo with reverse).
func CellColour(lo, hi float64, reverse bool, v float64) color.NRGBA {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return CellMissing
	}
	if lo < 0 {
		t := v / math.Max(math.Abs(lo), math.Abs(hi))
		if t < 0 {
			return Blend(CellNegative, math.Min(1, -t))
		}
		return Blend(CellPositive, math.Min(1, t))
	}
	t := 0.0
	if hi > lo {
		t = (v - lo) / (hi - lo)
	}
	if reverse {
		t = 1 - t
	}
	return Blend(CellPositive, math.Max(0, math.Min(1, t)))
}

// Blend mixes white with c by t in [0, 1].
func Blend(c color.NRGBA, t float64) color.NRGBA {
	mix := func(a uint8) uint8 { return uint8(math.Round(255 + t*(float64(a)-255))) }
	return color.NRGBA{mix(c.R), mix(c.G), mix(c.B), 0xFF}
}

// CellText is the text colour of a cell: black or white, whichever
// contrasts more with the fill (WCAG relative luminance), so every cell
// label reads at 4.5:1 or better.
func CellText(fill color.NRGBA) color.Color {
	l := relLuminance(fill)
	if (1.05)/(l+0.05) > (l+0.05)/0.05 {
		return color.White
	}
	return color.Black
}

// relLuminance is WCAG 2's relative luminance of c.
func relLuminance(c color.NRGBA) float64 {
	lin := func(v uint8) float64 {
		x := float64(v) / 255
		if x <= 0.03928 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

// HexOf is c as #rrggbb.
func HexOf(c color.NRGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }
