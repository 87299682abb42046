package report

// The rendered site is kept in the disk cache too, as one entry per site
// key (siteKey): a build whose analyses and inputs are those of a site
// rendered before — nothing changed, or an edit was undone — writes that
// site again without rendering it.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"

	"github.com/evalbook/evalbook/report/cachefmt"
	"github.com/evalbook/evalbook/report/input"
	"github.com/evalbook/evalbook/report/load"
	"github.com/evalbook/evalbook/report/manifest"
	"github.com/evalbook/evalbook/themes"
)

// renderSite renders the site in memory, or takes the one rendered for
// the same key from the disk cache, with the warnings its rendering
// printed (printed again): then the outputs of the analyses taken from
// the disk cache are never decoded. What it renders is stored for a
// later build.
func (o *Options) renderSite(s *manifest.Study, runs []analysisRun, prov *Provenance, in *load.Inputs) (map[string][]byte, error) {
	key, study := o.siteKey(s, runs, prov), s.File+"\x00"+o.Out
	if files, warned, ok := o.cache.disk.getSite(study, key); ok {
		if o.Warn != nil {
			o.Warn.Write(warned)
		}
		return files, nil
	}
	for i := range runs {
		if err := runs[i].loadOutput(); err != nil {
			return nil, err
		}
	}
	var warned bytes.Buffer
	ro := *o
	ro.Warn = &warned
	if o.Warn != nil {
		ro.Warn = io.MultiWriter(o.Warn, &warned)
	}
	files, err := newSiteBuild(s, runs, prov, ro, in).render()
	if err != nil {
		return nil, err
	}
	o.cache.disk.putSite(study, key, files, warned.Bytes())
	return files, nil
}

// siteKey is the address of the site a build renders, made of what the
// rendering reads: the provenance (the manifest's and every input's
// sum, the analyses' parameters and seeds, the engine's tables and
// queries, the version and the command), each analysis's key, and the
// options that shape the output. "" when the site is not kept: without
// the disk cache, for validate, and with a test's assets or hooks.
func (o *Options) siteKey(s *manifest.Study, runs []analysisRun, prov *Provenance) string {
	if !o.cache.on || o.cache.disk == nil || o.validate || o.Assets != nil || o.onExport != nil {
		return ""
	}
	parts := []any{prov, s.File, o.Out, o.Format, o.Paper, o.SingleFile, wantExports(s, *o)}
	for _, r := range runs {
		parts = append(parts, r.Spec.ID, r.key)
	}
	b, err := json.Marshal(parts)
	if err != nil {
		return ""
	}
	return hashStrings([]string{string(b)})
}

// siteID names the directories of rendered sites in the store (an
// analysis id has no underscore): one per study and output, which keeps
// its maxSitesPerStudy most recently used sites, one per site key.
const siteID, maxSitesPerStudy = "_site", 4

// getSite returns the files of the site of study rendered for key and
// the warnings its rendering printed, when the store has them. A
// damaged entry is reported, removed and a miss.
func (d *diskStore) getSite(study, key string) (files map[string][]byte, warnings []byte, ok bool) {
	if d == nil || key == "" {
		return nil, nil, false
	}
	p := filepath.Join(d.keyDir(siteID, study), cachefmt.SiteEntryName(key))
	b, err := input.ReadOwn(p)
	if err == nil {
		files, warnings, err = cachefmt.ReadSite(b, themes.Libraries())
	}
	if errors.Is(err, errDamaged) {
		d.drop(p, err, "the site is rendered again")
	}
	if err != nil {
		return nil, nil, false
	}
	d.touch(p)
	return files, warnings, true
}

// putSite stores the site of study rendered for key, with the warnings
// its rendering printed, in the background.
func (d *diskStore) putSite(study, key string, files map[string][]byte, warnings []byte) {
	if key != "" {
		d.putEntry(siteID, study, cachefmt.SiteEntryName(key), func() ([]byte, []byte, error) {
			return []byte(cachefmt.SiteStamp), cachefmt.EncodeSite(files, warnings, themes.Libraries()), nil
		})
	}
}
