package figures

import (
	"testing"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// TestTextBoxesKept: every plot measures its text through boxedText,
// whose boxes are text.Plain's, measured or kept, for texts of every
// size, weight and style, and again after the kept boxes are dropped.
func TestTextBoxesKept(t *testing.T) {
	if _, ok := plot.DefaultTextHandler.(boxedText); !ok {
		t.Fatalf("plot.DefaultTextHandler is %T", plot.DefaultTextHandler)
	}
	if p := plot.New(); p.Title.TextStyle.Handler == nil {
		t.Fatal("a plot without a text handler")
	} else if _, ok := p.Title.TextStyle.Handler.(boxedText); !ok {
		t.Errorf("a plot's title measures with %T", p.Title.TextStyle.Handler)
	}
	plain := text.Plain{Fonts: font.DefaultCache}
	h := boxedText{plain}
	texts := []string{"", "nDCG@10", "EASE vs ALS", "β̂ = 0.42 (0.31, 0.53)", "← favours ALS", "WWWWWW", "ill"}
	for round := 0; round < 3; round++ {
		if round == 2 {
			textBoxes.Clear()
		}
		for _, s := range texts {
			for _, f := range []font.Font{Font(8), Font(12), {Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold, Size: vg.Points(9)},
				{Typeface: "Liberation", Variant: "Serif", Style: xfont.StyleItalic, Size: vg.Points(10)}} {
				w1, h1, d1 := h.Box(s, f)
				w2, h2, d2 := plain.Box(s, f)
				if w1 != w2 || h1 != h2 || d1 != d2 {
					t.Errorf("round %d, %q in %v: box %v %v %v, text.Plain's %v %v %v", round, s, f, w1, h1, d1, w2, h2, d2)
				}
			}
		}
	}
}
