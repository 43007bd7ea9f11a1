package yosys

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func TestLowerRules(t *testing.T) {
	pkg := Source{"p.sv", "// shared\npackage p;\n  typedef enum logic [3:0] {A = 4'd1, B = 4'd2} op_e;\n" +
		"  typedef struct packed {\n    logic [7:0] hi;\n    logic [3:0] lo;\n  } pair_t;\nendpackage\n"}
	cases := []struct {
		name string
		in   string
		want []string // substrings of the lowered module
		not  []string
	}{
		{"import and scope", "module m\n  import p::*;\n(input op_e a, output logic [3:0] y);\n  assign y = p::A;\nendmodule\n",
			[]string{"assign y = A;"}, []string{"import", "p::"}},
		{"typedef cast", "module m(input logic [3:0] a, output op_e y);\n  assign y = op_e'(a);\nendmodule\n",
			[]string{"assign y = ((4)'(a));"}, nil},
		{"return", "module m(input logic [7:0] a, output logic b);\n  function automatic logic f(input logic [7:0] x);\n    return x[0] ^ x[1];\n  endfunction\n  assign b = f(a);\nendmodule\n",
			[]string{"f = x[0] ^ x[1];"}, []string{"return"}},
		{"inside", "module m(input logic [3:0] a, output logic b);\n  assign b = (a inside {A, B,\n    [4'd8:4'd9]});\nendmodule\n",
			[]string{"(a == A || a == B || (a >= 4'd8 && a <= 4'd9))"}, []string{"inside"}},
		{"param array", "module m(input logic [1:0] i, output logic [3:0] y);\n  localparam op_e T [3] = '{A, B, A};\n  assign y = T[i - 2'd1];\nendmodule\n",
			[]string{"localparam logic [(3)*(4)-1:0] T = {((4)'(A)), ((4)'(B)), ((4)'(A))};", "T[(i - 2'd1)*(4) +: (4)]"}, nil},
		{"named pattern", "module m(input logic [7:0] h, input logic [3:0] l, output pair_t y);\n  assign y = '{lo: l, hi: h};\nendmodule\n",
			[]string{"assign y = {(((1)*(8))'(h)), (((1)*(4))'(l))};"}, nil},
		{"whole array", "module m(input logic clk);\n  logic [7:0] a [2];\n  logic [7:0] b [2];\n  always_ff @(posedge clk)\n    a <= b;\nendmodule\n",
			[]string{"    a[0] <= b[0]; a[1] <= b[1];"}, nil},
		{"element member", "module m(input logic s, output logic [3:0] y);\n  pair_t q [2];\n  assign y = q[s].lo;\nendmodule\n",
			[]string{"assign y = q__at_s.lo;", "pair_t q__at_s; assign q__at_s = q[s]; endmodule"}, nil},
		// Rule 10: the store-queue bug's declaration, as a logic array.
		{"struct array", "module m(input logic clk, input logic s, input pair_t d, output logic [3:0] y);\n  pair_t fifo_q [2];\n  always_ff @(posedge clk) fifo_q[s] <= d;\n  assign y = fifo_q[s].lo;\nendmodule\n",
			[]string{"  logic [(((1)*(8)+(1)*(4)))-1:0] fifo_q [2];", "pair_t fifo_q__at_s; assign fifo_q__at_s = fifo_q[s];"}, []string{"pair_t fifo_q [2]"}},
		// Rule 11: a size cast is parenthesized, so ~ applies to it.
		{"size casts", "module m #(parameter int unsigned W = 4)(input logic [W-1:0] q, output logic [W-1:0] y);\n  always_comb for (int unsigned i = 0; i < W; i++) y[i] = &(q | ~W'((1 << i) - 1)) ^ ~(W+1)'(q[i]);\nendmodule\n",
			[]string{"&(q | ~(W'((1 << i) - 1))) ^ ~((W+1)'(q[i]));"}, nil},
		{"nested pattern", "module m(input logic [3:0] a, b, output pair_t y);\n  assign y = '{lo: a, hi: {b, a}};\nendmodule\n",
			[]string{"assign y = {(((1)*(8))'({b, a})), (((1)*(4))'(a))};"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := Lower([]Source{pkg, {"m.sv", c.in}})
			if err != nil {
				t.Fatal(err)
			}
			got := out[1].Text
			if strings.Count(got, "\n") != strings.Count(c.in, "\n") {
				t.Errorf("line count %d -> %d:\n%s", strings.Count(c.in, "\n"), strings.Count(got, "\n"), got)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("lowered text lacks %q:\n%s", w, got)
				}
			}
			for _, n := range c.not {
				if strings.Contains(got, n) {
					t.Errorf("lowered text still has %q:\n%s", n, got)
				}
			}
			if strings.Contains(out[0].Text, "package") || strings.Contains(out[0].Text, "shared") {
				t.Errorf("package wrapper or comment left:\n%s", out[0].Text)
			}
		})
	}
}

// Yosys 0.23 reads ~W'(x) as (~W)'(x); lowered (rule 11), an incrementer
// written with it counts. Checked by Yosys's own evaluator.
func TestLowerSizeCastYosys(t *testing.T) {
	src := Source{"inc.sv", "module inc #(parameter int unsigned W = 4)(input logic [W-1:0] q, output logic [W-1:0] y);\n" +
		"  always_comb for (int unsigned i = 0; i < W; i++) y[i] = q[i] ^ (&(q | ~W'((1 << i) - 1)));\nendmodule\n"}
	low, err := Lower([]Source{src})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "inc.sv")
	if err := os.WriteFile(p, []byte(low[0].Text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("yosys", "-p", "read_verilog -sv "+p+"; prep -top inc; eval -set q 0 -show y; eval -set q 1 -show y; eval -set q 7 -show y; eval -set q 15 -show y").CombinedOutput()
	if err != nil {
		t.Fatalf("yosys: %v\n%s", err, out)
	}
	var got []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "Eval result") {
			got = append(got, strings.TrimSpace(line))
		}
	}
	want := []string{"Eval result: \\y = 4'0001.", "Eval result: \\y = 4'0010.", "Eval result: \\y = 4'1000.", "Eval result: \\y = 4'0000."}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("q+1 by Yosys for q = 0, 1, 7, 15:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestLowerErrors(t *testing.T) {
	pkg := Source{"p.sv", "package p;\n  typedef struct packed { logic a; logic b; } ab_t;\nendpackage\n"}
	cases := []struct {
		name  string
		files []Source
		want  string
	}{
		{"package not first", []Source{{"m.sv", "module m; endmodule\n"}, pkg}, "p.sv:1: package p must come before every file"},
		{"two statements", []Source{pkg, {"m.sv", "module m;\n  function automatic logic f(input logic x);\n    if (x) return 1'b1;\n    return 1'b0;\n  endfunction\nendmodule\n"}},
			"m.sv:2: function f: only a body of one `return e;`"},
		{"unknown struct", []Source{pkg, {"m.sv", "module m(output logic [1:0] y);\n  assign y = '{c: 1'b1, d: 1'b0};\nendmodule\n"}},
			"m.sv:2: no packed struct has exactly the fields c, d"},
		{"unknown import", []Source{pkg, {"m.sv", "module m\n  import q::*;\n; endmodule\n"}}, "m.sv:2: import of q"},
		// What the rules leave is refused, naming file, line and construct.
		{"inside of an expression", []Source{pkg, {"m.sv", "module m(input logic [1:0] a, output logic y);\n  assign y = (a + 1) inside {2'd1};\nendmodule\n"}},
			"m.sv:2: `inside` in a form rule 5 does not lower"},
		{"positional pattern", []Source{pkg, {"m.sv", "module m(output ab_t y);\n  assign y = '{1'b0, 1'b1};\nendmodule\n"}},
			"m.sv:2: an assignment pattern rules 6 and 7 do not lower"},
		{"default pattern", []Source{pkg, {"m.sv", "module m(output ab_t y);\n\n  assign y = '{default: 1'b0};\nendmodule\n"}},
			"m.sv:3: an assignment pattern"},
		{"scoped name", []Source{pkg, {"m.sv", "module m(output logic y);\n  assign y = other::X;\nendmodule\n"}},
			"m.sv:2: a scoped name"},
		{"two struct arrays in one declaration", []Source{pkg, {"m.sv", "module m;\n  ab_t a [2], b [2];\nendmodule\n"}},
			"m.sv:2: unpacked array a of type ab_t in a form rule 10 does not lower"},
		{"struct array with a range", []Source{pkg, {"m.sv", "module m;\n  ab_t a [0:1];\nendmodule\n"}},
			"m.sv:2: unpacked array a of type ab_t"},
		{"packed dimensions on a struct array", []Source{pkg, {"m.sv", "module m;\n  ab_t [1:0] a [2];\nendmodule\n"}},
			"m.sv:2: unpacked array a of ab_t with packed dimensions [1:0]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Lower(c.files)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

// The project's RTL, lowered, must be read and elaborated by Yosys: a new
// SystemVerilog form in rtl/ that the lowering does not cover fails here.
func TestLowerProjectRTL(t *testing.T) {
	files, err := filepath.Glob("../../rtl/*.sv")
	if err != nil || len(files) == 0 {
		t.Fatalf("no RTL: %v", err)
	}
	sort.Slice(files, func(i, j int) bool { // the package first
		return strings.HasSuffix(files[i], "_pkg.sv") && !strings.HasSuffix(files[j], "_pkg.sv")
	})
	var srcs []Source
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, Source{f, string(b)})
	}
	low, err := Lower(srcs)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	args := "read_verilog -sv"
	for i, s := range low {
		if strings.Count(s.Text, "\n") != strings.Count(srcs[i].Text, "\n") {
			t.Errorf("%s: line count changed", s.Name)
		}
		p := filepath.Join(dir, filepath.Base(s.Name))
		if err := os.WriteFile(p, []byte(s.Text), 0o644); err != nil {
			t.Fatal(err)
		}
		args += " " + p
	}
	out, err := exec.Command("yosys", "-q", "-p", args+"; hierarchy -check -top arcalis_top").CombinedOutput()
	if err != nil {
		t.Fatalf("yosys (installed by scripts/setup.sh) rejects the lowered RTL: %v\n%s", err, out)
	}
}

func TestStatAndHierarchy(t *testing.T) {
	st, err := ReadStatFile(filepath.Join("testdata", "stat.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Modules) != 3 {
		t.Fatalf("%d modules, want 3 (the design hierarchy summary is not one)", len(st.Modules))
	}
	leaf := `$paramod\leaf\W=32'00000000000000000000000000001000`
	if m, ok := st.Module(leaf); !ok || m.Cells["FDCE"] != 8 || m.LCs != 4 {
		t.Errorf("leaf = %+v, %v", m, ok)
	}
	top, err := ReadHierarchy(filepath.Join("testdata", "hierarchy.json"), "top", st)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := Blocks(top, st)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, b := range blocks {
		paths = append(paths, b.Path)
	}
	if got := strings.Join(paths, " "); got != "top top.u_mid top.u_mid.u_leaf_a top.u_mid.u_leaf_b" {
		t.Fatalf("paths %s", got)
	}
	// By hand from testdata/stat.txt: leaf = 5 LUTs (3 LUT2 + 2 LUT6), 1 INV,
	// 8 FFs, 2 CARRY4, 1 RAM32M = 4 LUTRAM, 4 LCs; mid adds 1 LUT, 3 FFs,
	// 1 LC; top adds 1 LUT, 1 MUXF7, half a BRAM tile, 1 LC.
	t0 := blocks[0].Total
	if t0.LUTs != 12 || t0.LUTRAM != 8 || t0.Inverters != 2 || t0.FFs != 19 || t0.Carry != 4 ||
		t0.MuxF7F8 != 1 || t0.BRAM != 0.5 || t0.LCs != 10 {
		t.Errorf("top total %+v", t0)
	}
	if l := blocks[2]; l.Module != "leaf" || l.Own.LUTs != 5 || l.Own.LUTRAM != 4 || l.Depth != 2 {
		t.Errorf("leaf block %+v", l)
	}
	if m := blocks[1]; m.Own.FFs != 3 || m.Total.FFs != 19 {
		t.Errorf("mid own %+v total %+v", m.Own, m.Total)
	}

	// A hierarchy file missing an instance the statistics count is an error.
	bad := filepath.Join(t.TempDir(), "h.json")
	os.WriteFile(bad, []byte(`{"modules":{"top":{"cells":{"u_mid":{"type":"mid"}}},"mid":{"cells":{}}}}`), 0o644)
	if _, err := ReadHierarchy(bad, "top", st); err == nil || !strings.Contains(err.Error(), "instantiates") {
		t.Errorf("missing instances: %v", err)
	}
}

func TestStatErrors(t *testing.T) {
	_, err := ReadStatFile(filepath.Join("testdata", "stat_bad.txt"))
	if err == nil || !strings.Contains(err.Error(), "stat_bad.txt:18:") || !strings.Contains(err.Error(), `"two"`) {
		t.Errorf("error %v, want stat_bad.txt:18 naming the count", err)
	}
	if _, err := ParseStat(strings.NewReader("nothing\n"), "x.txt"); err == nil || !strings.Contains(err.Error(), "x.txt: no module") {
		t.Errorf("empty: %v", err)
	}
	if _, err := ParseStat(strings.NewReader("=== m ===\n   Frobs: 3\n"), "y.txt"); err == nil || !strings.Contains(err.Error(), "y.txt:2:") {
		t.Errorf("unknown line: %v", err)
	}
	unknown := ModuleStat{Name: "m", Cells: map[string]int{"XORCY": 3}}
	if _, err := Resources(unknown, func(string) bool { return false }); err == nil || !strings.Contains(err.Error(), "XORCY") {
		t.Errorf("unknown primitive: %v", err)
	}
}

func TestBaseName(t *testing.T) {
	for in, want := range map[string]string{
		`load_queue`: "load_queue",
		`$paramod\load_queue\Depth=32'00000000000000000000000000100000`:   "load_queue",
		`$paramod$79aead2f6379af13bfcbb27e388d04ea9e4b06ba\byte_selector`: "byte_selector",
	} {
		if got := BaseName(in); got != want {
			t.Errorf("BaseName(%q) = %q, want %q", in, got, want)
		}
	}
}
