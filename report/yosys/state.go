package yosys

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The flip-flop check of `make report`: every state bit the RTL declares (a
// variable assigned in an edge-triggered always block, as Verilator
// elaborates it) must be held by the synthesized netlist, variable by
// variable and block by block, in a flip-flop or a LUT RAM bit whose output
// carries the variable's name. It caught the store queue that Yosys 0.23
// synthesized with 17 of its ~1,270 flip-flops (docs/reports.md).

// StateVar is one variable a block's RTL assigns on a clock edge.
type StateVar struct {
	Name  string
	Bits  int
	Elems int    // elements of its unpacked dimensions (1 for none)
	Loc   string // file:line of the declaration
}

// RTLInstance is one instance of the elaborated RTL and its state variables.
type RTLInstance struct {
	Path   string // arcalis_top.u_rx_engine.u_line_buffer
	Module string // source module name
	Vars   []StateVar
}

// RTLDesign is what ReadVerilatorXML finds: instances by path and the top
// module's parameters.
type RTLDesign struct {
	Instances map[string]*RTLInstance
	Top       string
	Params    []string        // parameters (not localparams) of the top module
	Ports     map[string]Port // the top module's ports
}

// Port is a module port: its direction (input, output, inout) and width.
type Port struct {
	Dir  string
	Bits int
}

// node is an element of Verilator's XML, kept generic.
type node struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Children []*node    `xml:",any"`
}

func (n *node) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n *node) tag() string { return n.XMLName.Local }

// ReadVerilatorXML reads `verilator --xml-only` output (5.006's layout:
// <files>, <cells> with the instance tree, <netlist> with <module>s and a
// <typetable>). name is used in errors.
func ReadVerilatorXML(r io.Reader, name string) (*RTLDesign, error) {
	var root node
	if err := xml.NewDecoder(r).Decode(&root); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	files := map[string]string{}
	var cells, netlist *node
	for _, c := range root.Children {
		switch c.tag() {
		case "files":
			for _, f := range c.Children {
				files[f.attr("id")] = f.attr("filename")
			}
		case "cells":
			cells = c
		case "netlist":
			netlist = c
		}
	}
	if cells == nil || netlist == nil || len(cells.Children) != 1 {
		return nil, fmt.Errorf("%s: no <cells> with one top cell, or no <netlist> (not verilator --xml-only output?)", name)
	}
	loc := func(n *node) string {
		f := strings.Split(n.attr("loc"), ",")
		if len(f) < 2 {
			return "?"
		}
		return files[f[0]] + ":" + f[1]
	}
	types := map[string]*node{}
	modules := map[string]*node{}
	for _, c := range netlist.Children {
		switch c.tag() {
		case "module":
			modules[c.attr("name")] = c
		case "typetable":
			for _, t := range c.Children {
				types[t.attr("id")] = t
			}
		}
	}
	tw := typeWidths{types: types, memo: map[string]int{}}
	d := &RTLDesign{Instances: map[string]*RTLInstance{}}
	var walk func(c *node) error
	walk = func(c *node) error {
		path, sub := c.attr("hier"), c.attr("submodname")
		m := modules[sub]
		if m == nil {
			return fmt.Errorf("%s: instance %s of module %s, which the netlist does not have", name, path, sub)
		}
		inst := &RTLInstance{Path: path, Module: m.attr("origName")}
		vars, err := moduleState(m, tw, loc)
		if err != nil {
			return fmt.Errorf("%s: module %s: %w", name, inst.Module, err)
		}
		inst.Vars = vars
		d.Instances[path] = inst
		for _, k := range c.Children {
			if err := walk(k); err != nil {
				return err
			}
		}
		return nil
	}
	top := cells.Children[0]
	d.Top = top.attr("hier")
	if err := walk(top); err != nil {
		return nil, err
	}
	d.Ports = map[string]Port{}
	for _, v := range modules[top.attr("submodname")].Children {
		if v.tag() == "var" && v.attr("param") == "true" {
			d.Params = append(d.Params, v.attr("name"))
		}
		if dir := v.attr("dir"); v.tag() == "var" && dir != "" {
			w, err := tw.width(v.attr("dtype_id"))
			if err != nil {
				return nil, fmt.Errorf("%s: %s: port %s: %w", name, loc(v), v.attr("name"), err)
			}
			d.Ports[v.attr("name")] = Port{Dir: dir, Bits: w}
		}
	}
	return d, nil
}

// moduleState lists the variables of module m assigned in an always block
// with an edge in its sensitivity list, with their widths.
func moduleState(m *node, tw typeWidths, loc func(*node) string) ([]StateVar, error) {
	decl := map[string]*node{}
	assigned := map[string]bool{}
	var visit func(n *node, prefix string, inProc, clocked bool)
	visit = func(n *node, prefix string, inProc, clocked bool) {
		switch n.tag() {
		case "func", "task", "instance", "cell":
			return // locals of functions are not state; instances are walked apart
		case "var":
			// A variable declared in a process is a local of it (a loop
			// index), not state.
			if !inProc {
				decl[prefix+n.attr("name")] = n
			}
			return
		case "always":
			inProc, clocked = true, hasEdge(n)
		case "begin":
			// A named generate block prefixes its variables' names (Yosys
			// names them BLOCK.VAR too); a named block in a process does not.
			if nm := n.attr("name"); nm != "" && !inProc {
				prefix += nm + "."
			}
		case "assign", "assigndly":
			if clocked && len(n.Children) == 2 {
				for _, t := range targets(n.Children[1]) {
					assigned[t] = true
				}
			}
		}
		for _, c := range n.Children {
			visit(c, prefix, inProc, clocked)
		}
	}
	for _, c := range m.Children {
		visit(c, "", false, false)
	}
	var out []StateVar
	for name := range assigned {
		v := decl[name]
		if v == nil {
			continue // assigned through a name declared outside the module
		}
		w, err := tw.width(v.attr("dtype_id"))
		if err != nil {
			return nil, fmt.Errorf("%s: variable %s: %w", loc(v), name, err)
		}
		out = append(out, StateVar{Name: name, Bits: w, Elems: tw.elems(v.attr("dtype_id")), Loc: loc(v)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func hasEdge(always *node) bool {
	for _, c := range always.Children {
		if c.tag() != "sentree" {
			continue
		}
		for _, s := range c.Children {
			if e := s.attr("edgeType"); e == "POS" || e == "NEG" || e == "BOTH" {
				return true
			}
		}
	}
	return false
}

// targets are the variables an assignment's left-hand side writes: the
// first operand of a select, every operand of a concatenation.
func targets(lhs *node) []string {
	switch lhs.tag() {
	case "varref":
		return []string{lhs.attr("name")}
	case "sel", "arraysel", "structsel", "memberselect", "wordsel":
		if len(lhs.Children) > 0 {
			return targets(lhs.Children[0])
		}
	case "concat":
		var out []string
		for _, c := range lhs.Children {
			out = append(out, targets(c)...)
		}
		return out
	}
	return nil
}

// typeWidths computes bit widths from Verilator's type table.
type typeWidths struct {
	types map[string]*node
	memo  map[string]int
}

func (tw typeWidths) width(id string) (int, error) {
	if w, ok := tw.memo[id]; ok {
		return w, nil
	}
	t := tw.types[id]
	if t == nil {
		return 0, fmt.Errorf("type id %q is not in the type table", id)
	}
	var w int
	var err error
	switch t.tag() {
	case "basicdtype":
		w = 1
		if l, r := t.attr("left"), t.attr("right"); l != "" {
			li, e1 := strconv.Atoi(l)
			ri, e2 := strconv.Atoi(r)
			if e1 != nil || e2 != nil {
				return 0, fmt.Errorf("type %s: range [%s:%s] is not numeric", id, l, r)
			}
			w = abs(li-ri) + 1
		}
	case "refdtype", "enumdtype", "memberdtype", "typedef":
		w, err = tw.width(t.attr("sub_dtype_id"))
	case "structdtype", "uniondtype":
		for _, m := range t.Children {
			if m.tag() != "memberdtype" {
				continue
			}
			mw, err := tw.width(m.attr("sub_dtype_id"))
			if err != nil {
				return 0, err
			}
			if t.tag() == "uniondtype" {
				w = max(w, mw)
			} else {
				w += mw
			}
		}
	case "unpackarraydtype", "packarraydtype":
		n, rerr := rangeSize(t)
		if rerr != nil {
			return 0, fmt.Errorf("type %s: %w", id, rerr)
		}
		var ew int
		ew, err = tw.width(t.attr("sub_dtype_id"))
		w = n * ew
	default:
		return 0, fmt.Errorf("type %s: <%s> has no width the check knows", id, t.tag())
	}
	if err != nil {
		return 0, err
	}
	tw.memo[id] = w
	return w, nil
}

// elems is the element count of a type's unpacked dimensions.
func (tw typeWidths) elems(id string) int {
	t := tw.types[id]
	switch {
	case t == nil:
		return 1
	case t.tag() == "refdtype" || t.tag() == "typedef":
		return tw.elems(t.attr("sub_dtype_id"))
	case t.tag() == "unpackarraydtype":
		n, err := rangeSize(t)
		if err != nil {
			return 1
		}
		return n * tw.elems(t.attr("sub_dtype_id"))
	}
	return 1
}

// rangeSize is the element count of an array type's <range> of two <const>s.
func rangeSize(t *node) (int, error) {
	for _, r := range t.Children {
		if r.tag() != "range" || len(r.Children) != 2 {
			continue
		}
		a, err1 := constValue(r.Children[0].attr("name"))
		b, err2 := constValue(r.Children[1].attr("name"))
		if err1 != nil || err2 != nil {
			return 0, fmt.Errorf("array range is not two constants")
		}
		return abs(a-b) + 1, nil
	}
	return 0, fmt.Errorf("array type without a range")
}

var reConst = regexp.MustCompile(`^(?:\d+)?'s?([hdbo])([0-9a-fA-F_]+)$`)

// constValue reads a Verilator constant such as 32'h1f or 4'sd3.
func constValue(s string) (int, error) {
	m := reConst.FindStringSubmatch(s)
	if m == nil {
		return strconv.Atoi(s)
	}
	base := map[string]int{"h": 16, "d": 10, "b": 2, "o": 8}[m[1]]
	v, err := strconv.ParseInt(strings.ReplaceAll(m[2], "_", ""), base, 64)
	return int(v), err
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// VerilatorOptions say how to elaborate the RTL for the check.
type VerilatorOptions struct {
	Sources   []string
	Top       string
	Params    []Param
	WorkDir   string // gets verilator-xml/
	Verilator string // default "verilator"
}

// Param is a top-module parameter override, NAME=VALUE.
type Param struct{ Name, Value string }

var reParam = regexp.MustCompile(`^([A-Za-z_]\w*)=(\d+)$`)

// ParseParam reads NAME=VALUE with a decimal integer value (what the
// design's parameters are; it also keeps the Yosys script well-formed).
func ParseParam(s string) (Param, error) {
	m := reParam.FindStringSubmatch(s)
	if m == nil {
		return Param{}, fmt.Errorf("parameter %q: want NAME=VALUE with a decimal integer VALUE", s)
	}
	return Param{m[1], m[2]}, nil
}

// ElaborateRTL runs `verilator --xml-only` on the sources with SYNTHESIS
// defined (as Yosys's read_verilog defines it) and the top parameters set,
// and reads the result. A parameter the top module does not declare is an
// error.
func ElaborateRTL(ctx context.Context, o VerilatorOptions) (*RTLDesign, error) {
	if o.Verilator == "" {
		o.Verilator = "verilator"
	}
	dir := filepath.Join(o.WorkDir, "verilator-xml")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	args := []string{"--xml-only", "--top-module", o.Top, "-Mdir", dir, "--xml-output", filepath.Join(dir, "design.xml"), "-DSYNTHESIS"}
	for _, p := range o.Params {
		args = append(args, "-G"+p.Name+"="+p.Value)
	}
	args = append(args, o.Sources...)
	cmd := exec.CommandContext(ctx, o.Verilator, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w\n%s", o.Verilator, strings.Join(args, " "), err, lastLines(string(out), 10))
	}
	f, err := os.Open(filepath.Join(dir, "design.xml"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := ReadVerilatorXML(f, f.Name())
	if err != nil {
		return nil, err
	}
	for _, p := range o.Params {
		if !contains(d.Params, p.Name) {
			return nil, fmt.Errorf("parameter %s=%s: top module %s has no parameter %s (it has: %s)", p.Name, p.Value, o.Top, p.Name, strings.Join(d.Params, ", "))
		}
	}
	return d, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
