package manifest

import (
	"bytes"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// KeyLines maps dotted keys of a manifest to the line they are written on
// ("analyses.2" is the line of the third [[analyses]] header,
// "analyses.2.metric" the line of its metric key). BurntSushi/toml keeps
// no positions for decoded keys, so error messages look them up here.
func KeyLines(src []byte) map[string]int {
	k := &keyScan{out: map[string]int{}, counts: map[string]int{}, last: map[string]string{}}
	for i, raw := range bytes.Split(src, []byte("\n")) {
		line := strings.TrimSpace(string(raw))
		n := i + 1
		switch {
		case k.arrayKey != "" && k.inMulti == "":
			k.arrayLine(line, n)
		case k.inMulti != "":
			if strings.Count(line, k.inMulti)%2 == 1 {
				k.inMulti = ""
			}
		case line == "" || line[0] == '#':
		case line[0] == '[':
			k.header(line, n)
		default:
			k.keyValue(line, n)
		}
	}
	return k.out
}

// keyScan is KeyLines' state between lines.
type keyScan struct {
	out    map[string]int
	counts map[string]int    // entries of each array of tables so far
	last   map[string]string // array-of-tables name → its latest entry's key
	prefix string            // the key of the table the lines are in
	// inMulti is the delimiter of a multi-line string being skipped.
	inMulti string
	// a value that is an array spanning lines (results = [ … ]): each
	// element that starts a line is keyed "<key>.<index>"
	arrayKey    string
	depth, elem int
}

// arrayLine keys the elements that start a line of a multi-line array.
func (k *keyScan) arrayLine(line string, n int) {
	if k.depth == 1 && line != "" && line[0] != '#' && line[0] != ']' {
		key := k.arrayKey + "." + strconv.Itoa(k.elem)
		if _, ok := k.out[key]; !ok {
			k.out[key] = n
		}
		// one element per line is the common layout; a line may also
		// hold several ({ … }, { … },)
		k.elem += max(1, topLevelCommas(line))
	}
	k.depth += bracketDepth(line)
	if k.depth <= 0 {
		k.arrayKey = ""
	}
}

// header keys a [table] or [[array of tables]] header line.
func (k *keyScan) header(line string, n int) {
	if strings.HasPrefix(line, "[[") {
		name := tableName(strings.TrimPrefix(line, "[["), "]]")
		idx := k.counts[name]
		k.counts[name]++
		k.prefix = name + "." + strconv.Itoa(idx)
		k.last[name] = k.prefix
		k.out[k.prefix] = n
		return
	}
	// A sub-table of the latest entry of an array of tables
	// ([analyses.evalrs2022] after the third [[analyses]]) is keyed under
	// that entry: "analyses.2.evalrs2022".
	name := tableName(line[1:], "]")
	k.prefix = name
	longest := ""
	for arr, at := range k.last {
		if rest, ok := strings.CutPrefix(name, arr+"."); ok && len(arr) > len(longest) {
			longest, k.prefix = arr, at+"."+rest
		}
	}
	if _, ok := k.out[k.prefix]; !ok {
		k.out[k.prefix] = n
	}
}

// keyValue keys a key = value line, and notes a multi-line string or
// array that starts on it.
func (k *keyScan) keyValue(line string, n int) {
	eq := strings.IndexByte(line, '=')
	if eq <= 0 {
		return
	}
	full := unquoteKey(strings.TrimSpace(line[:eq]))
	if k.prefix != "" {
		full = k.prefix + "." + full
	}
	if _, ok := k.out[full]; !ok {
		k.out[full] = n
	}
	rest := line[eq+1:]
	for _, q := range []string{`"""`, `'''`} {
		if strings.Count(rest, q)%2 == 1 {
			k.inMulti = q
		}
	}
	v := strings.TrimSpace(rest)
	if !strings.HasPrefix(v, "[") || k.inMulti != "" {
		return
	}
	if d := bracketDepth(v); d > 0 {
		k.arrayKey, k.depth, k.elem = full, d, 0
		if inner := strings.TrimSpace(v[1:]); inner != "" && inner[0] != '#' {
			k.out[full+".0"] = n // elements begin on the key's line
			k.elem = topLevelCommas(inner)
		}
	}
}

// topLevelCommas counts the commas of a line outside quotes, brackets
// and braces: the elements of an array the line completes.
func topLevelCommas(line string) int {
	_, commas := tomlLineShape(line)
	return commas
}

// tomlLineShape scans a line of TOML outside strings and comments: the
// change of [ { nesting over it, and its commas outside any nesting.
func tomlLineShape(line string) (depth, commas int) {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			return depth, commas
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			commas++
		}
	}
	return depth, commas
}

func tableName(s, closer string) string {
	if i := strings.Index(s, closer); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	for i, p := range parts {
		parts[i] = unquoteKey(strings.TrimSpace(p))
	}
	return strings.Join(parts, ".")
}

func unquoteKey(k string) string {
	if len(k) >= 2 && (k[0] == '"' || k[0] == '\'') && k[len(k)-1] == k[0] {
		return k[1 : len(k)-1]
	}
	return k
}

// TomlKeys lists the `toml` tags of the struct v points to (embedded
// structs included).
func TomlKeys(v any) []string {
	var keys []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			tag := strings.Split(f.Tag.Get("toml"), ",")[0]
			if tag != "" && tag != "-" {
				keys = append(keys, tag)
			}
		}
	}
	walk(reflect.TypeOf(v).Elem())
	sort.Strings(keys)
	return keys
}

// fieldByTag returns a pointer to the field of *v whose toml tag is key.
func fieldByTag(v any, key string) any {
	var find func(rv reflect.Value) any
	find = func(rv reflect.Value) any {
		t := rv.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				if p := find(rv.Field(i)); p != nil {
					return p
				}
				continue
			}
			if strings.Split(f.Tag.Get("toml"), ",")[0] == key {
				return rv.Field(i).Addr().Interface()
			}
		}
		return nil
	}
	return find(reflect.ValueOf(v).Elem())
}
