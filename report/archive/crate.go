// Package archive writes and checks the archive of a study (`evalbook
// pack`, `evalbook verify`): one deterministic zip holding the manifest,
// every file the build read, the built site and an RO-Crate 1.1 metadata
// file (ro-crate-metadata.json) that lists each file with its sha256,
// size and media type, and the build as a CreateAction.
//
// Layout of the zip:
//
//	ro-crate-metadata.json   the RO-Crate metadata (first entry)
//	study/<path>             the study's files, at their paths relative to the study directory
//	site/<path>              the site the build wrote
package archive

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
)

// MetadataName is the RO-Crate metadata file at the root of the zip.
const MetadataName = "ro-crate-metadata.json"

// Folders of the zip.
const (
	StudyDir = "study/"
	SiteDir  = "site/"
)

const (
	crateContext = "https://w3id.org/ro/crate/1.1/context"
	crateSpec    = "https://w3id.org/ro/crate/1.1"
	// evalbookTerms is where the one term of our own, "evalbook:excluded"
	// (an input left out of the zip by --exclude-inputs, hash kept), is
	// documented.
	evalbookTerms = "https://github.com/evalbook/evalbook/blob/main/docs/PAPER.md#"
	buildID       = "#build"
	toolID        = "#evalbook"
	excludedKey   = "evalbook:excluded"
)

// FileEntry is one File entity of the crate.
type FileEntry struct {
	ID       string // path inside the zip, e.g. study/results/a.csv
	SHA256   string
	Size     int64
	Excluded bool // left out of the zip (--exclude-inputs): hash kept
}

// Metadata is what pack writes into the crate besides the files.
type Metadata struct {
	Name, Description, Date, License, DOI string
	Authors                               []string
	Links                                 map[string]string
	Version                               string // evalbook's
	Command                               string // the build command, run in study/
	Manifest                              string // zip path of the manifest
}

// mediaTypes are the IANA media types of the files a study and its site
// hold, by extension: fixed here rather than read from the system's
// mime.types, so the crate's bytes do not depend on the machine.
var mediaTypes = map[string]string{
	".csv": "text/csv", ".tsv": "text/tab-separated-values", ".toml": "application/toml",
	".md": "text/markdown", ".bib": "application/x-bibtex", ".json": "application/json",
	".jsonl": "application/jsonl", ".html": "text/html", ".css": "text/css", ".js": "text/javascript",
	".svg": "image/svg+xml", ".png": "image/png", ".pdf": "application/pdf", ".tex": "application/x-tex",
	".parquet": "application/vnd.apache.parquet", ".gz": "application/gzip", ".txt": "text/plain",
	".cff": "application/x-yaml", ".xml": "application/xml", ".woff2": "font/woff2",
}

// MediaType returns the media type of a file by its extension.
func MediaType(name string) string {
	if t, ok := mediaTypes[strings.ToLower(path.Ext(name))]; ok {
		return t
	}
	return "application/octet-stream"
}

// crateJSON renders the RO-Crate metadata. The graph is in a fixed order
// (descriptor, root, tool, build, files by path) and every entity is a
// map, which encoding/json writes with sorted keys: the same study gives
// the same bytes.
func crateJSON(m Metadata, files []FileEntry) ([]byte, error) {
	sort.Slice(files, func(i, j int) bool { return files[i].ID < files[j].ID })
	var parts, inputs, results []any
	for _, f := range files {
		ref := map[string]any{"@id": f.ID}
		if !f.Excluded {
			parts = append(parts, ref)
		}
		switch {
		case strings.HasPrefix(f.ID, StudyDir):
			inputs = append(inputs, ref)
		case strings.HasPrefix(f.ID, SiteDir):
			results = append(results, ref)
		}
	}
	root := map[string]any{
		"@id": "./", "@type": "Dataset",
		"name": m.Name, "description": m.Description, "datePublished": m.Date,
		"license": map[string]any{"@id": licenseID(m.License)},
		"hasPart": parts,
	}
	if len(m.Authors) > 0 {
		var authors []any
		for _, a := range m.Authors {
			authors = append(authors, map[string]any{"@type": "Person", "name": a})
		}
		root["author"] = authors
	}
	if m.DOI != "" {
		root["identifier"] = "https://doi.org/" + m.DOI
	}
	if len(m.Links) > 0 {
		var urls []any
		for _, k := range sortedKeys(m.Links) {
			urls = append(urls, m.Links[k])
		}
		root["url"] = urls
	}
	graph := []any{
		map[string]any{"@id": MetadataName, "@type": "CreativeWork",
			"conformsTo": map[string]any{"@id": crateSpec}, "about": map[string]any{"@id": "./"}},
		root,
		map[string]any{"@id": toolID, "@type": "SoftwareApplication", "name": "evalbook", "version": m.Version,
			"url": "https://github.com/evalbook/evalbook"},
		map[string]any{"@id": buildID, "@type": "CreateAction", "name": "evalbook build",
			"description": m.Command, "instrument": map[string]any{"@id": toolID},
			"object": inputs, "result": results, "evalbook:manifest": map[string]any{"@id": m.Manifest}},
	}
	if lic := licenseID(m.License); strings.HasPrefix(lic, "https://spdx.org/") {
		graph = append(graph, map[string]any{"@id": lic, "@type": "CreativeWork", "name": m.License, "identifier": m.License})
	}
	for _, f := range files {
		e := map[string]any{"@id": f.ID, "@type": "File", "sha256": f.SHA256,
			"contentSize": fmt.Sprint(f.Size), "encodingFormat": MediaType(f.ID), "name": path.Base(f.ID)}
		if f.Excluded {
			e[excludedKey] = true
		}
		graph = append(graph, e)
	}
	doc := map[string]any{
		"@context": []any{crateContext, map[string]any{"evalbook": evalbookTerms}},
		"@graph":   graph,
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// licenseID is the license as a URL: an SPDX identifier becomes its SPDX
// page, a URL stays as it is.
func licenseID(l string) string {
	if strings.Contains(l, "://") {
		return l
	}
	return "https://spdx.org/licenses/" + l
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// namesEvalbook reports whether RO-Crate metadata names evalbook as the
// software of its build: a SoftwareApplication named evalbook that the
// CreateAction names as its instrument, as every crate pack writes does.
func namesEvalbook(data []byte) bool {
	c, err := parseCrate(data)
	return err == nil && c.ByEvalbook
}

// crate is the part of a crate verify reads.
type crate struct {
	Files    map[string]FileEntry
	Manifest string
	Version  string
	Command  string
	// ByEvalbook: the crate names evalbook as the software of its build
	// (a SoftwareApplication named evalbook, the CreateAction's
	// instrument), as every crate pack writes does.
	ByEvalbook bool
}

// parseCrate reads ro-crate-metadata.json: its File entities, the
// manifest and the tool's version. A missing property is an error
// naming it.
func parseCrate(data []byte) (*crate, error) {
	var doc struct {
		Graph []map[string]any `json:"@graph"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: not valid JSON: %v", MetadataName, err)
	}
	c := &crate{Files: map[string]FileEntry{}}
	str := func(e map[string]any, k string) string { s, _ := e[k].(string); return s }
	tool, instrument := false, ""
	for _, e := range doc.Graph {
		id := str(e, "@id")
		switch str(e, "@type") {
		case "File":
			// Paths come from the metadata, which may have been edited:
			// none may leave the unpacking directory (or --inputs).
			if err := checkName(id); err != nil || strings.HasSuffix(id, "/") {
				return nil, fmt.Errorf("%s: file %q: not a path inside the archive", MetadataName, id)
			}
			var size int64
			if _, err := fmt.Sscan(str(e, "contentSize"), &size); err != nil {
				return nil, fmt.Errorf("%s: file %q: contentSize %q is not a size", MetadataName, id, str(e, "contentSize"))
			}
			sum := str(e, "sha256")
			if len(sum) != 64 {
				return nil, fmt.Errorf("%s: file %q: no sha256", MetadataName, id)
			}
			excl, _ := e[excludedKey].(bool)
			if _, dup := c.Files[id]; dup {
				return nil, fmt.Errorf("%s: file %q is listed twice", MetadataName, id)
			}
			c.Files[id] = FileEntry{ID: id, SHA256: sum, Size: size, Excluded: excl}
		case "CreateAction":
			if m, ok := e["evalbook:manifest"].(map[string]any); ok {
				c.Manifest, _ = m["@id"].(string)
			}
			c.Command = str(e, "description")
			if m, ok := e["instrument"].(map[string]any); ok {
				instrument, _ = m["@id"].(string)
			}
		case "SoftwareApplication":
			if id == toolID {
				c.Version = str(e, "version")
				tool = str(e, "name") == "evalbook"
			}
		}
	}
	c.ByEvalbook = tool && instrument == toolID
	if c.Manifest == "" {
		return nil, fmt.Errorf("%s: the build (CreateAction %s) names no manifest", MetadataName, buildID)
	}
	if _, ok := c.Files[c.Manifest]; !ok || !strings.HasPrefix(c.Manifest, StudyDir) {
		return nil, fmt.Errorf("%s: the manifest %q is not a file of the study", MetadataName, c.Manifest)
	}
	return c, nil
}
