package report

import (
	"os"
	"path/filepath"
)

// studyFixture returns testdata/studies/<name>.txtar: a whole study (its
// study.toml and input files) as txtar text, which ParseArchive reads and
// WriteDir writes out. The fixtures are files, not Go strings, so they
// read as the study a user would write and diff as one.
func studyFixture(name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", "studies", name+".txtar"))
	if err != nil {
		panic(err) // a fixture the tests name is missing: nothing can run
	}
	return string(b)
}
