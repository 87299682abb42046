// Package paper writes what a manuscript takes from a study: every table
// as a LaTeX table (booktabs) rendered from its presentation
// (model.Table: labels, one format per column, marks, paper view), and
// the key numbers of every analysis as LaTeX macros (evalbook.tex). It
// only formats: every number comes from the analyses' own tables and
// results.
package paper

import (
	"math"
	"strconv"
	"strings"
)

// Number formats a number as the site's key findings show it: an integer
// as it is, four significant digits in fixed notation between 1e-3 and
// 1e6 — its significant zeros kept (0.04200, as analyses.FormatSig), but
// a value that fewer digits write exactly in that form (0.042) — else
// four significant digits in scientific notation (Go's %g).
func Number(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e9 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	if math.Abs(x) >= 1e-3 && math.Abs(x) < 1e6 {
		digits := 4 - int(math.Floor(math.Log10(math.Abs(x)))) - 1
		if digits < 0 {
			digits = 0
		}
		s := strconv.FormatFloat(x, 'f', digits, 64)
		if r, _ := strconv.ParseFloat(s, 64); digits > 0 && math.Abs(r) >= math.Pow(10, float64(4-digits)) {
			s = strconv.FormatFloat(x, 'f', digits-1, 64) // rounding carried: 0.99996 is 1.000
		}
		if short := strconv.FormatFloat(x, 'f', -1, 64); len(short) < len(s) {
			return short // exact in fewer digits
		}
		return s
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// Escape makes text safe in LaTeX's text mode: the ten special
// characters, the characters OT1 fonts print as other glyphs (< > |),
// and the non-ASCII symbols evalbook's own titles use, which pdflatex's
// UTF-8 input does not know, become commands.
func Escape(s string) string {
	var units []string // one per rune, so a combining accent can wrap the last
	for _, r := range s {
		if acc, ok := accents[r]; ok {
			if len(units) > 0 { // an accent on nothing is dropped
				units[len(units)-1] = accent(units[len(units)-1], acc)
			}
			continue
		}
		units = append(units, escapeRune(r))
	}
	return strings.Join(units, "")
}

// accents are the combining accents (ŷ, β̂, x̄ …) as LaTeX's math and
// text accents.
var accents = map[rune][2]string{
	'\u0302': {`\hat`, `\^`}, '\u0303': {`\tilde`, `\~`}, '\u0304': {`\bar`, `\=`}, '\u0307': {`\dot`, `\.`},
	'\u0301': {`\acute`, `\'`}, '\u0300': {`\grave`, "\\`"}, '\u0308': {`\ddot`, `\"`},
}

// accent puts a combining accent on one escaped character: a math
// symbol ($\beta$) takes the math accent inside its $…$, other text the
// text accent.
func accent(unit string, acc [2]string) string {
	if len(unit) > 2 && strings.HasPrefix(unit, "$") && strings.HasSuffix(unit, "$") {
		return "$" + acc[0] + "{" + unit[1:len(unit)-1] + "}$"
	}
	return acc[1] + "{" + unit + "}"
}

// escapeRune is one character in LaTeX's text mode.
// Prose is Escape for running text with numbers (an analysis's
// report): a relation written with spaces around it ("p = 0.012", "p <
// 0.001") is tied to both sides by non-breaking spaces, so that a line
// never ends or starts with it, and a hyphen that starts a number
// ("-0.45" after a space, "(" or "[") is a minus sign, not a hyphen.
func Prose(s string) string {
	s = relationTies.Replace(s)
	rs := []rune(s)
	for i, r := range rs {
		if r == '-' && i+1 < len(rs) && rs[i+1] >= '0' && rs[i+1] <= '9' && (i == 0 || strings.ContainsRune(" \u00a0([", rs[i-1])) {
			rs[i] = '−'
		}
	}
	return Escape(string(rs))
}

// relationTies puts non-breaking spaces around the relations of Prose.
var relationTies = strings.NewReplacer(" = ", "\u00a0=\u00a0", " < ", "\u00a0<\u00a0", " > ", "\u00a0>\u00a0",
	" ≤ ", "\u00a0≤\u00a0", " ≥ ", "\u00a0≥\u00a0", " ≈ ", "\u00a0≈\u00a0")

func escapeRune(r rune) string {
	switch r {
	case '\\':
		return `\textbackslash{}`
	case '{', '}', '$', '&', '#', '%', '_':
		return `\` + string(r)
	case '~':
		return `\textasciitilde{}`
	case '^':
		return `\textasciicircum{}`
	case '<':
		return `\textless{}`
	case '>':
		return `\textgreater{}`
	case '|':
		return `\textbar{}`
	case '\n', '\r', '\t':
		return " "
	}
	if m, ok := symbols[r]; ok {
		return m
	}
	if r < ' ' {
		return "" // control characters print nothing in LaTeX
	}
	return string(r)
}

// symbols are non-ASCII characters LaTeX's utf8 input cannot print in
// text mode, as commands that can.
var symbols = map[rune]string{
	'–': "--", '—': "---", '−': "$-$", '×': `$\times$`, '±': `$\pm$`, '≤': `$\le$`, '≥': `$\ge$`,
	'≠': `$\ne$`, '≈': `$\approx$`, '→': `$\rightarrow$`, '←': `$\leftarrow$`, '√': `$\surd$`, '·': `$\cdot$`, '…': `\ldots{}`, '²': `$^{2}$`,
	'α': `$\alpha$`, 'β': `$\beta$`, 'γ': `$\gamma$`, 'δ': `$\delta$`, 'ε': `$\varepsilon$`, 'η': `$\eta$`,
	'θ': `$\theta$`, 'κ': `$\kappa$`, 'λ': `$\lambda$`, 'μ': `$\mu$`, 'ν': `$\nu$`, 'π': `$\pi$`,
	'ρ': `$\rho$`, 'σ': `$\sigma$`, 'τ': `$\tau$`, 'φ': `$\varphi$`, 'χ': `$\chi$`, 'ω': `$\omega$`,
	'Δ': `$\Delta$`, 'Σ': `$\Sigma$`, 'Ω': `$\Omega$`, '‘': "`", '’': "'", '“': "``", '”': "''",
	'\u00a0': "~",
}
