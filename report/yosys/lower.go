// Package yosys synthesizes the RTL with Yosys (synth_xilinx) and reads back
// its per-module statistics and the instance hierarchy for the report tables.
package yosys

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Source is one SystemVerilog file: its name (for messages) and text.
type Source struct {
	Name string
	Text string
}

// Lower rewrites the SystemVerilog that Yosys 0.23's read_verilog does not
// accept into plain equivalents, file by file, keeping every line where it
// was (so Yosys's messages still point at the right line). The rewrites, each
// exact for the widths involved:
//
//  1. comments are blanked (kept as spaces and newlines);
//  2. a package's body is moved to compilation-unit scope (`package P;` and
//     `endpackage` blanked; package files must come before the others), `import P::*;`
//     is blanked and `P::name` becomes `name`;
//  3. a cast to a typedef, `T'(x)`, becomes a size cast to T's width;
//  4. a function whose body is the single statement `return e;` assigns e to
//     the function name instead;
//  5. `x inside {a, [b:c]}` becomes `(x == a || (x >= b && x <= c))`;
//  6. an unpacked localparam array `localparam T N [K] = '{e0, ...};` becomes
//     a packed vector with e0 in the low bits, and `N[i]` the part-select
//     `N[(i)*W +: W]`;
//  7. a named assignment pattern `'{f: a, g: b}` becomes the concatenation
//     `{a, b}` in the order of the packed struct that has exactly those fields;
//  8. a whole unpacked-array assignment `a = b;` (or `<=`) with a literal size
//     is spelled out element by element;
//  9. `arr[i].f`, a member of an element of an unpacked array of structs
//     picked by a variable, reads a wire holding arr[i] declared at the end
//     of the module;
//  10. an unpacked array of a typedef'd type, `T a [N];`, is declared as
//     `logic [W-1:0] a [N];` with W T's width (Yosys 0.23 silently drops
//     the size of an unpacked array of a packed struct: the store queue
//     lost ~1,250 of its flip-flops that way);
//  11. every size cast `S'(e)` (S a name, a number or a parenthesized
//     expression, including those the rules above write) is parenthesized,
//     `(S'(e))`: Yosys 0.23 binds a unary operator before it to the size,
//     reading `~W'(x)` as `(~W)'(x)` (an error, or with an unsigned W a
//     huge zero-extended value: the load queue's incrementers stopped
//     counting at gate level).
//
// Afterwards every file is scanned for what the rules should have removed
// (`inside`, `return`, `import`, `package`, `P::name`, assignment patterns,
// unpacked arrays of typedef'd types in a form rule 10 does not match): any
// left is an error naming the file, line and construct, so a form the rules
// do not handle exactly never reaches Yosys.
func Lower(files []Source) ([]Source, error) {
	l := lowerer{types: map[string]typeInfo{}}
	out := make([]Source, len(files))
	for i, f := range files {
		out[i] = Source{Name: f.Name, Text: blankComments(f.Text)}
	}
	for i := range out {
		if err := l.collectTypes(out[i]); err != nil {
			return nil, err
		}
	}
	leading := true // no file without a package has come yet
	for i := range out {
		leading = leading && rePackage.MatchString(out[i].Text)
		text, err := l.lowerFile(out[i], leading)
		if err != nil {
			return nil, err
		}
		out[i].Text = text
	}
	return out, nil
}

// typeInfo is a typedef's width (a constant expression) and, for a packed
// struct, its fields from the most significant down.
type typeInfo struct {
	width  string
	fields []field
	file   string
}

type field struct{ name, width string }

type lowerer struct {
	types    map[string]typeInfo
	packages []string
}

// lineOf is the 1-based line of byte offset off in text.
func lineOf(text string, off int) int { return strings.Count(text[:off], "\n") + 1 }

// blankComments replaces // and /* */ comments with spaces, keeping newlines
// and string literals.
func blankComments(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"':
			for i++; i < len(b) && b[i] != '"' && b[i] != '\n'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			for ; i < len(b) && !(b[i] == '*' && i+1 < len(b) && b[i+1] == '/'); i++ {
				if b[i] != '\n' {
					b[i] = ' '
				}
			}
			if i+1 < len(b) {
				b[i], b[i+1] = ' ', ' '
				i++
			}
		}
	}
	return string(b)
}

var (
	reEnum    = regexp.MustCompile(`typedef\s+enum\s+(logic|bit|int\s+unsigned|int)?\s*(\[[^\]]+\])?\s*\{[^}]*\}\s*(\w+)\s*;`)
	reStruct  = regexp.MustCompile(`typedef\s+struct\s+packed\s*\{([^}]*)\}\s*(\w+)\s*;`)
	reMember  = regexp.MustCompile(`^\s*(logic|bit|\w+)\s*((?:\[[^\]]+\]\s*)*)([\w\s,]+)$`)
	reRange   = regexp.MustCompile(`\[([^:\]]+):([^\]]+)\]`)
	rePackage = regexp.MustCompile(`\bpackage\s+(\w+)\s*;`)
)

// rangeWidth is the width of "[h:l]" as a constant expression.
func rangeWidth(r string) string {
	m := reRange.FindStringSubmatch(r)
	if m == nil {
		return ""
	}
	h, l := strings.TrimSpace(m[1]), strings.TrimSpace(m[2])
	hi, err1 := strconv.Atoi(h)
	lo, err2 := strconv.Atoi(l)
	if err1 == nil && err2 == nil {
		if hi < lo {
			hi, lo = lo, hi
		}
		return strconv.Itoa(hi - lo + 1)
	}
	return fmt.Sprintf("((%s)-(%s)+1)", h, l)
}

func (l *lowerer) collectTypes(f Source) error {
	for _, m := range reEnum.FindAllStringSubmatchIndex(f.Text, -1) {
		name := f.Text[m[6]:m[7]]
		w := "32"
		if m[4] >= 0 {
			w = rangeWidth(f.Text[m[4]:m[5]])
		} else if m[2] >= 0 && !strings.HasPrefix(f.Text[m[2]:m[3]], "int") {
			w = "1"
		}
		if err := l.addType(f, m[0], name, typeInfo{width: w}); err != nil {
			return err
		}
	}
	for _, m := range reStruct.FindAllStringSubmatchIndex(f.Text, -1) {
		name := f.Text[m[4]:m[5]]
		var fields []field
		for _, decl := range strings.Split(f.Text[m[2]:m[3]], ";") {
			if strings.TrimSpace(decl) == "" {
				continue
			}
			d := reMember.FindStringSubmatch(strings.TrimSpace(decl))
			if d == nil {
				return fmt.Errorf("%s:%d: struct %s: cannot read member %q", f.Name, lineOf(f.Text, m[0]), name, strings.TrimSpace(decl))
			}
			w, err := l.memberWidth(d[1], d[2])
			if err != nil {
				return fmt.Errorf("%s:%d: struct %s: %w", f.Name, lineOf(f.Text, m[0]), name, err)
			}
			for _, n := range strings.Split(d[3], ",") {
				fields = append(fields, field{strings.TrimSpace(n), w})
			}
		}
		ws := make([]string, len(fields))
		for i, fl := range fields {
			ws[i] = fl.width
		}
		if err := l.addType(f, m[0], name, typeInfo{width: "(" + strings.Join(ws, "+") + ")", fields: fields}); err != nil {
			return err
		}
	}
	return nil
}

// memberWidth is the width of a struct member of base type base with packed
// dimensions dims (one dimension, or none).
func (l *lowerer) memberWidth(base, dims string) (string, error) {
	ds := reRange.FindAllString(dims, -1)
	if len(ds) > 1 {
		return "", fmt.Errorf("member with %d packed dimensions", len(ds))
	}
	w := "1"
	switch base {
	case "logic", "bit":
	default:
		t, ok := l.types[base]
		if !ok {
			return "", fmt.Errorf("member of unknown type %s", base)
		}
		w = t.width
	}
	if len(ds) == 1 {
		w = fmt.Sprintf("(%s)*(%s)", w, rangeWidth(ds[0]))
	}
	return w, nil
}

func (l *lowerer) addType(f Source, off int, name string, t typeInfo) error {
	t.file = f.Name
	if old, ok := l.types[name]; ok && old.width != t.width {
		return fmt.Errorf("%s:%d: typedef %s also declared in %s with another width; the lowering keeps one namespace", f.Name, lineOf(f.Text, off), name, old.file)
	}
	l.types[name] = t
	return nil
}

// edit replaces text[from:to] with repl.
type edit struct {
	from, to int
	repl     string
}

// apply makes non-overlapping edits (any order) to text.
func apply(text string, edits []edit) string {
	sort.Slice(edits, func(i, j int) bool { return edits[i].from < edits[j].from })
	var b strings.Builder
	pos := 0
	for _, e := range edits {
		if e.from < pos {
			continue // overlapping: the first one wins
		}
		b.WriteString(text[pos:e.from])
		b.WriteString(e.repl)
		pos = e.to
	}
	b.WriteString(text[pos:])
	return b.String()
}

// spaces keeps the newlines of s and blanks the rest.
func spaces(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' {
			return r
		}
		return ' '
	}, s)
}

// padLines appends to repl the newlines of the text it replaces.
func padLines(repl, replaced string) string {
	return repl + strings.Repeat("\n", strings.Count(replaced, "\n"))
}

func (l *lowerer) lowerFile(f Source, first bool) (string, error) {
	text := f.Text
	var err error
	steps := []func(Source, string, bool) (string, error){
		l.lowerPackage, l.lowerImports, l.lowerCasts, l.lowerReturns, l.lowerInside,
		l.lowerParamArrays, l.lowerPatterns, l.lowerArrays, l.lowerSizeCasts,
	}
	for _, step := range steps {
		if text, err = step(f, text, first); err != nil {
			return "", err
		}
	}
	if err := l.checkResidue(f, text); err != nil {
		return "", err
	}
	return text, nil
}

// lowerSizeCasts is rule 11: (S'(e)) for every size cast S'(e).
func (l *lowerer) lowerSizeCasts(f Source, text string, _ bool) (string, error) {
	var edits []edit
	for k := strings.Index(text, "'("); k >= 0; {
		start := k
		switch {
		case k > 0 && text[k-1] == ')':
			start = matchParenBack(text, k-1)
			if start < 0 {
				return "", fmt.Errorf("%s:%d: unbalanced ) before a size cast", f.Name, lineOf(text, k))
			}
		default:
			for start > 0 && isWordByte(text[start-1]) {
				start--
			}
		}
		end := matchClose(text, k+1, '(', ')')
		if end < 0 {
			return "", fmt.Errorf("%s:%d: size cast without its closing )", f.Name, lineOf(text, k))
		}
		if start < k { // a cast with no size is an assignment-pattern cast: left alone
			edits = append(edits, edit{start, start, "("}, edit{end + 1, end + 1, ")"})
		}
		next := strings.Index(text[k+2:], "'(")
		if next < 0 {
			break
		}
		k += 2 + next
	}
	return apply(text, edits), nil
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// matchClose is the index of the closer c that closes the opener o at open,
// or -1.
func matchClose(s string, open int, o, c byte) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case o:
			depth++
		case c:
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// matchParenBack is the index of the ( opening the ) at closeAt, or -1.
func matchParenBack(s string, closeAt int) int {
	depth := 0
	for i := closeAt; i >= 0; i-- {
		switch s[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// residue are forms the rules remove wherever they handle them exactly.
var residue = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`\binside\b`), "`inside` in a form rule 5 does not lower (want `x inside {a, [b:c]}` with x a name, select or member)"},
	{regexp.MustCompile(`\breturn\b`), "`return` in a form rule 4 does not lower (want a function body of one `return e;`)"},
	{regexp.MustCompile(`\bimport\b`), "`import` in a form rule 2 does not lower (want `import P::*;`)"},
	{regexp.MustCompile(`\b(?:end)?package\b`), "a package in a file other than the first"},
	{regexp.MustCompile(`\b\w+::`), "a scoped name of something that is not a package read first"},
	{regexp.MustCompile(`'\{`), "an assignment pattern rules 6 and 7 do not lower (positional, `default:`, or nested)"},
}

// checkResidue fails on the first construct the rules left in text.
func (l *lowerer) checkResidue(f Source, text string) error {
	at, what := len(text), ""
	for _, r := range residue {
		if loc := r.re.FindStringIndex(text); loc != nil && loc[0] < at {
			at, what = loc[0], r.what
		}
	}
	// An unpacked array of a typedef'd type that rule 10 did not rewrite
	// (several names in one declaration, a [lo:hi] range, ...).
	for name := range l.types {
		re := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\s+(\w+)\s*\[`)
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			if m[0] < at && !strings.HasSuffix(strings.TrimSpace(text[:m[0]]), "typedef") {
				at, what = m[0], fmt.Sprintf("unpacked array %s of type %s in a form rule 10 does not lower (want `%s %s [N];`, one name, a literal or parameter size)", text[m[2]:m[3]], name, name, text[m[2]:m[3]])
			}
		}
	}
	if what == "" {
		return nil
	}
	end := strings.IndexByte(text[at:], '\n')
	if end < 0 {
		end = len(text) - at
	}
	return fmt.Errorf("%s:%d: %s: %q", f.Name, lineOf(text, at), what, strings.TrimSpace(text[at:at+end]))
}

func (l *lowerer) lowerPackage(f Source, text string, first bool) (string, error) {
	m := rePackage.FindStringSubmatchIndex(text)
	if m == nil {
		return text, nil
	}
	if !first {
		return "", fmt.Errorf("%s:%d: package %s must come before every file that is not a package (its names go to compilation-unit scope)", f.Name, lineOf(text, m[0]), text[m[2]:m[3]])
	}
	l.packages = append(l.packages, text[m[2]:m[3]])
	end := strings.Index(text, "endpackage")
	if end < 0 {
		return "", fmt.Errorf("%s:%d: package %s has no endpackage", f.Name, lineOf(text, m[0]), text[m[2]:m[3]])
	}
	return apply(text, []edit{{m[0], m[1], spaces(text[m[0]:m[1]])}, {end, end + len("endpackage"), spaces("endpackage")}}), nil
}

var (
	reImport = regexp.MustCompile(`\bimport\s+(\w+)::\*\s*;`)
	reScoped = regexp.MustCompile(`\b(\w+)::(\w+)`)
)

func (l *lowerer) lowerImports(f Source, text string, _ bool) (string, error) {
	var edits []edit
	for _, m := range reImport.FindAllStringSubmatchIndex(text, -1) {
		if !l.isPackage(text[m[2]:m[3]]) {
			return "", fmt.Errorf("%s:%d: import of %s, which is not among the packages read (%s)", f.Name, lineOf(text, m[0]), text[m[2]:m[3]], strings.Join(l.packages, ", "))
		}
		edits = append(edits, edit{m[0], m[1], spaces(text[m[0]:m[1]])})
	}
	text = apply(text, edits)
	edits = nil
	for _, m := range reScoped.FindAllStringSubmatchIndex(text, -1) {
		if l.isPackage(text[m[2]:m[3]]) {
			edits = append(edits, edit{m[0], m[3] + 2, ""})
		}
	}
	return apply(text, edits), nil
}

func (l *lowerer) isPackage(name string) bool {
	for _, p := range l.packages {
		if p == name {
			return true
		}
	}
	return false
}

var reCast = regexp.MustCompile(`\b(\w+)'\(`)

func (l *lowerer) lowerCasts(_ Source, text string, _ bool) (string, error) {
	var edits []edit
	for _, m := range reCast.FindAllStringSubmatchIndex(text, -1) {
		if t, ok := l.types[text[m[2]:m[3]]]; ok {
			edits = append(edits, edit{m[2], m[3], "(" + t.width + ")"})
		}
	}
	return apply(text, edits), nil
}

var (
	reFunction = regexp.MustCompile(`(?s)\bfunction\b(.*?)\bendfunction\b`)
	reFuncName = regexp.MustCompile(`(\w+)\s*\($`)
	reReturn   = regexp.MustCompile(`\breturn\b`)
)

func (l *lowerer) lowerReturns(f Source, text string, _ bool) (string, error) {
	var edits []edit
	for _, m := range reFunction.FindAllStringSubmatchIndex(text, -1) {
		body := text[m[2]:m[3]]
		rets := reReturn.FindAllStringIndex(body, -1)
		if len(rets) == 0 {
			continue
		}
		open := strings.Index(body, "(")
		hdrEnd := strings.Index(body, ");")
		if open < 0 || hdrEnd < 0 {
			return "", fmt.Errorf("%s:%d: function without a port list in parentheses", f.Name, lineOf(text, m[0]))
		}
		nm := reFuncName.FindStringSubmatch(body[:open+1])
		if nm == nil {
			return "", fmt.Errorf("%s:%d: cannot find the function's name", f.Name, lineOf(text, m[0]))
		}
		stmt := strings.TrimSpace(body[hdrEnd+2:])
		if len(rets) != 1 || !strings.HasPrefix(stmt, "return") || strings.Count(stmt, ";") != 1 || !strings.HasSuffix(stmt, ";") {
			return "", fmt.Errorf("%s:%d: function %s: only a body of one `return e;` can be lowered for Yosys 0.23", f.Name, lineOf(text, m[0]), nm[1])
		}
		at := m[2] + rets[0][0]
		edits = append(edits, edit{at, at + len("return"), nm[1] + " ="})
	}
	return apply(text, edits), nil
}

var reInside = regexp.MustCompile(`([\w.]+(?:\[[^\]]*\])*)\s+inside\s*\{([^}]*)\}`)

func (l *lowerer) lowerInside(f Source, text string, _ bool) (string, error) {
	var edits []edit
	for _, m := range reInside.FindAllStringSubmatchIndex(text, -1) {
		x := text[m[2]:m[3]]
		var terms []string
		for _, item := range splitTop(text[m[4]:m[5]]) {
			item = strings.TrimSpace(item)
			if r := reRange.FindStringSubmatch(item); r != nil && strings.HasPrefix(item, "[") {
				terms = append(terms, fmt.Sprintf("(%s >= %s && %s <= %s)", x, strings.TrimSpace(r[1]), x, strings.TrimSpace(r[2])))
			} else if item != "" {
				terms = append(terms, fmt.Sprintf("%s == %s", x, item))
			}
		}
		if len(terms) == 0 {
			return "", fmt.Errorf("%s:%d: empty inside set", f.Name, lineOf(text, m[0]))
		}
		orig := text[m[0]:m[1]]
		edits = append(edits, edit{m[0], m[1], padLines("("+strings.Join(terms, " || ")+")", orig)})
	}
	return apply(text, edits), nil
}

// splitTop splits s at commas outside brackets, braces and parentheses.
func splitTop(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

var reParamArray = regexp.MustCompile(`\blocalparam\s+(\w+)((?:\s*\[[^\]]+\])?)\s+(\w+)\s*\[([^\]:]+)\]\s*=\s*'\{([^}]*)\}\s*;`)

func (l *lowerer) lowerParamArrays(f Source, text string, _ bool) (string, error) {
	for {
		m := reParamArray.FindStringSubmatchIndex(text)
		if m == nil {
			return text, nil
		}
		base, dims, name, count := text[m[2]:m[3]], text[m[4]:m[5]], text[m[6]:m[7]], strings.TrimSpace(text[m[8]:m[9]])
		w, err := l.memberWidth(base, dims)
		if err != nil {
			return "", fmt.Errorf("%s:%d: localparam %s: %w", f.Name, lineOf(text, m[0]), name, err)
		}
		elems := splitTop(text[m[10]:m[11]])
		for i, j := 0, len(elems)-1; i < j; i, j = i+1, j-1 {
			elems[i], elems[j] = elems[j], elems[i]
		}
		for i, e := range elems {
			elems[i] = fmt.Sprintf("(%s)'(%s)", w, strings.TrimSpace(e))
		}
		orig := text[m[0]:m[1]]
		decl := fmt.Sprintf("localparam logic [(%s)*(%s)-1:0] %s = {%s};", count, w, name, strings.Join(elems, ", "))
		edits := []edit{{m[0], m[1], padLines(decl, orig)}}
		// Every later N[i] in the file becomes a part-select.
		reUse := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\s*\[`)
		for _, u := range reUse.FindAllStringIndex(text[m[1]:], -1) {
			open := m[1] + u[1] - 1
			closeAt := matchClose(text, open, '[', ']')
			if closeAt < 0 {
				return "", fmt.Errorf("%s:%d: unbalanced [ after %s", f.Name, lineOf(text, open), name)
			}
			idx := text[open+1 : closeAt]
			edits = append(edits, edit{open, closeAt + 1, padLines(fmt.Sprintf("[(%s)*(%s) +: (%s)]", strings.TrimSpace(idx), w, w), idx)})
		}
		text = apply(text, edits)
	}
}

var rePattern = regexp.MustCompile(`'\{\s*(\w+)\s*:`)

func (l *lowerer) lowerPatterns(f Source, text string, _ bool) (string, error) {
	var edits []edit
	for _, m := range rePattern.FindAllStringSubmatchIndex(text, -1) {
		if text[m[2]:m[3]] == "default" {
			continue
		}
		end := matchClose(text, m[0]+1, '{', '}') - m[0]
		if end < 0 {
			return "", fmt.Errorf("%s:%d: unterminated assignment pattern", f.Name, lineOf(text, m[0]))
		}
		body := text[m[0]+2 : m[0]+end]
		vals := map[string]string{}
		var keys []string
		for _, item := range splitTop(body) {
			k, v, ok := strings.Cut(item, ":")
			if !ok {
				return "", fmt.Errorf("%s:%d: assignment pattern mixes named and positional items", f.Name, lineOf(text, m[0]))
			}
			k = strings.TrimSpace(k)
			vals[k] = strings.TrimSpace(v)
			keys = append(keys, k)
		}
		t, err := l.structWith(keys)
		if err != nil {
			return "", fmt.Errorf("%s:%d: %w", f.Name, lineOf(text, m[0]), err)
		}
		parts := make([]string, len(t.fields))
		for i, fl := range t.fields {
			parts[i] = fmt.Sprintf("(%s)'(%s)", fl.width, vals[fl.name])
		}
		orig := text[m[0] : m[0]+end+1]
		edits = append(edits, edit{m[0], m[0] + end + 1, padLines("{"+strings.Join(parts, ", ")+"}", orig)})
	}
	return apply(text, edits), nil
}

// structWith is the one packed struct whose fields are exactly keys.
func (l *lowerer) structWith(keys []string) (typeInfo, error) {
	want := append([]string(nil), keys...)
	sort.Strings(want)
	var found []string
	var t typeInfo
	for name, ti := range l.types {
		if len(ti.fields) != len(want) {
			continue
		}
		have := make([]string, len(ti.fields))
		for i, fl := range ti.fields {
			have[i] = fl.name
		}
		sort.Strings(have)
		if strings.Join(have, ",") == strings.Join(want, ",") {
			found = append(found, name)
			t = ti
		}
	}
	switch len(found) {
	case 0:
		return t, fmt.Errorf("no packed struct has exactly the fields %s", strings.Join(want, ", "))
	case 1:
		return t, nil
	}
	sort.Strings(found)
	return t, fmt.Errorf("the fields %s fit several structs (%s)", strings.Join(want, ", "), strings.Join(found, ", "))
}

// unpacked is an array variable with one unpacked dimension [size].
type unpacked struct {
	elemType string
	size     string
}

var (
	reUnpackedDecl = regexp.MustCompile(`(?m)^\s*(\w+)((?:\s*\[[^\]]+\])?)\s+(\w+)\s*\[([^\]:]+)\]\s*;`)
	reWholeAssign  = regexp.MustCompile(`(?m)^(\s*)(\w+)\s*(<=|=)\s*(\w+)\s*;`)
	reElemMember   = regexp.MustCompile(`\b(\w+)\[(\w+)\]\.(\w+)\b`)
	reEndmodule    = regexp.MustCompile(`\bendmodule\b`)
)

func (l *lowerer) lowerArrays(f Source, text string, _ bool) (string, error) {
	arrays := map[string]unpacked{}
	var typed []edit
	for _, m := range reUnpackedDecl.FindAllStringSubmatchIndex(text, -1) {
		typ := text[m[2]:m[3]]
		if typ == "localparam" || typ == "parameter" {
			continue
		}
		arrays[text[m[6]:m[7]]] = unpacked{elemType: typ, size: strings.TrimSpace(text[m[8]:m[9]])}
		// Rule 10: a typedef'd element type becomes a logic vector of its
		// width. Packed dimensions on it would have to go outside that
		// vector; no rule does that, so they are refused.
		if t, ok := l.types[typ]; ok {
			if strings.TrimSpace(text[m[4]:m[5]]) != "" {
				return "", fmt.Errorf("%s:%d: unpacked array %s of %s with packed dimensions %s: not lowered (declare it as a logic array)", f.Name, lineOf(text, m[0]), text[m[6]:m[7]], typ, strings.TrimSpace(text[m[4]:m[5]]))
			}
			typed = append(typed, edit{m[2], m[3], fmt.Sprintf("logic [(%s)-1:0]", t.width)})
		}
	}
	if len(arrays) == 0 {
		return text, nil
	}
	edits := typed
	for _, m := range reWholeAssign.FindAllStringSubmatchIndex(text, -1) {
		dst, op, src := text[m[4]:m[5]], text[m[6]:m[7]], text[m[8]:m[9]]
		a, okA := arrays[dst]
		b, okB := arrays[src]
		if !okA || !okB {
			continue
		}
		n, err := strconv.Atoi(a.size)
		if err != nil || a.size != b.size {
			return "", fmt.Errorf("%s:%d: whole-array assignment %s %s %s needs both arrays of one literal size", f.Name, lineOf(text, m[0]), dst, op, src)
		}
		var stmts []string
		for i := 0; i < n; i++ {
			stmts = append(stmts, fmt.Sprintf("%s[%d] %s %s[%d];", dst, i, op, src, i))
		}
		edits = append(edits, edit{m[4], m[1], strings.Join(stmts, " ")})
	}
	text = apply(text, edits)

	// arr[i].f: read arr[i] into a struct wire first.
	edits = nil
	type temp struct {
		name, decl string
		endAt      int
	}
	temps := map[string]temp{}
	for _, m := range reElemMember.FindAllStringSubmatchIndex(text, -1) {
		arr, idx := text[m[2]:m[3]], text[m[4]:m[5]]
		a, ok := arrays[arr]
		if !ok {
			continue
		}
		if _, isStruct := l.types[a.elemType]; !isStruct {
			continue
		}
		end := reEndmodule.FindStringIndex(text[m[1]:])
		if end == nil {
			return "", fmt.Errorf("%s:%d: no endmodule after %s[%s]", f.Name, lineOf(text, m[0]), arr, idx)
		}
		name := arr + "__at_" + idx
		temps[name] = temp{name, fmt.Sprintf("%s %s; assign %s = %s[%s]; ", a.elemType, name, name, arr, idx), m[1] + end[0]}
		edits = append(edits, edit{m[2], m[5] + 1, name})
	}
	names := slices.Sorted(maps.Keys(temps))
	decls := map[int]string{}
	for _, n := range names {
		decls[temps[n].endAt] += temps[n].decl
	}
	for at, d := range decls {
		edits = append(edits, edit{at, at, d})
	}
	return apply(text, edits), nil
}
