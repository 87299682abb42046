package report

import (
	"context"
	"github.com/evalbook/evalbook/report/manifest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// exportCounter counts, per build, the figures whose PDF and PNG were
// rendered (Options.onExport).
type exportCounter struct {
	mu  sync.Mutex
	ids []string
}

func (c *exportCounter) hook(o *Options) {
	o.onExport = func(id string) { c.mu.Lock(); c.ids = append(c.ids, id); c.mu.Unlock() }
}

func (c *exportCounter) n() int { c.mu.Lock(); defer c.mu.Unlock(); return len(c.ids) }

// exportFiles lists the PDF and PNG files of a site's figures/ and paper/.
func exportFiles(t *testing.T, site string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(site, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ext := filepath.Ext(p); ext == ".pdf" || ext == ".png" {
			rel, _ := filepath.Rel(site, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestExportsOnlyWhenAsked: the figures' PDF and PNG are rendered only
// when asked — --format paper (Options.Paper), pack (Options.Exports) or
// the manifest's exports = true — and never by validate, whatever it is
// asked (counted through the build's export hook, not timed).
func TestExportsOnlyWhenAsked(t *testing.T) {
	exportsOn := strings.Replace(lbStudy, `title = "t"`, "title = \"t\"\nexports = true", 1)
	cases := []struct {
		name, study string
		format      string
		exports     bool
		want        bool // PDF and PNG of the figure, written and linked
	}{
		{"default build", lbStudy, "both", false, false},
		{"html build", lbStudy, "html", false, false},
		{"format paper", lbStudy, "paper", false, true},
		{"format latex", lbStudy, "latex", false, true},
		{"pack asks", lbStudy, "html", true, true},
		{"manifest exports = true", exportsOn, "html", false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var cnt exportCounter
			site := mustBuild(t, c.study+lbResults, func(o *Options) {
				o.Format, o.Exports = c.format, c.exports
				cnt.hook(o)
			})
			files := exportFiles(t, site)
			page, err := os.ReadFile(filepath.Join(site, "lb.html"))
			if err != nil {
				t.Fatal(err)
			}
			linked := strings.Contains(string(page), `href="figures/lb.pdf"`) && strings.Contains(string(page), `href="figures/lb.png"`)
			if !c.want {
				if cnt.n() != 0 || len(files) != 0 || linked {
					t.Fatalf("rendered %d exports, wrote %v, linked %v; want none", cnt.n(), files, linked)
				}
				return
			}
			if cnt.n() == 0 || !linked {
				t.Fatalf("rendered %d exports, linked %v; want the figure's PDF and PNG offered", cnt.n(), linked)
			}
			for _, want := range []string{"figures/lb.pdf", "figures/lb.png"} {
				if !manifest.Contains(files, want) {
					t.Errorf("%s missing from %v", want, files)
				}
			}
			if c.format == "paper" || c.format == "latex" {
				if !manifest.Contains(files, "paper/figures/lb.pdf") {
					t.Errorf("paper/figures/lb.pdf missing from %v", files)
				}
			}
		})
	}
	t.Run("validate renders none", func(t *testing.T) {
		dir := t.TempDir()
		if err := ParseArchive([]byte(exportsOn + lbResults)).WriteDir(dir); err != nil {
			t.Fatal(err)
		}
		var cnt exportCounter
		o := Options{Manifest: filepath.Join(dir, "study.toml"), Format: "paper", Exports: true}
		cnt.hook(&o)
		if _, err := Validate(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		if cnt.n() != 0 {
			t.Fatalf("validate rendered the exports of %v", cnt.ids)
		}
	})
}
