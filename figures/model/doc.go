// Package model is the gonum-free half of the presentation: how an
// analysis table is shown (labels, one number format per column, best,
// second and tied marks, significance and count notes, the paper's
// placement). The site writer, the paper's LaTeX and the browser's
// Explore page (compiled to WebAssembly, where gonum/plot would weigh
// 8 MB) format tables through it, so a table looks the same wherever it
// is shown. Package figures, beside it, draws the figures with gonum/plot.
package model
