package figures

// Figures name methods, metrics, datasets and rules by their display
// labels (the result's analyses.Naming: `[[metrics]] label`, rule labels
// such as "DM-AUC", `[[methods]] label`); ids stay in the CSV and JSON
// (issues 20 and 21).

// labelled returns the labels of ids under name (a Naming method such as
// n.Method): a new slice, ids untouched.
func labelled(ids []string, name func(string) string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = name(id)
	}
	return out
}
