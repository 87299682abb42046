// Package themes holds the site's look: HTML templates, the stylesheet,
// the small script that draws interactive charts, and (when built with
// `make assets`) the ECharts library from the npm registry. Everything is
// embedded into the binary so a site never makes a network request.
package themes
