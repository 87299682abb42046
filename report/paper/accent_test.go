package paper

import "testing"

// TestEscapeCombiningAccents: a combining accent (β̂, ŷ, x̄) becomes the
// math accent of a symbol written in maths and the text accent of a
// letter, so a title like the stability figure's "Changing β̂ of the DM
// rules" compiles with pdflatex (U+0302 alone stops it).
func TestEscapeCombiningAccents(t *testing.T) {
	for in, want := range map[string]string{
		"Changing β\u0302 of the DM rules": `Changing $\hat{\beta}$ of the DM rules`,
		"y\u0302 and x\u0304":              `\^{y} and \={x}`,
		"\u0302 alone":                     " alone",
		"a_b\u0303":                        `a\_\~{b}`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}
