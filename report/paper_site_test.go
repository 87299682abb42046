package report

import "testing"

// TestFormatPaper: --format latex and --format paper build the HTML site
// with paper/ (Options.Paper); html does not.
func TestFormatPaper(t *testing.T) {
	for format, paper := range map[string]bool{"latex": true, "paper": true, "html": false, "": false} {
		o := Options{Format: format}
		if err := o.normalise(); err != nil {
			t.Fatal(err)
		}
		if o.Format != "html" || o.Paper != paper {
			t.Errorf("--format %q: Format %q, Paper %v", format, o.Format, o.Paper)
		}
	}
	o := Options{Format: "pdf"}
	if err := o.normalise(); err == nil {
		t.Error("--format pdf accepted")
	}
}
