package yosys

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdata/state.sv by hand: state_fifo's state is mem_q (2 entries of a
// 9-bit struct = 18 bits), cnt_q (4) and wr_q (1); sum is combinational and
// i a loop local.
func readStateXML(t *testing.T) *RTLDesign {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "state.xml"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := ReadVerilatorXML(f, f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestReadVerilatorXML(t *testing.T) {
	d := readStateXML(t)
	if d.Top != "state_top" || strings.Join(d.Params, ",") != "Lanes" {
		t.Errorf("top %q params %v, want state_top [Lanes]", d.Top, d.Params)
	}
	if top := d.Instances["state_top"]; top == nil || len(top.Vars) != 0 {
		t.Errorf("top instance %+v, want no state", top)
	}
	fifo := d.Instances["state_top.u_fifo"]
	if fifo == nil || fifo.Module != "state_fifo" {
		t.Fatalf("u_fifo: %+v", fifo)
	}
	var got []string
	for _, v := range fifo.Vars {
		got = append(got, fmt.Sprintf("%s:%d:%d", v.Name, v.Bits, v.Elems))
	}
	if g := strings.Join(got, " "); g != "cnt_q:4:1 mem_q:18:2 wr_q:1:1" {
		t.Errorf("state vars %s, want cnt_q:4:1 mem_q:18:2 wr_q:1:1", g)
	}
	if fifo.Vars[1].Loc != "state.sv:11" {
		t.Errorf("mem_q declared at %s, want state.sv:11", fifo.Vars[1].Loc)
	}
}

// netlist writes a write_json netlist: state_top instantiating state_fifo,
// whose cells are given as JSON fragments; nets names bit ids.
func netlist(cells []string, nets map[string][]int) string {
	var ns []string
	for n, bits := range nets {
		var b []string
		for _, x := range bits {
			b = append(b, fmt.Sprint(x))
		}
		ns = append(ns, fmt.Sprintf("%q: {\"hide_name\": 0, \"bits\": [%s]}", n, strings.Join(b, ",")))
	}
	ns = append(ns, `"$auto$x": {"hide_name": 1, "bits": [90, 91, 92]}`)
	return `{"modules": {
  "state_top": {"ports": ` + topPorts + `, "cells": {"u_fifo": {"type": "state_fifo", "connections": {}}}, "netnames": {}},
  "state_fifo": {"cells": {` + strings.Join(cells, ",\n") + `}, "netnames": {` + strings.Join(ns, ",\n") + `}}}}`
}

// topPorts are state_top's ports as write_json lists them.
var topPorts = `{"clk_i": {"direction": "input", "bits": [2]}, "rst_ni": {"direction": "input", "bits": [3]},
  "we_i": {"direction": "input", "bits": [4]}, "d_i": {"direction": "input", "bits": [5, 6, 7, 8, 9, 10, 11, 12]},
  "q_o": {"direction": "output", "bits": [13, 14, 15, 16, 17, 18, 19, 20]}}`

// ffs are n flip-flop cells named prefix_i whose Q outputs are bits from..
func ffs(prefix string, from, n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf(`"%s_%d": {"type": "FDRE", "connections": {"Q": [%d], "D": [5], "C": [2]}}`, prefix, i, from+i))
	}
	return out
}

func bits(from, n int) []int {
	var out []int
	for i := 0; i < n; i++ {
		out = append(out, from+i)
	}
	return out
}

func check(t *testing.T, nl string, allow []Allowance) *StateCheck {
	t.Helper()
	net, err := ParseNetlistState(strings.NewReader(nl), "netlist.json")
	if err != nil {
		t.Fatal(err)
	}
	top := &Instance{Name: "state_top", Path: "state_top", Module: "state_top",
		Children: []*Instance{{Name: "u_fifo", Path: "state_top.u_fifo", Module: "state_fifo"}}}
	return CheckState(top, readStateXML(t), net, allow)
}

func TestCheckState(t *testing.T) {
	counters := append(ffs("cnt", 20, 4), ffs("wr", 30, 1)...)
	counterNets := map[string][]int{"cnt_q": bits(20, 4), "wr_q": {30}, "q_o": {30}}
	with := func(extra map[string][]int) map[string][]int {
		m := map[string][]int{}
		for k, v := range counterNets {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	// Two RAM32M cells holding mem_q's 9 data bits (3 ports of 2 bits each,
	// one port unused in the second), copied for a second read port: the
	// copies write the same nets.
	ram := func(name string) string {
		return fmt.Sprintf(`"%s": {"type": "RAM32M", "connections": {"DIA": [40, 41], "DIB": [42, 43], "DIC": [44, 45], "DID": ["0", "0"]}}`, name)
	}
	ram2 := func(name string) string {
		return fmt.Sprintf(`"%s": {"type": "RAM32M", "connections": {"DIA": [46, 47], "DIB": [48, "x"], "DIC": ["0", "0"]}}`, name)
	}
	cases := []struct {
		name     string
		nl       string
		allow    []Allowance
		problems []string // substrings, one per problem, in order
		rtl, ff  int
		ram      int
	}{
		{"flops kept", netlist(append(counters, ffs("mem", 50, 18)...), with(map[string][]int{"mem_q[0]": bits(50, 9), "mem_q[1]": bits(59, 9)})),
			nil, nil, 23, 23, 0},
		// The store-queue bug: an unpacked array of a packed struct that
		// Yosys 0.23 reads as one element, 2 of its bits left.
		{"array size dropped", netlist(append(counters, ffs("mem", 50, 2)...), with(map[string][]int{"mem_q": bits(50, 2)})),
			nil, []string{"state_top.u_fifo.mem_q (state.sv:11): the RTL declares 18 state bits, the netlist holds 2"}, 23, 7, 0},
		{"LUT RAM", netlist(append(counters, ram("mem_q.0.0"), ram2("mem_q.0.1"), ram("mem_q.1.0"), ram2("mem_q.1.1")), counterNets),
			nil, nil, 23, 5, 18},
		{"constant bit removed", netlist(append(ffs("cnt", 20, 3), append(ffs("wr", 30, 1), ffs("mem", 50, 18)...)...),
			with(map[string][]int{"cnt_q": bits(20, 3), "mem_q[0]": bits(50, 9), "mem_q[1]": bits(59, 9)})),
			nil, []string{"state_top.u_fifo.cnt_q (state.sv:12): the RTL declares 4 state bits, the netlist holds 3"}, 23, 22, 0},
		{"constant bit allowed", netlist(append(ffs("cnt", 20, 3), append(ffs("wr", 30, 1), ffs("mem", 50, 18)...)...),
			with(map[string][]int{"cnt_q": bits(20, 3), "mem_q[0]": bits(50, 9), "mem_q[1]": bits(59, 9)})),
			[]Allowance{{"state_fifo", "cnt_q", "constant", "top bit never set"}}, nil, 23, 22, 0},
		// A merged duplicate: wr_q's flop also carries cnt_q[0]'s name.
		{"merged duplicate", netlist(append(append(ffs("cnt", 21, 3), ffs("wr", 30, 1)...), ffs("mem", 50, 18)...),
			with(map[string][]int{"cnt_q": append([]int{30}, bits(21, 3)...), "mem_q[0]": bits(50, 9), "mem_q[1]": bits(59, 9)})),
			nil, nil, 23, 22, 0},
		{"more flops than declared", netlist(append(counters, ffs("mem", 50, 19)...), with(map[string][]int{"mem_q": bits(50, 19)})),
			nil, []string{"mem_q (state.sv:11): the netlist holds 19 state bits, more than the 18"}, 23, 24, 0},
		{"flop of no RTL variable", netlist(append(append(counters, ffs("mem", 50, 18)...), ffs("odd", 90, 1)...),
			with(map[string][]int{"mem_q[0]": bits(50, 9), "mem_q[1]": bits(59, 9)})),
			nil, []string{"state_top.u_fifo (state_fifo): 1 flip-flops carry no RTL state variable's name ((no name): 1)"}, 23, 24, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc := check(t, c.nl, c.allow)
			if len(sc.Blocks) != 2 {
				t.Fatalf("%d blocks, want 2", len(sc.Blocks))
			}
			b := sc.Blocks[1]
			if b.RTLBits != c.rtl || b.FFs != c.ff || b.RAMBits != c.ram {
				t.Errorf("RTL %d, FFs %d, RAM bits %d; want %d, %d, %d", b.RTLBits, b.FFs, b.RAMBits, c.rtl, c.ff, c.ram)
			}
			if len(b.Problems) != len(c.problems) {
				t.Fatalf("problems %q, want %d like %q", b.Problems, len(c.problems), c.problems)
			}
			for i, p := range c.problems {
				if !strings.Contains(b.Problems[i], p) {
					t.Errorf("problem %q, want it to contain %q", b.Problems[i], p)
				}
			}
			if err := sc.Err(); (err != nil) != (len(c.problems) > 0) {
				t.Errorf("Err() = %v with problems %q", err, b.Problems)
			}
			md := sc.Markdown()
			if !strings.Contains(md, fmt.Sprintf("| state_top.u_fifo | state_fifo | %d | %d | %d |", c.rtl, c.ff, c.ram)) {
				t.Errorf("table lacks the u_fifo row:\n%s", md)
			}
		})
	}
}

// A netlist whose top ports differ from the RTL's (a port split into bits,
// a width changed) is refused: the harness could not attach to it.
func TestCheckStateTopPorts(t *testing.T) {
	defer func(p string) { topPorts = p }(topPorts)
	topPorts = `{"clk_i": {"direction": "input", "bits": [2]}, "rst_ni": {"direction": "input", "bits": [3]},
  "we_i": {"direction": "input", "bits": [4]}, "d_i[0]": {"direction": "input", "bits": [5]},
  "q_o": {"direction": "output", "bits": [13, 14, 15, 16]}}`
	sc := check(t, netlist(nil, nil), nil)
	want := []string{
		"top port d_i (input, 8 bits) is not a port of the netlist's state_top",
		"top port d_i[0] of the netlist is not a port of the RTL's state_top",
		"top port q_o: RTL output of 8 bits, netlist output of 4 bits",
	}
	if got := strings.Join(sc.Blocks[0].Problems, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("top problems:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
}

func TestCheckStateHierarchy(t *testing.T) {
	net, err := ParseNetlistState(strings.NewReader(netlist(nil, nil)), "n.json")
	if err != nil {
		t.Fatal(err)
	}
	// The netlist's hierarchy lacks u_fifo.
	sc := CheckState(&Instance{Name: "state_top", Path: "state_top", Module: "state_top"}, readStateXML(t), net, nil)
	if err := sc.Err(); err == nil || !strings.Contains(err.Error(), "state_top.u_fifo (state_fifo): in the RTL but not in the netlist's hierarchy") {
		t.Errorf("Err() = %v", err)
	}
}

func TestParseNetlistStateErrors(t *testing.T) {
	for _, c := range []struct{ name, nl, want string }{
		{"not json", "{", "bad.json: unexpected EOF"},
		{"two-bit Q", netlist([]string{`"f": {"type": "FDRE", "connections": {"Q": [1, 2]}}`}, nil), "bad.json: module state_fifo, cell f (FDRE): Q has 2 bits"},
		{"SRL of unknown length", netlist([]string{`"s": {"type": "SRL16E", "connections": {"A": [1, 2, 3, 4], "D": [5]}}`}, nil), "cell s (SRL16E): address A is not constant"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseNetlistState(strings.NewReader(c.nl), "bad.json")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

func TestParseParam(t *testing.T) {
	if p, err := ParseParam("DataBytes=64"); err != nil || p != (Param{"DataBytes", "64"}) {
		t.Errorf("DataBytes=64: %+v, %v", p, err)
	}
	for _, bad := range []string{"DataBytes", "=4", "DataBytes=", "DataBytes=4; exec", "9x=1"} {
		if _, err := ParseParam(bad); err == nil || !strings.Contains(err.Error(), "NAME=VALUE") {
			t.Errorf("%q: error %v", bad, err)
		}
	}
}

// A parameter the top does not declare fails before synthesis, naming it.
func TestElaborateRTLUnknownParam(t *testing.T) {
	_, err := ElaborateRTL(t.Context(), VerilatorOptions{
		Sources: []string{filepath.Join("testdata", "state.sv")}, Top: "state_top",
		Params: []Param{{"DataBytes", "16"}}, WorkDir: t.TempDir(),
	})
	// Verilator 5.006 refuses it itself; ElaborateRTL checks again in case
	// a release only warns.
	if err == nil || !strings.Contains(err.Error(), "-GDataBytes=16") || !strings.Contains(err.Error(), "not found in the design: DataBytes") {
		t.Errorf("error %v", err)
	}
}

// sources.ys sets each parameter after reading the lowered RTL, and a
// synthesis of other parameters is never reused as this one.
func TestSourcesParamsAndReuse(t *testing.T) {
	work := t.TempDir()
	o := Options{Sources: []string{filepath.Join("testdata", "state.sv")}, Top: "state_top", WorkDir: work,
		Params: []Param{{"Lanes", "4"}}}
	script, lowered, err := writeSources(o)
	if err != nil {
		t.Fatal(err)
	}
	if want := "read_verilog -sv lowered/state.sv\nchparam -set Lanes 4 state_top\n"; !strings.HasSuffix(script, want) {
		t.Errorf("sources.ys:\n%s\nwant it to end with:\n%s", script, want)
	}
	if len(lowered) != 1 || filepath.Base(lowered[0]) != "state.sv" {
		t.Errorf("lowered %v", lowered)
	}
	if !strings.Contains(script, "\n# RTL sha256 ") {
		t.Errorf("sources.ys has no digest of the RTL:\n%s", script)
	}
	other := strings.Replace(script, "Lanes 4", "Lanes 2", 1)
	if err := os.WriteFile(filepath.Join(work, "sources.ys"), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(t.Context(), o); err == nil || !strings.Contains(err.Error(), "synthesized from other sources, parameters or RTL text than asked") {
		t.Errorf("Load with another sources.ys: %v", err)
	}
}
