package figures

import "fmt"

// DrawSVGs renders the static SVG of every figure of figs that has a
// drawing and no SVG yet. A figure builder may leave the SVG to it, so a
// pipeline that renders nothing (evalbook validate) never draws one.
func DrawSVGs(figs []Figure) (err error) {
	for i := range figs {
		f := &figs[i]
		if f.SVG != nil || f.Drawing == nil {
			continue
		}
		if f.SVG, err = f.Drawing.SVG(); err != nil {
			return fmt.Errorf("figure %s: %w", f.ID, err)
		}
	}
	return nil
}
