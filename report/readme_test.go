package report

import (
	"github.com/evalbook/evalbook/report/kinds"
	"github.com/evalbook/evalbook/report/manifest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeDocumentsEveryAnalysis keeps the manifest reference honest:
// every registered type has a "### `type`" section in README.md that
// names each of its keys.
func TestReadmeDocumentsEveryAnalysis(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	for _, typ := range kinds.Kinds().Types() {
		head := "### `" + typ + "`"
		i := strings.Index(readme, head)
		if i < 0 {
			t.Errorf("README.md has no section %s", head)
			continue
		}
		section := readme[i+len(head):]
		if j := strings.Index(section, "\n### "); j >= 0 {
			section = section[:j]
		}
		if j := strings.Index(section, "\n## "); j >= 0 {
			section = section[:j]
		}
		for _, key := range manifest.TomlKeys(kinds.Kinds()[typ].NewOptions()) {
			if !regexp.MustCompile(`(?m)(^|[\s.\x60])` + regexp.QuoteMeta(key) + `(\s*=|\x60|\])`).MatchString(section) {
				t.Errorf("README.md section %s does not document key %q", head, key)
			}
		}
	}
}
