package site

// An analysis document (data/<id>.json) is built once, as a tree of
// values, straight from the result's exported fields by reflection
// (encoding/json's rules: json tags, omitempty, embedded structs, maps
// with sorted keys). The same tree is written to data/<id>.json, read by
// {{value}} lookups and handed to paper.Macros: nothing is marshalled to
// be decoded again. The one exception is a value that marshals itself
// (json.Marshaler, encoding.TextMarshaler: leaderboard.OptFloat,
// multiobjective.Importance): its own bytes are kept (Raw), written as
// they are, and decoded only when a lookup or the macros walk into it.
//
// A tree value is one of: nil, bool, string, Number, Raw, []any, *Object.

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Number is a JSON number as encoding/json writes it.
type Number string

// Raw is the JSON a value wrote itself (compact, as json.Marshal
// returns it).
type Raw []byte

// Object is a JSON object whose keys keep their order (and, as the
// text would, a repeated key: a lookup finds its last value).
type Object struct {
	keys  []string
	vals  []any
	index map[string]int
}

func newObject(n int) *Object {
	return &Object{keys: make([]string, 0, n), vals: make([]any, 0, n), index: make(map[string]int, n)}
}

// add appends a key and its value.
func (o *Object) add(k string, v any) {
	o.index[k] = len(o.keys)
	o.keys = append(o.keys, k)
	o.vals = append(o.vals, v)
}

// get is the value of key k (its last, if repeated).
func (o *Object) get(k string) (any, bool) {
	i, ok := o.index[k]
	if !ok {
		return nil, false
	}
	return o.vals[i], true
}

var (
	jsonMarshalerType = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// treeBuilder turns Go values into a tree; a NaN or an infinite float
// becomes nil and its path is recorded.
type treeBuilder struct {
	nonFinite []string
	err       error
}

// treeOf is v's tree, the non-finite values' paths, or an error naming
// where a value cannot be written as JSON.
func treeOf(v any) (any, []string, error) {
	b := &treeBuilder{}
	t := b.value(reflect.ValueOf(v), "")
	return t, b.nonFinite, b.err
}

func (b *treeBuilder) fail(path string, err error) any {
	if b.err == nil {
		if path == "" {
			path = "the result"
		}
		b.err = fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func (b *treeBuilder) value(v reflect.Value, path string) any {
	if !v.IsValid() {
		return nil
	}
	if raw, ok := b.marshaler(v, path); ok {
		return raw
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		return b.float(v, path)
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return Number(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return Number(strconv.FormatUint(v.Uint(), 10))
	case reflect.String:
		return v.String()
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return b.value(v.Elem(), path)
	case reflect.Slice:
		return b.slice(v, path)
	case reflect.Array:
		return b.array(v, path)
	case reflect.Map:
		return b.mapValue(v, path)
	case reflect.Struct:
		return b.structValue(v, path)
	}
	return b.fail(path, fmt.Errorf("json: unsupported type %s", v.Type()))
}

// marshaler keeps the bytes of a value that marshals itself (on the
// value or its address), as encoding/json writes them.
func (b *treeBuilder) marshaler(v reflect.Value, path string) (any, bool) {
	t := v.Type()
	var x any
	switch {
	case v.CanInterface() && (t.Implements(jsonMarshalerType) || t.Implements(textMarshalerType)):
		if t.Kind() == reflect.Pointer && v.IsNil() {
			return nil, true
		}
		x = v.Interface()
	case v.CanAddr() && v.Addr().CanInterface() && (reflect.PointerTo(t).Implements(jsonMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType)):
		x = v.Addr().Interface()
	default:
		return nil, false
	}
	raw, err := json.Marshal(x)
	if err != nil {
		return b.fail(path, err), true
	}
	return Raw(raw), true
}

// float is a finite float as encoding/json writes it (shortest form,
// e-notation below 1e-6 and from 1e21), else nil with its path noted.
func (b *treeBuilder) float(v reflect.Value, path string) any {
	f := v.Float()
	if math.IsNaN(f) || math.IsInf(f, 0) {
		b.nonFinite = append(b.nonFinite, path)
		return nil
	}
	bits := 64
	if v.Kind() == reflect.Float32 {
		bits = 32
	}
	return jsonFloat(f, bits)
}

// jsonFloat is encoding/json's float encoder.
func jsonFloat(f float64, bits int) Number {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	s := strconv.AppendFloat(nil, f, format, -1, bits)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(s); n >= 4 && s[n-4] == 'e' && s[n-3] == '-' && s[n-2] == '0' {
			s[n-2] = s[n-1]
			s = s[:n-1]
		}
	}
	return Number(s)
}

// slice is null when nil, base64 text for bytes, a list otherwise.
func (b *treeBuilder) slice(v reflect.Value, path string) any {
	switch {
	case v.IsNil():
		return nil
	case v.Type().Elem().Kind() == reflect.Uint8 && v.CanInterface():
		raw, err := json.Marshal(v.Interface())
		if err != nil {
			return b.fail(path, err)
		}
		return Raw(raw)
	}
	return b.array(v, path)
}

func (b *treeBuilder) array(v reflect.Value, path string) any {
	out := make([]any, v.Len())
	for i := range out {
		out[i] = b.value(v.Index(i), path+"["+strconv.Itoa(i)+"]")
	}
	return out
}

// mapValue is an object with the map's keys (as text) sorted.
func (b *treeBuilder) mapValue(v reflect.Value, path string) any {
	if v.IsNil() {
		return nil
	}
	type entry struct {
		key string
		val reflect.Value
	}
	entries := make([]entry, 0, v.Len())
	it := v.MapRange()
	for it.Next() {
		ks, err := mapKey(it.Key())
		if err != nil {
			return b.fail(path, err)
		}
		entries = append(entries, entry{ks, it.Value()})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].key < entries[j].key })
	o := newObject(len(entries))
	for _, e := range entries {
		o.add(e.key, b.value(e.val, joinPath(path, e.key)))
	}
	return o
}

// mapKey is a map key as encoding/json writes it.
func mapKey(k reflect.Value) (string, error) {
	switch {
	case k.Kind() == reflect.String:
		return k.String(), nil
	case k.CanInterface() && k.Type().Implements(textMarshalerType):
		b, err := k.Interface().(encoding.TextMarshaler).MarshalText()
		return string(b), err
	case k.CanInt():
		return strconv.FormatInt(k.Int(), 10), nil
	case k.CanUint():
		return strconv.FormatUint(k.Uint(), 10), nil
	}
	return "", fmt.Errorf("json: unsupported map key type %s", k.Type())
}

// jsonField is one field of a struct as encoding/json sees it.
type jsonField struct {
	name      string
	depth     int
	tagged    bool
	omitEmpty bool
	val       reflect.Value
}

func (b *treeBuilder) structValue(v reflect.Value, path string) any {
	var fields []jsonField
	collectFields(v, 0, &fields)
	winner := fieldWinners(fields)
	o := newObject(len(fields))
	for i, f := range fields {
		if winner[f.name] != i || (f.omitEmpty && isEmptyJSON(f.val)) {
			continue
		}
		o.add(f.name, b.value(f.val, joinPath(path, f.name)))
	}
	return o
}

// fieldWinners picks, of several fields with one name, the shallowest,
// then the only tagged one among the shallowest; a tie hides them all
// (-1; encoding/json's rule).
func fieldWinners(fields []jsonField) map[string]int {
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
	return winner
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
			if ev, ok := embeddedStruct(sf.Type, fv); ok {
				if ev.IsValid() {
					collectFields(ev, depth+1, out)
				}
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

// embeddedStruct is the struct an untagged embedded field holds (invalid
// for a nil pointer), and whether the field embeds a struct at all.
func embeddedStruct(ft reflect.Type, fv reflect.Value) (reflect.Value, bool) {
	if ft.Kind() == reflect.Pointer {
		if ft.Elem().Kind() != reflect.Struct {
			return fv, false
		}
		if fv.IsNil() {
			return reflect.Value{}, true
		}
		return fv.Elem(), true
	}
	return fv, ft.Kind() == reflect.Struct
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

// writeTree writes a tree as json.Indent(compact, "", " ") would, the
// value starting at the given depth.
func writeTree(buf *bytes.Buffer, v any, depth int) {
	switch x := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(x))
	case string:
		writeString(buf, x)
	case Number:
		buf.WriteString(string(x))
	case Raw:
		if err := json.Indent(buf, x, strings.Repeat(" ", depth), " "); err != nil {
			buf.Write(x)
		}
	case []any:
		if len(x) == 0 {
			buf.WriteString("[]")
			return
		}
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			newline(buf, depth+1)
			writeTree(buf, e, depth+1)
		}
		newline(buf, depth)
		buf.WriteByte(']')
	case *Object:
		if len(x.keys) == 0 {
			buf.WriteString("{}")
			return
		}
		buf.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			newline(buf, depth+1)
			writeString(buf, k)
			buf.WriteString(": ")
			writeTree(buf, x.vals[i], depth+1)
		}
		newline(buf, depth)
		buf.WriteByte('}')
	}
}

func newline(buf *bytes.Buffer, depth int) {
	buf.WriteByte('\n')
	for i := 0; i < depth; i++ {
		buf.WriteByte(' ')
	}
}

// writeString writes s as encoding/json does (HTML characters escaped);
// plain ASCII directly, anything else through json.Marshal.
func writeString(buf *bytes.Buffer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			buf.Write(q)
			return
		}
	}
	buf.WriteByte('"')
	buf.WriteString(s)
	buf.WriteByte('"')
}

// plain is a tree value as json.Unmarshal into an any would give it
// (numbers float64, objects map[string]any), for {{value}}: a Raw is
// decoded here, the one place its bytes are read back.
func plain(v any) any {
	switch x := v.(type) {
	case Number:
		f, _ := strconv.ParseFloat(string(x), 64)
		return f
	case Raw:
		var out any
		if err := json.Unmarshal(x, &out); err != nil {
			return nil
		}
		return out
	}
	return v
}

// decoded is a tree as a json.Decoder with UseNumber gives it (objects
// map[string]any, numbers json.Number), for paper.Macros.
func decoded(v any) any {
	switch x := v.(type) {
	case Number:
		return json.Number(x)
	case Raw:
		dec := json.NewDecoder(bytes.NewReader(x))
		dec.UseNumber()
		var out any
		if err := dec.Decode(&out); err != nil {
			return nil
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = decoded(e)
		}
		return out
	case *Object:
		out := make(map[string]any, len(x.keys))
		for i, k := range x.keys {
			out[k] = decoded(x.vals[i])
		}
		return out
	}
	return v
}
