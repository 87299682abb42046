package figures

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// layoutTolerance is how far a text box may overlap another or pass the
// canvas's edge before LayoutProblems reports it: glyph boxes are the
// font's full ascent and descent, so touching lines of text share a
// sliver.
const layoutTolerance = vg.Length(1)

// legendOverlap is the overlap, in ems of the smaller text, that two
// texts may have: gonum/plot spaces a legend's rows 0.84 em apart, so a
// row's box (descent and ink, 0.95 em) reaches 0.1 em into the next
// row's. The rows read well (a descender meets a capital of the next row
// only where they fall on one another), so this overlap is accepted.
const legendOverlap = 0.12

// minDataSide is the least width and height of a plot's data area.
const minDataSide = 0.4 * vg.Inch

// LayoutProblems draws d at its size into a canvas that records where
// every string and every stroke and fill lands (with the face's metrics
// and the canvas's current transform), and reports, one line each: a
// text that leaves the canvas, two texts that overlap, a stroke or fill
// that leaves the canvas, and a data area narrower or lower than 0.4 in.
// A drawing that reports nothing is readable at its size. Tests use it
// on every figure at the export widths.
func (d Drawing) LayoutProblems() []string {
	rec := &layoutRecorder{w: d.Width, h: d.Height, m: identity}
	c := draw.New(rec)
	d.Draw(c)
	var out []string
	for i, t := range rec.texts {
		if !t.inside(d.Width, d.Height) {
			out = append(out, fmt.Sprintf("text %q (%s) leaves the %s canvas", t.s, t.box(), size(d.Width, d.Height)))
		}
		for _, u := range rec.texts[:i] {
			switch {
			case overlap(t.q, u.q) > max(layoutTolerance, legendOverlap*min(t.size, u.size)):
				out = append(out, fmt.Sprintf("texts %q (%s) and %q (%s) overlap", u.s, u.box(), t.s, t.box()))
			case runTogether(t, u):
				out = append(out, fmt.Sprintf("texts %q (%s) and %q (%s) run together", u.s, u.box(), t.s, t.box()))
			}
		}
	}
	tol := vg.Points(1)
	for _, g := range rec.marks {
		if g.Min.X < -tol || g.Min.Y < -tol || g.Max.X > d.Width+tol || g.Max.Y > d.Height+tol {
			out = append(out, fmt.Sprintf("a stroke or fill (%s) leaves the %s canvas", rectString(g), size(d.Width, d.Height)))
			break
		}
	}
	if d.dataAreas != nil {
		for _, a := range d.dataAreas(draw.New(rec)) {
			if s := a.Size(); s.X < minDataSide || s.Y < minDataSide {
				out = append(out, fmt.Sprintf("a data area is %s", size(s.X, s.Y)))
			}
			// a legend goes beside or under the data, never over it
			for _, l := range rec.legends {
				if rectOverlap(a, l) > layoutTolerance {
					out = append(out, fmt.Sprintf("a legend (%s) lies over a data area (%s)", rectString(l), rectString(a)))
				}
			}
		}
	}
	return out
}

func size(w, h vg.Length) string {
	return fmt.Sprintf("%.2f×%.2f in", w/vg.Inch, h/vg.Inch)
}

// rectOverlap is how deep two rectangles overlap (≤ 0 apart).
func rectOverlap(a, b vg.Rectangle) vg.Length {
	dx := min(a.Max.X, b.Max.X) - max(a.Min.X, b.Min.X)
	dy := min(a.Max.Y, b.Max.Y) - max(a.Min.Y, b.Min.Y)
	return min(dx, dy)
}

func rectString(r vg.Rectangle) string {
	return fmt.Sprintf("x %.1f…%.1f, y %.1f…%.1f pt", r.Min.X, r.Max.X, r.Min.Y, r.Max.Y)
}

// affine is a 2-D affine transform: x' = a·x + b·y + c, y' = d·x + e·y + f.
type affine struct{ a, b, c, d, e, f float64 }

var identity = affine{a: 1, e: 1}

// then returns the transform that applies n first, then m.
func (m affine) then(n affine) affine {
	return affine{
		a: m.a*n.a + m.b*n.d, b: m.a*n.b + m.b*n.e, c: m.a*n.c + m.b*n.f + m.c,
		d: m.d*n.a + m.e*n.d, e: m.d*n.b + m.e*n.e, f: m.d*n.c + m.e*n.f + m.f,
	}
}

func (m affine) apply(p vg.Point) vg.Point {
	x, y := float64(p.X), float64(p.Y)
	return vg.Point{X: vg.Length(m.a*x + m.b*y + m.c), Y: vg.Length(m.d*x + m.e*y + m.f)}
}

// textBox is one recorded string: its box's corners on the page.
type textBox struct {
	s    string
	size vg.Length // the font's size
	q    [4]vg.Point
}

func (t textBox) inside(w, h vg.Length) bool {
	for _, p := range t.q {
		if p.X < -layoutTolerance || p.Y < -layoutTolerance || p.X > w+layoutTolerance || p.Y > h+layoutTolerance {
			return false
		}
	}
	return true
}

func (t textBox) box() string {
	r := vg.Rectangle{Min: t.q[0], Max: t.q[0]}
	for _, p := range t.q[1:] {
		r.Min.X, r.Min.Y = min(r.Min.X, p.X), min(r.Min.Y, p.Y)
		r.Max.X, r.Max.Y = max(r.Max.X, p.X), max(r.Max.Y, p.Y)
	}
	return rectString(r)
}

// overlap is how deep two convex quadrilaterals overlap: the least
// overlap of their projections on the normals of their edges (the
// separating axis theorem), ≤ 0 when they are apart.
func overlap(p, q [4]vg.Point) vg.Length {
	depth := math.Inf(1)
	for _, poly := range [][4]vg.Point{p, q} {
		for i := range poly {
			e := poly[(i+1)%4].Sub(poly[i])
			n := math.Hypot(float64(e.X), float64(e.Y))
			if n == 0 {
				continue
			}
			nx, ny := -float64(e.Y)/n, float64(e.X)/n
			p0, p1 := project(p, nx, ny)
			q0, q1 := project(q, nx, ny)
			depth = math.Min(depth, math.Min(p1, q1)-math.Max(p0, q0))
		}
	}
	return vg.Length(depth)
}

// wordGap is the least space between two texts on one line: closer,
// they read as one ("-0.16-0.09").
const wordGap = vg.Length(1.5)

// runTogether reports whether two parallel texts share a line (their
// boxes overlap across it by more than half the lower one) and stand
// less than wordGap apart along it.
func runTogether(t, u textBox) bool {
	dir := t.q[1].Sub(t.q[0])
	n := math.Hypot(float64(dir.X), float64(dir.Y))
	ud := u.q[1].Sub(u.q[0])
	un := math.Hypot(float64(ud.X), float64(ud.Y))
	if n == 0 || un == 0 || math.Abs(float64(dir.X*ud.Y-dir.Y*ud.X))/(n*un) > 1e-6 {
		return false
	}
	ax, ay := float64(dir.X)/n, float64(dir.Y)/n
	t0, t1 := project(t.q, -ay, ax)
	u0, u1 := project(u.q, -ay, ax)
	across := math.Min(t1, u1) - math.Max(t0, u0)
	if across <= 0.5*math.Min(t1-t0, u1-u0) {
		return false
	}
	t0, t1 = project(t.q, ax, ay)
	u0, u1 = project(u.q, ax, ay)
	return math.Min(t1, u1)-math.Max(t0, u0) > -float64(wordGap)
}

func project(p [4]vg.Point, nx, ny float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range p {
		d := float64(v.X)*nx + float64(v.Y)*ny
		lo, hi = math.Min(lo, d), math.Max(hi, d)
	}
	return lo, hi
}

// inkAscent is where the ink of Latin letters and digits ends above the
// baseline, in ems (Liberation's ascenders and capitals: about 0.73 em);
// the font's ascent (0.9 em) also holds accents over capitals, and
// gonum/plot spaces a legend's rows by the ascent without the descent,
// so boxes of the full ascent would report rows that do not touch.
const inkAscent = 0.73

// layoutRecorder is a vg.Canvas that draws nothing and records where
// text and marks land.
type layoutRecorder struct {
	w, h  vg.Length
	m     affine
	stack []affine
	lw    vg.Length
	texts []textBox
	marks []vg.Rectangle
	// legends are the boxes of the legends drawn (a spec's legend
	// records its own, spec_plot.go).
	legends []vg.Rectangle
}

// box is a rectangle of the current coordinates on the page.
func (r *layoutRecorder) box(b vg.Rectangle) vg.Rectangle {
	p, q := r.m.apply(b.Min), r.m.apply(b.Max)
	return vg.Rectangle{Min: vg.Point{X: min(p.X, q.X), Y: min(p.Y, q.Y)}, Max: vg.Point{X: max(p.X, q.X), Y: max(p.Y, q.Y)}}
}

func (r *layoutRecorder) Size() (w, h vg.Length)             { return r.w, r.h }
func (r *layoutRecorder) SetLineWidth(w vg.Length)           { r.lw = w }
func (r *layoutRecorder) SetLineDash([]vg.Length, vg.Length) {}
func (r *layoutRecorder) SetColor(color.Color)               {}
func (r *layoutRecorder) DrawImage(vg.Rectangle, image.Image) {
}

func (r *layoutRecorder) Rotate(rad float64) {
	s, c := math.Sincos(rad)
	r.m = r.m.then(affine{a: c, b: -s, d: s, e: c})
}

func (r *layoutRecorder) Translate(pt vg.Point) {
	r.m = r.m.then(affine{a: 1, c: float64(pt.X), e: 1, f: float64(pt.Y)})
}

func (r *layoutRecorder) Scale(x, y float64) { r.m = r.m.then(affine{a: x, e: y}) }
func (r *layoutRecorder) Push()              { r.stack = append(r.stack, r.m) }

func (r *layoutRecorder) Pop() {
	if n := len(r.stack); n > 0 {
		r.m, r.stack = r.stack[n-1], r.stack[:n-1]
	}
}

func (r *layoutRecorder) Stroke(p vg.Path) { r.mark(p, r.lw/2) }
func (r *layoutRecorder) Fill(p vg.Path)   { r.mark(p, 0) }

// mark records the bounding box of a path's points (arcs by their
// circle's box) on the page, grown by pad.
func (r *layoutRecorder) mark(p vg.Path, pad vg.Length) {
	box := vg.Rectangle{Min: vg.Point{X: vg.Length(math.Inf(1)), Y: vg.Length(math.Inf(1))}, Max: vg.Point{X: vg.Length(math.Inf(-1)), Y: vg.Length(math.Inf(-1))}}
	add := func(pt vg.Point, rad vg.Length) {
		pt = r.m.apply(pt)
		box.Min.X, box.Min.Y = min(box.Min.X, pt.X-rad-pad), min(box.Min.Y, pt.Y-rad-pad)
		box.Max.X, box.Max.Y = max(box.Max.X, pt.X+rad+pad), max(box.Max.Y, pt.Y+rad+pad)
	}
	for _, c := range p {
		switch c.Type {
		case vg.MoveComp, vg.LineComp:
			add(c.Pos, 0)
		case vg.ArcComp:
			add(c.Pos, c.Radius)
		case vg.CurveComp:
			add(c.Pos, 0)
			for _, ctl := range c.Control {
				add(ctl, 0)
			}
		}
	}
	if box.Min.X <= box.Max.X {
		r.marks = append(r.marks, box)
	}
}

func (r *layoutRecorder) FillString(f font.Face, pt vg.Point, s string) {
	if strings.TrimSpace(s) == "" {
		return
	}
	w := f.Width(s)
	ext := f.Extents()
	lo, hi := pt.Y-ext.Descent, pt.Y+min(ext.Ascent, inkAscent*f.Font.Size)
	r.texts = append(r.texts, textBox{s: s, size: f.Font.Size, q: [4]vg.Point{
		r.m.apply(vg.Point{X: pt.X, Y: lo}), r.m.apply(vg.Point{X: pt.X + w, Y: lo}),
		r.m.apply(vg.Point{X: pt.X + w, Y: hi}), r.m.apply(vg.Point{X: pt.X, Y: hi}),
	}})
}
