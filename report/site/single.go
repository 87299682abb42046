package site

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"path"
	"regexp"
	"strings"
)

// --single-file: index.html holds every page as a section, every figure
// and data file as a data: URI, and every script inline, so one file
// works from file:// with the network off.

var (
	pageLinkRe = regexp.MustCompile(`href="([a-z0-9][a-z0-9-]*)\.html(#[^"]*)?"`)
	idAttrRe   = regexp.MustCompile(`(\s(?:id|aria-labelledby|aria-describedby|aria-controls|for))="([^"]*)"`)
	localRe    = regexp.MustCompile(`href="#([^"]+)"`)
	assetRe    = regexp.MustCompile(`(src|href)="((?:figures|data)/[^"]+|paper/evalbook\.tex|CITATION\.cff|citation\.bib)"`)
)

func (b *siteBuild) writeSingleFile(pages []htmlPage, search []byte) error {
	// The 300 dpi PNG and the PDF of every figure would make the one
	// file megabytes larger: it links the SVG only.
	for _, v := range b.views {
		for i := range v.Figures {
			v.Figures[i].PDFHref, v.Figures[i].PNGHref = "", ""
		}
	}
	var body bytes.Buffer
	math := false
	for _, p := range pages {
		var part bytes.Buffer
		if err := b.tmpl.ExecuteTemplate(&part, p.body, p.data); err != nil {
			return fmt.Errorf("%s: %w", p.file, err)
		}
		fmt.Fprintf(&body, "<section class=\"sf-page\" id=\"p-%s\" aria-label=\"%s\">\n%s\n</section>\n",
			p.slug, template.HTMLEscapeString(p.title), b.inlineLinks(scopeIDs(part.String(), p.slug)))
		math = math || p.math
	}
	d := b.base(b.study.Title, "index")
	d.Body = template.HTML(body.String())
	d.InlineScripts = []template.JS{template.JS(search)}
	if b.assets.hasECharts() {
		d.InlineScripts = append(d.InlineScripts, template.JS(b.assets.ECharts))
	}
	if math && len(b.assets.KaTeX) > 0 {
		d.InlineScripts = append(d.InlineScripts, template.JS(b.assets.KaTeX))
	}
	var out bytes.Buffer
	if err := b.tmpl.ExecuteTemplate(&out, "single", d); err != nil {
		return fmt.Errorf("index.html: %w", err)
	}
	// The single file is the whole HTML site; data and figures stay only
	// when the Markdown site (--format both) links to them.
	for k := range b.files {
		if b.m.Options.Format == "html" || strings.HasPrefix(k, "assets/") || strings.HasSuffix(k, ".html") {
			delete(b.files, k)
		}
	}
	b.files["index.html"] = out.Bytes()
	return nil
}

// inlineLinks turns links between pages into in-page anchors and files
// into data: URIs.
func (b *siteBuild) inlineLinks(h string) string {
	h = pageLinkRe.ReplaceAllStringFunc(h, func(m string) string {
		sub := pageLinkRe.FindStringSubmatch(m)
		if sub[2] != "" {
			return `href="#` + sectionID(sub[1], sub[2][1:]) + `"`
		}
		return `href="#p-` + sub[1] + `"`
	})
	return assetRe.ReplaceAllStringFunc(h, func(m string) string {
		sub := assetRe.FindStringSubmatch(m)
		data, ok := b.files[sub[2]]
		if !ok {
			return m
		}
		return sub[1] + `="data:` + mediaType(sub[2]) + `;base64,` + base64.StdEncoding.EncodeToString(data) + `"`
	})
}

// mediaTypes are the media types of the files a single file inlines.
var mediaTypes = map[string]string{".svg": "image/svg+xml", ".csv": "text/csv;charset=utf-8", ".json": "application/json",
	".tex": "text/x-tex;charset=utf-8", ".bib": "text/x-bibtex;charset=utf-8", ".cff": "application/x-yaml;charset=utf-8",
	".pdf": "application/pdf", ".png": "image/png"}

// mediaType is the media type of a file of the site, by its extension.
func mediaType(name string) string {
	if m, ok := mediaTypes[path.Ext(name)]; ok {
		return m
	}
	return "application/octet-stream"
}

// sectionID is the id, in the single file, of element id on page slug:
// every page is a section of one document, so the ids of each page are
// prefixed with its section's id (two pages may both have a "results"
// heading, and a narrative page's copy of a figure must not take the
// links meant for the analysis page's).
func sectionID(slug, id string) string { return "p-" + slug + "--" + id }

// scopeIDs prefixes the ids of one page's HTML (and the attributes and
// in-page links that name them) with its section's id.
func scopeIDs(h, slug string) string {
	h = idAttrRe.ReplaceAllStringFunc(h, func(m string) string {
		sub := idAttrRe.FindStringSubmatch(m)
		ids := strings.Fields(sub[2])
		for i, id := range ids {
			ids[i] = sectionID(slug, id)
		}
		return sub[1] + `="` + strings.Join(ids, " ") + `"`
	})
	return localRe.ReplaceAllStringFunc(h, func(m string) string {
		return `href="#` + sectionID(slug, localRe.FindStringSubmatch(m)[1]) + `"`
	})
}
