// Package report is evalbook's orchestration stage: it reads the manifest
// (manifest.go), loads the inputs (inputs.go, through report/input), runs every
// analysis through the registry (kind.go, kinds.go, kind_<type>.go), and
// renders the site (report/site, from the model sitemodel.go builds) and
// writes it atomically (output.go). Build phases wrap their errors
// with their names: "manifest:", "inputs:", "analyses/<id>:", "render:".
package report
