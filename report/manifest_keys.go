package report

import (
	"bytes"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// keyLines maps dotted keys of a manifest to the line they are written on
// ("analyses.2" is the line of the third [[analyses]] header,
// "analyses.2.metric" the line of its metric key). BurntSushi/toml keeps
// no positions for decoded keys, so error messages look them up here.
func keyLines(src []byte) map[string]int {
	out := map[string]int{}
	counts := map[string]int{}
	last := map[string]string{} // array-of-tables name → its latest entry's key
	prefix := ""
	inMulti := ""
	// a value that is an array spanning lines (results = [ … ]): each
	// element that starts a line is keyed "<key>.<index>"
	arrayKey, depth, elem := "", 0, 0
	for i, raw := range bytes.Split(src, []byte("\n")) {
		line := strings.TrimSpace(string(raw))
		n := i + 1
		if arrayKey != "" && inMulti == "" {
			if depth == 1 && line != "" && line[0] != '#' && line[0] != ']' {
				if _, ok := out[arrayKey+"."+strconv.Itoa(elem)]; !ok {
					out[arrayKey+"."+strconv.Itoa(elem)] = n
				}
				// one element per line is the common layout; a line may
				// also hold several ({ … }, { … },)
				elem += max(1, topLevelCommas(line))
			}
			depth += bracketDepth(line)
			if depth <= 0 {
				arrayKey = ""
			}
			continue
		}
		if inMulti != "" {
			if strings.Count(line, inMulti)%2 == 1 {
				inMulti = ""
			}
			continue
		}
		switch {
		case line == "" || line[0] == '#':
			continue
		case strings.HasPrefix(line, "[["):
			name := tableName(strings.TrimPrefix(line, "[["), "]]")
			idx := counts[name]
			counts[name]++
			prefix = name + "." + strconv.Itoa(idx)
			last[name] = prefix
			out[prefix] = n
			continue
		case line[0] == '[':
			// A sub-table of the latest entry of an array of tables
			// ([analyses.evalrs2022] after the third [[analyses]]) is
			// keyed under that entry: "analyses.2.evalrs2022".
			name := tableName(line[1:], "]")
			prefix = name
			longest := ""
			for arr, at := range last {
				if rest, ok := strings.CutPrefix(name, arr+"."); ok && len(arr) > len(longest) {
					longest, prefix = arr, at+"."+rest
				}
			}
			if _, ok := out[prefix]; !ok {
				out[prefix] = n
			}
			continue
		}
		eq := strings.IndexByte(line, '=')
		if eq <= 0 {
			continue
		}
		key := unquoteKey(strings.TrimSpace(line[:eq]))
		full := key
		if prefix != "" {
			full = prefix + "." + key
		}
		if _, ok := out[full]; !ok {
			out[full] = n
		}
		rest := line[eq+1:]
		for _, q := range []string{`"""`, `'''`} {
			if strings.Count(rest, q)%2 == 1 {
				inMulti = q
			}
		}
		if v := strings.TrimSpace(rest); strings.HasPrefix(v, "[") && inMulti == "" {
			if d := bracketDepth(v); d > 0 {
				arrayKey, depth, elem = full, d, 0
				if inner := strings.TrimSpace(v[1:]); inner != "" && inner[0] != '#' {
					out[full+".0"] = n // elements begin on the key's line
					elem = topLevelCommas(inner)
				}
			}
		}
	}
	return out
}

// topLevelCommas counts the commas of a line outside quotes, brackets
// and braces: the elements of an array the line completes.
func topLevelCommas(line string) int {
	n, nest := 0, 0
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
			return n
		case c == '[' || c == '{':
			nest++
		case c == ']' || c == '}':
			nest--
		case c == ',' && nest == 0:
			n++
		}
	}
	return n
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

// tomlKeys lists the `toml` tags of the struct v points to (embedded
// structs included).
func tomlKeys(v any) []string {
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
