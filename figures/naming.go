package figures

import "github.com/evalbook/evalbook/figures/model"

// Figures name methods, metrics, datasets and rules by their display
// labels (the result's analyses.Naming: `[[metrics]] label`, rule labels
// such as "DM-AUC", `[[methods]] label`); ids stay in the CSV and JSON
// (issues 20 and 21).

// labelled returns the labels of ids under name (model.Labelled).
func labelled(ids []string, name func(string) string) []string {
	return model.Labelled(ids, name)
}
