package report

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMetaDesignOptionErrors: design = "independent" applies to per-unit
// values only, and ranger_compat (the population sd of the differences)
// has no differences to apply to there; each is an error at the key's
// line. An unknown design lists the valid ones.
func TestMetaDesignOptionErrors(t *testing.T) {
	t.Parallel()
	base := "title = \"d\"\n[inputs]\nunits = [\"u.csv\"]\n[[analyses]]\nid = \"m\"\ntype = \"meta_analysis\"\ntreatment = \"A\"\ncontrol = \"B\"\nmetric = \"s\"\n"
	for _, c := range []struct{ extra, key, want string }{
		{"summary = \"sum.csv\"\ndesign = \"independent\"\n", "design", "applies to per-unit values"},
		{"design = \"independent\"\nranger_compat = true\n", "ranger_compat", "applies to paired values"},
		{"design = \"unpaired\"\n", "design", "paired, independent"},
	} {
		dir := t.TempDir()
		manifest := base + c.extra
		os.WriteFile(filepath.Join(dir, "study.toml"), []byte(manifest), 0o644)
		os.WriteFile(filepath.Join(dir, "u.csv"), []byte("dataset,method,unit,metric,value\nd,A,u1,s,1\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "sum.csv"), []byte("dataset,yi,vi\nd,1,0.1\n"), 0o644)
		_, err := Validate(context.Background(), Options{Manifest: filepath.Join(dir, "study.toml"), NoCache: true})
		line := 0
		for i, l := range strings.Split(manifest, "\n") {
			if strings.HasPrefix(l, c.key+" ") {
				line = i + 1
			}
		}
		if want := fmt.Sprintf("study.toml:%d:", line); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q at %s", c.extra, err, c.want, want)
		}
	}
}
