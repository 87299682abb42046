// Package themes holds the site's look: HTML templates, the stylesheet,
// the small script that draws interactive charts, and (when built with
// `make assets`) the chart library, a bundle of ECharts from the npm
// registry with only what the site draws (src/echarts.js). Everything is
// embedded into the binary so a site never makes a network request.
package themes
