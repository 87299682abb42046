package site

import "testing"

// TestFindingDropsLeadRestatingTitle: a key finding drops a lead that
// only restates its analysis's title (an untitled meta-analysis's
// default title, with or without a metric), and keeps any other lead.
func TestFindingDropsLeadRestatingTitle(t *testing.T) {
	for _, c := range []struct{ title, highlight, want string }{
		{"MF-bias vs MF: RMSE", "MF-bias vs MF on RMSE: summary Hedges' g -0.5871 [-0.7273, -0.4469]; MF-bias is better.",
			"Summary Hedges' g -0.5871 [-0.7273, -0.4469]; MF-bias is better."},
		{"LightGCN vs BPR", "LightGCN vs BPR: summary log ratio of means 0.253 [0.164, 0.341].", "Summary log ratio of means 0.253 [0.164, 0.341]."},
		{"EASE vs ALS on rating error, dataset by dataset", "EASE vs ALS on RMSE: summary d -0.062.", "EASE vs ALS on RMSE: summary d -0.062."},
		{"Critical differences: nDCG@10", "EASE has the best mean rank (3.688) on nDCG@10; Friedman p = 6.5e-30.", "EASE has the best mean rank (3.688) on nDCG@10; Friedman p = 6.5e-30."},
		{"A vs B: m", "A vs B on m: ", "A vs B on m: "},
	} {
		if got := finding(c.title, c.highlight); got != c.want {
			t.Errorf("%q, %q:\n got %q\nwant %q", c.title, c.highlight, got, c.want)
		}
	}
}
