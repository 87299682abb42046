package figures

import (
	"image"
	"image/color"
	"slices"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// pngRecording is a drawing's calls on a canvas, recorded once (the
// layout of gonum/plot, its tick marks and text measuring are done once)
// to be played on every strip of its PNG (drawPNGStrips). Paths and
// dashes are copied: a caller may reuse them after the call.
type pngRecording struct {
	ops []func(vg.Canvas)
}

var _ vg.Canvas = (*pngRecording)(nil)

func (r *pngRecording) add(op func(vg.Canvas)) { r.ops = append(r.ops, op) }

// playOn calls on c what was called on r, in order.
func (r *pngRecording) playOn(c vg.Canvas) {
	for _, op := range r.ops {
		op(c)
	}
}

// reset forgets the calls (and what they hold), keeping the room.
func (r *pngRecording) reset() {
	clear(r.ops)
	r.ops = r.ops[:0]
}

// SetLineWidth records c.SetLineWidth(w).
func (r *pngRecording) SetLineWidth(w vg.Length) { r.add(func(c vg.Canvas) { c.SetLineWidth(w) }) }

// SetLineDash records c.SetLineDash(pattern, offset).
func (r *pngRecording) SetLineDash(pattern []vg.Length, offset vg.Length) {
	pattern = slices.Clone(pattern)
	r.add(func(c vg.Canvas) { c.SetLineDash(pattern, offset) })
}

// SetColor records c.SetColor(clr).
func (r *pngRecording) SetColor(clr color.Color) { r.add(func(c vg.Canvas) { c.SetColor(clr) }) }

// Rotate records c.Rotate(rad).
func (r *pngRecording) Rotate(rad float64) { r.add(func(c vg.Canvas) { c.Rotate(rad) }) }

// Translate records c.Translate(pt).
func (r *pngRecording) Translate(pt vg.Point) { r.add(func(c vg.Canvas) { c.Translate(pt) }) }

// Scale records c.Scale(x, y).
func (r *pngRecording) Scale(x, y float64) { r.add(func(c vg.Canvas) { c.Scale(x, y) }) }

// Push records c.Push().
func (r *pngRecording) Push() { r.add(vg.Canvas.Push) }

// Pop records c.Pop().
func (r *pngRecording) Pop() { r.add(vg.Canvas.Pop) }

// Stroke records c.Stroke(p).
func (r *pngRecording) Stroke(p vg.Path) {
	p = slices.Clone(p)
	r.add(func(c vg.Canvas) { c.Stroke(p) })
}

// Fill records c.Fill(p).
func (r *pngRecording) Fill(p vg.Path) {
	p = slices.Clone(p)
	r.add(func(c vg.Canvas) { c.Fill(p) })
}

// FillString records c.FillString(f, pt, s).
func (r *pngRecording) FillString(f font.Face, pt vg.Point, s string) {
	r.add(func(c vg.Canvas) { c.FillString(f, pt, s) })
}

// DrawImage records c.DrawImage(rect, img).
func (r *pngRecording) DrawImage(rect vg.Rectangle, img image.Image) {
	r.add(func(c vg.Canvas) { c.DrawImage(rect, img) })
}
