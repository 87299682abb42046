package figures

// Figures of the clusters analysis (Shevchenko et al. 2024, §4.4, Fig. 8): where the
// datasets lie in the plane of the first two principal components and
// which cluster each joined, how the choice of k was made, and how the
// leaderboard differs from cluster to cluster.

import (
	"fmt"
	"math"
	"sort"

	"image/color"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/analyses/datasets"
)

// Clusters draws the PCA scatter (id), silhouette and Davies–Bouldin
// against k (id-k) and, when the result has one, the per-cluster
// leaderboard heatmap (id-leaderboard).
func Clusters(id, title string, r *datasets.ClustersResult) ([]Figure, error) {
	var figs []Figure
	f, err := clustersScatter(id, r)
	if err != nil {
		return nil, err
	}
	figs = append(figs, f)
	if len(r.KScan) > 0 {
		f, err := clustersKScan(id+"-k", r)
		if err != nil {
			return nil, err
		}
		figs = append(figs, f)
	}
	if len(r.Leaderboard) > 0 {
		f, err := clustersBoard(id+"-leaderboard", r)
		if err != nil {
			return nil, err
		}
		figs = append(figs, f)
	}
	return figs, nil
}

func pcLabel(r *datasets.ClustersResult, c int) string {
	if c >= len(r.ExplainedVarianceRatio) {
		return ""
	}
	return fmt.Sprintf("PC%d (%.*f%% of variance)", c+1, analyses.PercentDecimals, 100*r.ExplainedVarianceRatio[c])
}

// pcXY returns the first two principal scores of dataset i (0 when the
// analysis kept a single component).
func pcXY(r *datasets.ClustersResult, i int) (float64, float64) {
	s := r.Scores[i]
	if len(s) < 2 {
		return s[0], 0
	}
	return s[0], s[1]
}

// clustersScatter is the PCA scatter of the datasets, coloured by
// cluster, static and interactive.
func clustersScatter(id string, r *datasets.ClustersResult) (Figure, error) {
	return FigureOf(ClustersScatterSpec(r), id, "Datasets in the plane of the first two principal components", 480)
}

// ClustersScatterSpec is the PCA scatter: each cluster's datasets as
// circles (outliers as triangles) in the cluster's colour, each
// representative ringed and named.
func ClustersScatterSpec(r *datasets.ClustersResult) *Spec {
	isRep := map[string]bool{}
	for _, d := range r.Representatives {
		isRep[d] = true
	}
	k := len(r.Representatives)
	pn := Panel{X: NewAxis(pcLabel(r, 0)), Y: NewAxis(pcLabel(r, 1))}
	rep := Mark{Kind: MarkPoints, Series: "representative", Style: Style{Colour: Colour(9), Symbol: Ring}, Size: 7}
	names := Mark{Kind: MarkText}
	for c := 1; c <= k; c++ {
		st := StyleAt(c - 1)
		in := Mark{Kind: MarkPoints, Series: fmt.Sprintf("cluster %d", c), Style: Style{Colour: st.Colour, Symbol: Circle}, Size: 4}
		out := Mark{Kind: MarkPoints, Series: fmt.Sprintf("cluster %d", c), NoLegend: true, Style: Style{Colour: st.Colour, Symbol: Triangle}, Size: 5}
		for i, d := range r.Datasets {
			if r.Cluster[i] != c {
				continue
			}
			x, y := pcXY(r, i)
			m, name := &in, r.Naming.Dataset(d)
			if r.Outlier[i] {
				m, name = &out, name+" (outlier)"
			}
			m.X, m.Y, m.Names = append(m.X, x), append(m.Y, y), append(m.Names, name)
			if isRep[d] {
				rep.X, rep.Y, rep.Names = append(rep.X, x), append(rep.Y, y), append(rep.Names, r.Naming.Dataset(d)+" (representative)")
				names.X, names.Y, names.Labels = append(names.X, x), append(names.Y, y), append(names.Labels, r.Naming.Dataset(d))
			}
		}
		if len(in.X) > 0 {
			pn.Marks = append(pn.Marks, in)
		}
		if len(out.X) > 0 {
			if len(in.X) == 0 {
				out.NoLegend = false
			}
			pn.Marks = append(pn.Marks, out)
		}
	}
	if len(rep.X) > 0 {
		pn.Marks = append(pn.Marks, rep, names)
	}
	// room around the points for the rings and the names
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range r.Datasets {
		x, y := pcXY(r, i)
		xlo, xhi, ylo, yhi = math.Min(xlo, x), math.Max(xhi, x), math.Min(ylo, y), math.Max(yhi, y)
	}
	if !math.IsInf(xlo, 0) {
		dx, dy := math.Max(xhi-xlo, 1e-9), math.Max(yhi-ylo, 1e-9)
		pn.X = pn.X.Fixed(xlo-0.08*dx, xhi+0.15*dx)
		pn.Y = pn.Y.Fixed(ylo-0.08*dy, yhi+0.08*dy)
	}
	// the caption names the triangles and rings only where they are drawn
	caption := fmt.Sprintf("The %d datasets on the first two principal components of their z-scored characteristics (%.*f%% of the variance), coloured by cluster (k = %d).",
		len(r.Datasets), analyses.PercentDecimals, 100*sumFirst(r.ExplainedVarianceRatio, 2), r.K)
	if countFalse(r.Outlier) < len(r.Outlier) {
		caption += " Triangles mark Isolation Forest outliers, which joined the nearest centroid."
	}
	if len(rep.X) > 0 {
		caption += " Rings mark each cluster's representative, the dataset nearest its centroid."
	}
	return &Spec{Panels: []Panel{pn}, Legend: LegendRight, Width: 7, Height: 5,
		Subject: fmt.Sprintf("scatter of %d datasets in %d clusters", len(r.Datasets), k), Caption: caption}
}

func sumFirst(v []float64, n int) float64 {
	var s float64
	for i := 0; i < n && i < len(v); i++ {
		s += v[i]
	}
	return s
}

// clustersKScan is silhouette and Davies–Bouldin against k, the chosen
// k marked by a dotted rule.
func clustersKScan(id string, r *datasets.ClustersResult) (Figure, error) {
	return FigureOf(ClustersKScanSpec(r), id, "Choice of the number of clusters", 360)
}

// ClustersKScanSpec is the k scan's spec.
func ClustersKScanSpec(r *datasets.ClustersResult) *Spec {
	pn := Panel{X: NewAxis("number of clusters k"), Y: NewAxis("score")}
	lo, hi := math.Inf(1), math.Inf(-1)
	for j, sc := range clustersKSeries {
		m := Mark{Kind: MarkLine, Series: sc.name, Style: StyleAt(j), WithPoints: true}
		for _, k := range r.KScan {
			m.X = append(m.X, float64(k.K))
			v := math.NaN()
			if p := sc.get(k); p != nil {
				v = *p
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			m.Y = append(m.Y, v)
		}
		if j == 1 {
			m.Style.Dash = Dashed
		}
		pn.Marks = append(pn.Marks, m)
	}
	for _, k := range r.KScan {
		pn.X.Ticks = append(pn.X.Ticks, float64(k.K))
	}
	if !math.IsInf(lo, 0) {
		pn.Marks = append(pn.Marks, Mark{Kind: MarkRefLine, Series: "chosen k", Style: Style{Colour: Colour(7), Dash: Dotted}, Size: 1,
			X: []float64{float64(r.K), float64(r.K)}, Y: []float64{math.Min(0, lo), hi}})
	}
	how := "chosen by the highest silhouette"
	if r.KFixed {
		how = "fixed in the manifest"
	}
	return &Spec{Panels: []Panel{pn}, Legend: LegendRight, Width: 6, Height: 3.5,
		Subject: "silhouette and Davies–Bouldin index against the number of clusters",
		Caption: fmt.Sprintf("Silhouette (higher is better) and Davies–Bouldin index (lower is better) of k-means on the %d non-outlier datasets for each k; k = %d was %s (dotted rule).", countFalse(r.Outlier), r.K, how)}
}

// clustersKSeries are the two scores of the k scan.
var clustersKSeries = []struct {
	name string
	get  func(datasets.ClustersK) *float64
}{
	{"silhouette (higher is better)", func(k datasets.ClustersK) *float64 { return k.Silhouette }},
	{"Davies–Bouldin (lower is better)", func(k datasets.ClustersK) *float64 { return k.DaviesBouldin }},
}

func countFalse(b []bool) int {
	n := 0
	for _, v := range b {
		if !v {
			n++
		}
	}
	return n
}

// clustersBoard is Shevchenko et al. (2024), Fig. 8: methods ×
// clusters, mean rank in the cell with the geometric mean in brackets.
func clustersBoard(id string, r *datasets.ClustersResult) (Figure, error) {
	nm := len(r.Methods)
	// Methods ordered by their average over clusters of the mean rank.
	avg := make([]float64, nm)
	for _, b := range r.Leaderboard {
		for m := range avg {
			avg[m] += b.MeanRank[m] / float64(len(r.Leaderboard))
		}
	}
	order := make([]int, nm)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return avg[order[a]] < avg[order[b]] })
	cols := make([]string, len(r.Leaderboard))
	for j, b := range r.Leaderboard {
		cols[j] = fmt.Sprintf("cluster %d (%d)", b.Cluster, len(b.Datasets))
	}
	// the cells write each number as the cluster leaderboard's table
	// prints its column
	var ranks, gms []float64
	for _, b := range r.Leaderboard {
		for m := range nm {
			ranks = append(ranks, b.MeanRank[m])
			if g := b.GeometricMean[m]; g != nil && analyses.Finite(*g) {
				gms = append(gms, *g)
			}
		}
	}
	// Row 0 at the top: the best method first.
	rows := make([]string, nm)
	values := make([][]float64, nm)
	text := make([][]string, nm)
	for ri, m := range order {
		rows[ri] = r.Naming.Method(r.Methods[m])
		values[ri] = make([]float64, len(r.Leaderboard))
		text[ri] = make([]string, len(r.Leaderboard))
		for j, b := range r.Leaderboard {
			values[ri][j] = b.MeanRank[m]
			t := analyses.ColumnText(b.MeanRank[m], ranks)
			if g := b.GeometricMean[m]; g != nil {
				t += " (" + analyses.ColumnText(*g, gms) + ")"
			}
			text[ri][j] = t
		}
	}
	metric := r.Naming.Metric(r.Metric)
	sc := &Scale{Min: 1, Max: math.Max(2, float64(nm)), Low: color.NRGBA{0xFF, 0xFF, 0xFF, 0xFF}, High: corrPositive,
		LowName: "white", HiName: "blue", Reverse: true}
	pn := Panel{X: Axis{Min: Auto, Max: Auto, Categories: cols}, Y: Axis{Min: Auto, Max: Auto, Categories: rows, Inverse: true},
		Marks: []Mark{{Kind: MarkCells, Series: "mean rank of " + metric, NoLegend: true, Cells: values, Format: "%.2f", CellText: text}}}
	s := &Spec{Panels: []Panel{pn}, Scale: sc,
		Width: 1.8 + 1.1*float64(len(cols)), Height: 0.8 + 0.3*float64(nm),
		Subject: fmt.Sprintf("mean ranks of %d methods in %d clusters", nm, len(cols)),
		Caption: fmt.Sprintf("Mean rank of each method on the datasets of each cluster (1 = best; darker is better), with the geometric mean of %s in brackets, after Shevchenko et al. (2024, Fig. 8). Methods are ordered by their average over clusters; the number of datasets is in each column's title.", metric)}
	return FigureOf(s, id, "Leaderboard within each cluster", 60+28*nm)
}
