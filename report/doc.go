// Package report is evalbook's orchestration stage: it reads the manifest
// (report/manifest), loads the inputs (report/load over report/input),
// runs every analysis of the registry (report/kinds) in phases with the
// cache (build.go, cache.go, diskcache.go), renders the site (report/site,
// from the model sitemodel.go builds) and writes it atomically
// (output.go). Build phases wrap their errors
// with their names: "manifest:", "inputs:", "analyses/<id>:", "render:".
package report
