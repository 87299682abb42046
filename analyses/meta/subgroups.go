package meta

import (
	"fmt"
	"math"

	"github.com/evalbook/evalbook/analyses"

	"gonum.org/v1/gonum/stat/distuv"
)

// Why this file exists: subgroup_tau2 = "common" fits the subgroups as one
// mixed-effects model, the subgroup a categorical moderator with a common
// τ² (metafor's rma(yi, vi, mods = ~ factor(g) - 1) for the per-group
// estimates and the QM of ~ factor(g) for the test between them), next to
// the separate fits per subgroup (meta.go).

// WithinGroups is the test of residual heterogeneity of the common-τ²
// subgroup model (metafor's QE of rma(yi, vi, mods = ~ factor(g))) and its
// τ².
type WithinGroups struct {
	Tau2 float64 `json:"tau2"`
	QE   float64 `json:"QE"`
	DFQE int     `json:"df_QE"`
	PQE  float64 `json:"p_QE"`
}

// regOptions are the options of a meta-regression fitted with the
// analysis's model, τ² estimator (or fixed τ²) and test.
func (o Options) regOptions() RegOptions { return o.conf().reg() }

// subgroupMembers sets res's subgroup order (the order first met in the
// rows) and returns the included rows of each subgroup.
func subgroupMembers(res *Result, idx []int, o Options) map[string][]int {
	res.Subgroup = o.Subgroup
	res.SubgroupTau2 = o.SubgroupTau2
	res.Subgroups = map[string]Summary{}
	members := map[string][]int{}
	for _, r := range res.Rows {
		if _, ok := members[r.Group]; !ok {
			members[r.Group] = nil
			res.SubgroupOrder = append(res.SubgroupOrder, r.Group)
		}
	}
	for _, i := range idx {
		g := res.Rows[i].Group
		members[g] = append(members[g], i)
	}
	return members
}

// metaSubgroupsBy fits the subgroups as subgroup_tau2 says.
func metaSubgroupsBy(res *Result, idx []int, o Options) error {
	if o.SubgroupTau2 == "common" {
		return metaSubgroupsCommon(res, idx, o)
	}
	metaSubgroups(res, idx, o)
	return nil
}

// metaSubgroupsCommon fits one model with the subgroup as a categorical
// moderator and a common τ². A subgroup's estimate is the intercept of the
// model whose reference level it is (the same column space as
// ~ factor(g) - 1, so the same fit, τ² and test), and the test between
// the subgroups is the QM of the moderator (χ² on G − 1 degrees of
// freedom, or F on G − 1 and k − G under test = "t" or "knha").
func metaSubgroupsCommon(res *Result, idx []int, o Options) error {
	members := subgroupMembers(res, idx, o)
	var groups []string
	for _, g := range res.SubgroupOrder {
		if len(members[g]) == 0 {
			res.Subgroups[g] = Summary{}
			res.Warnf("subgroup %s: no dataset with a defined effect", g)
			continue
		}
		groups = append(groups, g)
	}
	if len(groups) < 2 {
		return analyses.OptionErrorf("subgroup_tau2", "\"common\" fits the subgroups as a moderator, which needs at least 2 subgroups with a defined effect (%d here); use subgroup_tau2 = \"separate\"", len(groups))
	}
	yi, vi := make([]float64, len(idx)), make([]float64, len(idx))
	vals := make([]string, len(idx))
	for j, i := range idx {
		yi[j], vi[j], vals[j] = res.Rows[i].Effect, res.Rows[i].Variance, res.Rows[i].Group
	}
	for n, g := range groups {
		levels := append([]string{g}, groups[:n]...)
		levels = append(levels, groups[n+1:]...)
		d, err := NewDesign(len(idx), []Moderator{{Name: o.Subgroup, Values: vals, Levels: levels}})
		if err != nil {
			return fmt.Errorf("subgroup_tau2 = \"common\": %w", err)
		}
		reg, err := MetaRegression(yi, vi, d, o.regOptions())
		if err != nil {
			return fmt.Errorf("subgroup_tau2 = \"common\": %w", err)
		}
		res.Subgroups[g] = commonSummary(res, members[g], reg, o.Alpha)
		if n == 0 {
			commonBetween(res, reg)
		}
	}
	return nil
}

// commonSummary is subgroup m's summary in the common-τ² model reg, whose
// intercept is the subgroup's estimate: its interval and test, the common
// τ², and predict()'s prediction interval est ± crit·√(se² + τ²) (crit
// the z or t(k − p) quantile; the confidence interval for a fixed-effect
// model). The within-subgroup weights are 1/(vᵢ + τ²) as fractions of
// their sum. Q, I² and H² are the model's, not a subgroup's: left null.
func commonSummary(res *Result, m []int, reg *Regression, alpha float64) Summary {
	c := reg.Coefs[0]
	s := Summary{K: len(m), Effect: analyses.Opt(c.Est), SE: analyses.Opt(c.SE), CILow: analyses.Opt(c.CILow), CIHigh: analyses.Opt(c.CIHigh),
		P: analyses.Opt(c.P), Tau2: analyses.Opt(reg.Tau2)}
	var sw float64
	for _, i := range m {
		s.N += res.Rows[i].N
		sw += 1 / (res.Rows[i].Variance + reg.Tau2)
	}
	for _, i := range m {
		res.Rows[i].GroupWeight = 1 / (res.Rows[i].Variance + reg.Tau2) / sw
	}
	if reg.Method == "FE" {
		s.PILow, s.PIHigh = s.CILow, s.CIHigh
		return s
	}
	crit := distuv.UnitNormal.Quantile(1 - alpha/2)
	if reg.Test != "z" {
		crit = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(reg.K - reg.P)}.Quantile(1 - alpha/2)
	}
	sd := math.Sqrt(c.SE*c.SE + reg.Tau2)
	s.PILow, s.PIHigh = analyses.Opt(c.Est-crit*sd), analyses.Opt(c.Est+crit*sd)
	return s
}

// commonBetween sets the test between the subgroups and the residual
// heterogeneity from the common-τ² model reg.
func commonBetween(res *Result, reg *Regression) {
	res.QBetween = finitePtr(reg.QM)
	res.DFBetween, res.DFBetween2 = reg.QMdf[0], reg.QMdf[1]
	res.PBetween = finitePtr(reg.QMp)
	res.Within = &WithinGroups{Tau2: reg.Tau2, QE: reg.QE, DFQE: reg.QEdf, PQE: reg.QEp}
	for _, w := range reg.Warnings {
		res.Warnf("subgroups: %s", w)
	}
}

// subgroupsTable is <id>-subgroups: the test between the subgroups and,
// with a common τ², its denominator's degrees of freedom (an F test) and
// the model's residual heterogeneity.
func (r *Result) subgroupsTable() analyses.Table {
	bt := analyses.Table{Name: "subgroups", Title: "Test of subgroup differences",
		Columns: []string{"subgroup", "Q_between", "df", "p_between"}}
	row := []any{r.Subgroup, ptr(r.QBetween), r.DFBetween, ptr(r.PBetween)}
	if w := r.Within; w != nil {
		bt.Title = "Test of subgroup differences (one model, common τ²)"
		bt.Columns = append(bt.Columns, "df_denominator", "tau2", "QE", "df_QE", "p_QE")
		var d2 any
		if r.DFBetween2 > 0 {
			d2 = r.DFBetween2
		}
		row = append(row, d2, w.Tau2, w.QE, w.DFQE, w.PQE)
	}
	bt.Rows = [][]any{row}
	return bt
}
