package paper

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/evalbook/evalbook/analyses"
	"github.com/evalbook/evalbook/figures/model"
)

// Doc is one analysis's JSON document (the site's data/<ID>.json): its
// text, or Value, the document as a json.Decoder with UseNumber gives it
// (objects map[string]any, numbers json.Number), which is used when set.
//
// Naming names what a text macro shows: a metric, method, dataset, rule
// or strategy by its label, an option value such as "smd" by its term
// (analyses.Naming); the zero value shows the built-in labels only.
//
// Shown, when set, says how the analysis's tables print a number: the
// text of v in a column key that holds exactly v, or false (none, or
// two tables that print it apart). A number macro reads as its table.
type Doc struct {
	ID     string
	JSON   []byte
	Value  map[string]any
	Naming analyses.Naming
	Shown  func(key string, v float64) (string, bool)
}

// Macro is one number (or name) of an analysis as a LaTeX macro.
type Macro struct {
	Name  string // without the backslash, letters only
	Value string // the LaTeX the macro expands to
	Text  string // the value as the site shows it (plain text)
	// Pointers are the JSON Pointers (RFC 6901) into data/<ID>.json of
	// the value(s) the macro shows: one, or several for a joint winner.
	Pointers []string
	ID       string // the analysis id
}

// skipped are the keys of an analysis document that are not results:
// what the analysis is, its parameters and seed, its notes and tables.
var skipped = map[string]bool{"id": true, "type": true, "title": true, "caption": true, "seed": true, "params": true,
	"warnings": true, "tables": true}

// MacroSkipped reports whether Macros ignores a top-level key of an
// analysis's document (its tables, options, warnings, …), so a caller
// need not decode it.
func MacroSkipped(key string) bool { return skipped[key] }

// labelKeys name, in order of preference, the field that labels an
// element of an array of results (a rule, an objective, a subgroup, …).
var labelKeys = []string{"rule", "objective", "group", "subgroup", "strategy", "name", "method", "dataset", "metric", "quantity"}

// maxLabelled is the longest array of labelled results that gets macros
// (one per element and number): longer ones are data, not key numbers.
const maxLabelled = 24

// MacroName is the naming rule: "eb", then the analysis id and each step
// of the path to the value, each split at every character that is not a
// letter or digit, each part with its first letter upper-cased and every
// digit spelled as its English word (0 → Zero … 9 → Nine): LaTeX macro
// names hold letters only. E.g. analysis "meta-ease-vs-als", value
// summary.ci_low → \ebMetaEaseVsAlsSummaryCiLow; "ndcg@10" → NdcgOneZero.
func MacroName(parts ...string) string {
	var b strings.Builder
	b.WriteString("eb")
	for _, p := range parts {
		up := true
		for _, r := range p {
			switch {
			case r >= '0' && r <= '9':
				b.WriteString(digitWords[r-'0'])
				up = true
			case r < unicode.MaxASCII && unicode.IsLetter(r):
				if up {
					r = unicode.ToUpper(r)
				}
				b.WriteRune(r)
				up = false
			default:
				up = true
			}
		}
	}
	return b.String()
}

var digitWords = [10]string{"Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine"}

// Macros finds the key numbers of every analysis document:
//
//   - every number and name at the top of the document and in objects
//     under it (summary.effect, summary.ci_low, …);
//   - in arrays of at most 24 objects that each carry a distinct label
//     (their rule, objective, group, … or "a vs b" for a pair), every
//     number of each element, named by its label (the stability of each
//     rule, each fitted objective, each pair's p);
//   - for a result holding methods with scores and ranks under each rule
//     (a leaderboard), the winner (rank 1; joint winners together) of
//     each rule and its score.
//
// Two values whose names collide are an error naming both.
func Macros(docs []Doc) ([]Macro, error) {
	var out []Macro
	seen := map[string]string{}
	for _, d := range docs {
		doc := d.Value
		if doc == nil {
			dec := json.NewDecoder(bytes.NewReader(d.JSON))
			dec.UseNumber()
			if err := dec.Decode(&doc); err != nil {
				return nil, fmt.Errorf("data/%s.json: %v", d.ID, err)
			}
		}
		c := &collector{id: d.ID, n: d.Naming, printed: printedOf(doc), shown: d.Shown}
		c.object(doc, nil, nil, true)
		c.winners(doc)
		for _, m := range c.out {
			if prev, dup := seen[m.Name]; dup {
				return nil, fmt.Errorf("LaTeX macro \\%s names two values, %s and %s: rename one analysis id", m.Name, prev, m.ID+strings.Join(m.Pointers, ","))
			}
			seen[m.Name] = m.ID + strings.Join(m.Pointers, ",")
			out = append(out, m)
		}
	}
	return out, nil
}

type collector struct {
	id  string
	n   analyses.Naming
	out []Macro
	// printed are the decimals the analysis writes some of its numbers
	// with, by JSON Pointer (its document's "decimals"; a meta-analysis's
	// effects and intervals): their macros write them so.
	printed map[string]int
	shown   func(key string, v float64) (string, bool) // Doc.Shown
}

// printedKey is the top-level key of an analysis's document that gives,
// by JSON Pointer, the decimals it writes some numbers with.
const printedKey = "decimals"

// printedOf reads a document's printedKey (nil without).
func printedOf(doc map[string]any) map[string]int {
	m, _ := doc[printedKey].(map[string]any)
	if len(m) == 0 {
		return nil
	}
	out := map[string]int{}
	for p, v := range m {
		if f, ok := number(v); ok {
			out[p] = int(f)
		}
	}
	return out
}

// termKeys are the keys whose string values are option values with a
// term label (analyses.Terms: "smd" → "standardised mean difference").
var termKeys = map[string]bool{"effect": true, "input_form": true, "test": true, "zero_method": true,
	"effect_size": true, "ci": true, "branch": true, "variance_test": true}

// text is what a name macro shows for value v under key: the label of
// the id it holds (a metric under "metric" or "base", a method under
// "control", "treatment", "method", a dataset in "units of <dataset>",
// …); any other text as it is.
func (c *collector) text(key, v string) string {
	n := c.n
	switch key {
	case "metric", "base":
		return n.Metric(v)
	case "control", "treatment":
		return n.Method(v)
	case "method": // a method, or the correlation's method ("spearman")
		if l := n.Method(v); l != v {
			return l
		}
		return n.Term(v)
	case "dataset":
		return n.Dataset(v)
	case "rule":
		return n.Rule(v)
	case "strategy":
		return n.Strategy(v)
	case "over":
		if d, ok := strings.CutPrefix(v, "units of "); ok {
			return "units of " + n.Dataset(d)
		}
		return v
	}
	if termKeys[key] {
		return n.Term(v)
	}
	return v
}

// object adds the scalars of an object and descends into its objects
// and labelled arrays. names are the name parts so far, ptr the JSON
// Pointer tokens.
func (c *collector) object(m map[string]any, names, ptr []string, top bool) {
	for _, k := range sortedKeys(m) {
		if top && (skipped[k] || k == printedKey) {
			continue
		}
		v := m[k]
		n, p := append(names[:len(names):len(names)], k), append(ptr[:len(ptr):len(ptr)], k)
		switch x := v.(type) {
		case json.Number, string:
			c.scalar(x, n, p)
		case map[string]any:
			c.object(x, n, p, false)
		case []any:
			if len(names) == 0 {
				c.labelled(x, n, p)
			}
		}
	}
}

// labelled adds the numbers of an array of labelled objects.
func (c *collector) labelled(arr []any, names, ptr []string) {
	if len(arr) == 0 || len(arr) > maxLabelled {
		return
	}
	labels := make([]string, len(arr))
	seen := map[string]bool{}
	for i, e := range arr {
		m, ok := e.(map[string]any)
		if !ok {
			return
		}
		l := label(m)
		if l == "" || seen[MacroName(l)] {
			return // no label, or two elements alike: no predictable names
		}
		seen[MacroName(l)] = true
		labels[i] = l
	}
	for i, e := range arr {
		m := e.(map[string]any)
		for _, k := range sortedKeys(m) {
			n := append(names[:len(names):len(names)], labels[i], k)
			p := append(ptr[:len(ptr):len(ptr)], strconv.Itoa(i), k)
			switch x := m[k].(type) {
			case json.Number:
				c.scalar(x, n, p)
			case map[string]any:
				for _, kk := range sortedKeys(x) {
					if num, ok := x[kk].(json.Number); ok {
						c.scalar(num, append(n[:len(n):len(n)], kk), append(p[:len(p):len(p)], kk))
					}
				}
			}
		}
	}
}

// label is what names an element: "a vs b" for a pair, else its first
// label field that holds a string.
func label(m map[string]any) string {
	a, okA := m["a"].(string)
	b, okB := m["b"].(string)
	if okA && okB {
		return a + " vs " + b
	}
	for _, k := range labelKeys {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// winners adds, for a leaderboard (methods, scores.<rule>, ranks.<rule>),
// each rule's winner and the winner's score.
func (c *collector) winners(doc map[string]any) {
	methods, ok := doc["methods"].([]any)
	scores, ok2 := doc["scores"].(map[string]any)
	ranks, ok3 := doc["ranks"].(map[string]any)
	if !ok || !ok2 || !ok3 {
		return
	}
	for _, rule := range sortedKeys(ranks) {
		rs, _ := ranks[rule].([]any)
		ss, _ := scores[rule].([]any)
		if len(rs) != len(methods) || len(ss) != len(methods) {
			continue
		}
		best := math.Inf(1)
		for _, r := range rs {
			if f, ok := number(r); ok && f < best {
				best = f
			}
		}
		var names, ptrs, scorePtrs []string
		var score json.Number
		for i, r := range rs {
			if f, ok := number(r); ok && f == best {
				name, _ := methods[i].(string)
				names = append(names, c.n.Method(name))
				ptrs = append(ptrs, fmt.Sprintf("/methods/%d", i))
				scorePtrs = append(scorePtrs, fmt.Sprintf("/scores/%s/%d", escapePointer(rule), i))
				if s, ok := ss[i].(json.Number); ok && score == "" {
					score = s
				}
			}
		}
		if len(names) == 0 {
			continue
		}
		text := strings.Join(names, " and ")
		c.out = append(c.out, Macro{Name: MacroName(c.id, "winner", rule), Value: Escape(text), Text: text, Pointers: ptrs, ID: c.id})
		if score == "" {
			continue
		}
		// Joint winners share one score only when their scores tie; a
		// rank-1 tie of other scores gets no score macro.
		same := true
		f0, _ := strconv.ParseFloat(string(score), 64)
		for _, p := range scorePtrs[1:] {
			i, _ := strconv.Atoi(p[strings.LastIndexByte(p, '/')+1:])
			if f, ok := number(ss[i]); !ok || f != f0 {
				same = false
			}
		}
		if same {
			m, ok := numberMacro(score)
			if ok {
				m.Name, m.Pointers, m.ID = MacroName(c.id, "winner", rule, "score"), scorePtrs[:1], c.id
				c.out = append(c.out, m)
			}
		}
	}
}

func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	return f, err == nil
}

// scalar adds a number or a short name.
func (c *collector) scalar(v any, names, ptr []string) {
	var m Macro
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return
		}
		switch d, ok := c.printed[pointer(ptr)]; {
		case ok:
			m = texMacro(analyses.FixedText(f, d)) // as the analysis writes it everywhere
		case f >= 0 && f <= 1 && model.IsPValueColumn(names[len(names)-1]):
			m = texMacro(analyses.FormatP(f)) // as the tables write p-values
		default:
			m = texMacro(Number(f))
			if c.shown != nil {
				if text, ok := c.shown(names[len(names)-1], f); ok {
					m = texMacro(text) // as its table prints it
				}
			}
		}
	case string:
		if x == "" || len(x) > 80 || strings.ContainsAny(x, "\n") {
			return
		}
		t := c.text(names[len(names)-1], x)
		m = Macro{Value: Escape(t), Text: t}
	default:
		return
	}
	m.Name = MacroName(append([]string{c.id}, names...)...)
	m.Pointers = []string{pointer(ptr)}
	m.ID = c.id
	c.out = append(c.out, m)
}

// pointer is the JSON Pointer of the tokens ptr.
func pointer(ptr []string) string {
	toks := make([]string, len(ptr))
	for i, t := range ptr {
		toks[i] = escapePointer(t)
	}
	return "/" + strings.Join(toks, "/")
}

// numberMacro is a number as the site shows it (Number), in math mode
// so the macro works in text and in formulas.
func numberMacro(n json.Number) (Macro, bool) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return Macro{}, false
	}
	return texMacro(Number(f)), true
}

// texMacro is a number written as text ("0.1197", "6.5e-30", "< 1e-300"
// of analyses.FormatP) as a macro in math mode: e-notation as
// \times 10^{e}.
func texMacro(s string) Macro {
	tex := s
	if s == analyses.PValueZero {
		tex = `<10^{-300}`
	} else if m, e, ok := strings.Cut(s, "e"); ok {
		n, _ := strconv.Atoi(e)
		tex = fmt.Sprintf(`%s\times 10^{%d}`, m, n)
	}
	return Macro{Value: `\ensuremath{` + tex + `}`, Text: s}
}

// pointerEscaper escapes a JSON Pointer token (RFC 6901); built once, as
// building it cost more than the escaping (it runs for every scalar of
// every analysis document, a tenth of a cached build).
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return pointerEscaper.Replace(s)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// MacrosTeX writes evalbook.tex: one \newcommand per macro, each after a
// comment naming the analysis and the JSON Pointer of its value in
// data/<id>.json.
func MacrosTeX(title string, macros []Macro) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%% evalbook.tex: the key numbers of %q, written by evalbook.\n", strings.Join(strings.Fields(title), " "))
	b.WriteString("% \\input{evalbook.tex} in the preamble; each macro shows its number as the site does,\n")
	b.WriteString("% and a name by its label (a metric's, a method's, ...); data/<id>.json keeps the ids.\n")
	b.WriteString("% Naming rule: \\eb + analysis id + path of the value, each part capitalised, other characters\n")
	b.WriteString("% dropped and digits spelled (ndcg@10 -> NdcgOneZero). Comments give data/<id>.json and the value's JSON Pointer.\n")
	id := ""
	for _, m := range macros {
		if m.ID != id {
			id = m.ID
			fmt.Fprintf(&b, "\n%% ---- %s (data/%s.json)\n", id, id)
		}
		fmt.Fprintf(&b, "%% %s %s\n\\newcommand{\\%s}{%s}\n", m.ID, strings.Join(m.Pointers, " "), m.Name, m.Value)
	}
	return b.Bytes()
}
