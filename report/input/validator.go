package input

import "slices"

// Validator checks what a cached output read (its files with their
// sha256, the headers it read alone with theirs (HeadKey), its path
// patterns with their matches) against the files as they are now, each
// pattern expanded and each file's sum taken once however many outputs
// (of however many analyses of a phase) name it.
type Validator struct {
	hashes   *HashStore
	patterns map[string][]string
	sums     map[string]string // "" for a file that cannot be hashed
}

// NewValidator is a validator taking files' sums from hashes.
func NewValidator(hashes *HashStore) *Validator {
	return &Validator{hashes: hashes, patterns: map[string][]string{}, sums: map[string]string{}}
}

// Current returns files with each one's sum as the file is now: false
// when a pattern matches other files now, or a file cannot be hashed.
func (v *Validator) Current(files map[string]string, patterns map[string][]string) (map[string]string, bool) {
	if !v.patternsHold(patterns) {
		return nil, false
	}
	now := make(map[string]string, len(files))
	for p := range files {
		s := v.sum(p)
		if s == "" {
			return nil, false
		}
		now[p] = s
	}
	return now, true
}

// patternsHold reports whether every pattern matches the same files now.
func (v *Validator) patternsHold(patterns map[string][]string) bool {
	for pat, was := range patterns {
		now, ok := v.patterns[pat]
		if !ok {
			files, _ := MatchPattern("", pat)
			now = make([]string, len(files))
			for i, f := range files {
				now[i] = f.Path
			}
			v.patterns[pat] = now
		}
		if !slices.Equal(now, was) {
			return false
		}
	}
	return true
}

// sum is a file's sha256 now, "" when it cannot be hashed.
func (v *Validator) sum(p string) string {
	s, ok := v.sums[p]
	if !ok {
		var err error
		if path, n, head := ParseHeadKey(p); head {
			s, err = HeadSum(path, n)
		} else {
			s, err = v.hashes.Sum(p)
		}
		if err != nil {
			s = ""
		}
		v.sums[p] = s
	}
	return s
}

// Valid reports whether every pattern still matches the same files and
// every file still has the same content.
func (v *Validator) Valid(files map[string]string, patterns map[string][]string) bool {
	if !v.patternsHold(patterns) {
		return false
	}
	for p, was := range files {
		if now := v.sum(p); now == "" || now != was {
			return false
		}
	}
	return true
}
