package report

// Why this file exists: JSON has no NaN or infinity, and encoding/json
// refuses a result that holds one with a bare "json: unsupported value:
// +Inf" that names neither the analysis nor the number. Tables already
// write such cells as null; this does the same for a result's own fields
// and says where they were, so the data file is still written and the
// page can note it.

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// marshalResult marshals v as encoding/json does, except that a NaN or
// infinite float is written as null. It returns the JSON paths of those
// values ("profile.rho[2][5]"), none when json.Marshal succeeds (the
// fast, usual case, whose bytes are json.Marshal's).
func marshalResult(v any) ([]byte, []string, error) {
	b, err := json.Marshal(v)
	var unsupported *json.UnsupportedValueError
	if err == nil || !errors.As(err, &unsupported) {
		return b, nil, err
	}
	e := &finiteEncoder{}
	e.encode(reflect.ValueOf(v), "")
	if e.err != nil {
		return nil, nil, e.err
	}
	return e.buf.Bytes(), e.paths, nil
}

// nonFiniteNote is the reader's note about values written as null.
func nonFiniteNote(paths []string) string {
	const show = 5
	list := paths
	if len(list) > show {
		list = list[:show]
	}
	more := ""
	if len(paths) > show {
		more = fmt.Sprintf(" and %d more", len(paths)-show)
	}
	what := "value is"
	if len(paths) > 1 {
		what = "values are"
	}
	return fmt.Sprintf("%d %s not finite (NaN or ±infinity) and written as null in the JSON data: %s%s.",
		len(paths), what, strings.Join(list, ", "), more)
}

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// finiteEncoder follows encoding/json's rules for the types results use:
// structs (json tags, omitempty, embedded structs), maps with sorted
// keys, slices, pointers, interfaces and Marshalers.
type finiteEncoder struct {
	buf   bytes.Buffer
	paths []string
	err   error
}

func (e *finiteEncoder) fail(path string, err error) {
	if e.err == nil {
		if path == "" {
			path = "the result"
		}
		e.err = fmt.Errorf("%s: %w", path, err)
	}
	e.buf.WriteString("null")
}

// std writes x with encoding/json.
func (e *finiteEncoder) std(x any, path string) {
	b, err := json.Marshal(x)
	if err != nil {
		e.fail(path, err)
		return
	}
	e.buf.Write(b)
}

func (e *finiteEncoder) encode(v reflect.Value, path string) {
	if !v.IsValid() {
		e.buf.WriteString("null")
		return
	}
	if e.marshaler(v, path) {
		return
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		e.float(v, path)
	case reflect.Bool:
		e.std(v.Bool(), path)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.std(v.Int(), path)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.std(v.Uint(), path)
	case reflect.String:
		e.std(v.String(), path)
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			e.buf.WriteString("null")
			return
		}
		e.encode(v.Elem(), path)
	case reflect.Slice:
		e.slice(v, path)
	case reflect.Array:
		e.array(v, path)
	case reflect.Map:
		e.mapValue(v, path)
	case reflect.Struct:
		e.structValue(v, path)
	default:
		e.fail(path, fmt.Errorf("json: unsupported type %s", v.Type()))
	}
}

// marshaler encodes a value that marshals itself (json.Marshaler or
// encoding.TextMarshaler, on the value or its address) as encoding/json
// does, and reports whether it did.
func (e *finiteEncoder) marshaler(v reflect.Value, path string) bool {
	t := v.Type()
	if v.CanInterface() && (t.Implements(jsonMarshalerType) || t.Implements(textMarshalerType)) {
		if t.Kind() == reflect.Pointer && v.IsNil() {
			e.buf.WriteString("null")
			return true
		}
		e.std(v.Interface(), path)
		return true
	}
	if v.CanAddr() && v.Addr().CanInterface() && (reflect.PointerTo(t).Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)) {
		e.std(v.Addr().Interface(), path)
		return true
	}
	return false
}

// float encodes a float, recording the path of a NaN or an infinity
// (written as null).
func (e *finiteEncoder) float(v reflect.Value, path string) {
	f := v.Float()
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		e.paths = append(e.paths, path)
		e.buf.WriteString("null")
	case v.Kind() == reflect.Float32:
		e.std(float32(f), path)
	default:
		e.std(f, path)
	}
}

// slice encodes a slice: null when nil, base64 for bytes (as
// encoding/json), an array otherwise.
func (e *finiteEncoder) slice(v reflect.Value, path string) {
	switch {
	case v.IsNil():
		e.buf.WriteString("null")
	case v.Type().Elem().Kind() == reflect.Uint8 && v.CanInterface():
		e.std(v.Interface(), path)
	default:
		e.array(v, path)
	}
}

func (e *finiteEncoder) array(v reflect.Value, path string) {
	e.buf.WriteByte('[')
	for i := 0; i < v.Len(); i++ {
		if i > 0 {
			e.buf.WriteByte(',')
		}
		e.encode(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
	}
	e.buf.WriteByte(']')
}

func (e *finiteEncoder) mapValue(v reflect.Value, path string) {
	if v.IsNil() {
		e.buf.WriteString("null")
		return
	}
	type entry struct {
		key string
		val reflect.Value
	}
	var entries []entry
	it := v.MapRange()
	for it.Next() {
		k := it.Key()
		var ks string
		switch {
		case k.Kind() == reflect.String:
			ks = k.String()
		case k.CanInterface() && k.Type().Implements(textMarshalerType):
			b, err := k.Interface().(encoding.TextMarshaler).MarshalText()
			if err != nil {
				e.fail(path, err)
				return
			}
			ks = string(b)
		case k.CanInt():
			ks = strconv.FormatInt(k.Int(), 10)
		case k.CanUint():
			ks = strconv.FormatUint(k.Uint(), 10)
		default:
			e.fail(path, fmt.Errorf("json: unsupported map key type %s", k.Type()))
			return
		}
		entries = append(entries, entry{ks, it.Value()})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].key < entries[j].key })
	e.buf.WriteByte('{')
	for i, en := range entries {
		if i > 0 {
			e.buf.WriteByte(',')
		}
		e.std(en.key, path)
		e.buf.WriteByte(':')
		e.encode(en.val, joinPath(path, en.key))
	}
	e.buf.WriteByte('}')
}

// jsonField is one field of a struct as encoding/json sees it.
type jsonField struct {
	name      string
	depth     int
	tagged    bool
	omitEmpty bool
	val       reflect.Value
}

func (e *finiteEncoder) structValue(v reflect.Value, path string) {
	var fields []jsonField
	collectFields(v, 0, &fields)
	// Of several fields with one name, the shallowest wins, then the only
	// tagged one among the shallowest; a tie hides them all
	// (encoding/json's rule).
	shallowest := map[string][]int{}
	for i, f := range fields {
		l := shallowest[f.name]
		switch {
		case len(l) == 0 || f.depth < fields[l[0]].depth:
			shallowest[f.name] = []int{i}
		case f.depth == fields[l[0]].depth:
			shallowest[f.name] = append(l, i)
		}
	}
	winner := map[string]int{}
	for name, l := range shallowest {
		winner[name] = -1
		if len(l) == 1 {
			winner[name] = l[0]
			continue
		}
		n := 0
		for _, i := range l {
			if fields[i].tagged {
				winner[name], n = i, n+1
			}
		}
		if n != 1 {
			winner[name] = -1
		}
	}
	e.buf.WriteByte('{')
	first := true
	for i, f := range fields {
		if winner[f.name] != i || (f.omitEmpty && isEmptyJSON(f.val)) {
			continue
		}
		if !first {
			e.buf.WriteByte(',')
		}
		first = false
		e.std(f.name, path)
		e.buf.WriteByte(':')
		e.encode(f.val, joinPath(path, f.name))
	}
	e.buf.WriteByte('}')
}

// collectFields lists the JSON fields of struct v in field order, with the
// fields of untagged embedded structs in the place of the embedding.
func collectFields(v reflect.Value, depth int, out *[]jsonField) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := v.Field(i)
		if sf.Anonymous && name == "" {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
				if ft.Kind() == reflect.Struct {
					if fv.IsNil() {
						continue
					}
					fv = fv.Elem()
				}
			}
			if ft.Kind() == reflect.Struct {
				collectFields(fv, depth+1, out)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		tagged := name != ""
		if !tagged {
			name = sf.Name
		}
		*out = append(*out, jsonField{name: name, depth: depth, tagged: tagged,
			omitEmpty: strings.Contains(","+opts+",", ",omitempty,"), val: fv})
	}
}

// isEmptyJSON is encoding/json's omitempty test.
func isEmptyJSON(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
