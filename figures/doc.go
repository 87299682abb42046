// Package figures turns analysis results into figures: a static SVG drawn
// with gonum/plot and, for HTML, an interactive ECharts option built with
// go-echarts. It is the stage after package analyses and before the site
// writer; it never computes a statistic and never reads a file.
//
// Each analysis has one file here with a function from its result struct
// to []Figure. Custom plotters (forest plot, CD diagram) are one type per
// file implementing plot.Plotter.
package figures
