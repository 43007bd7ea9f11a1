package activity

import (
	"path/filepath"
	"strings"
	"testing"
)

// The expected numbers are worked out by hand from testdata/small.vcd: the
// clock toggles at 5, 10, ..., 30 and the dump ends at 40; count_q goes
// 0000 -> 0011 (t=10) -> 101, i.e. 0101 (t=20) -> 1, i.e. 0001 (t=30).
func TestSmallVCD(t *testing.T) {
	d, err := ReadFile(filepath.Join("testdata", "small.vcd"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Timescale != "1ps" || d.Start != 0 || d.End != 40 {
		t.Fatalf("timescale %q, span %d..%d", d.Timescale, d.Start, d.End)
	}
	edges, err := d.RisingEdges("clk_i")
	if err != nil || edges != 3 {
		t.Errorf("rising edges = %d, %v; want 3", edges, err)
	}
	if _, err := d.RisingEdges("top.count_q"); err == nil {
		t.Error("a 4-bit clock was accepted")
	}

	count := d.Var("top.count_q").Signal
	bits := []struct{ t0, t1, tx, tc uint64 }{
		{10, 30, 0, 1}, // bit 0: 1 from t=10
		{30, 10, 0, 2}, // bit 1: 1 from 10 to 20
		{30, 10, 0, 2}, // bit 2: 1 from 20 to 30 (the short value is zero-extended)
		{40, 0, 0, 0},  // bit 3
	}
	for i, w := range bits {
		if count.T0[i] != w.t0 || count.T1[i] != w.t1 || count.TX[i] != w.tx || count.TC[i] != w.tc {
			t.Errorf("count_q[%d]: T0 %d T1 %d TX %d TC %d, want %+v", i, count.T0[i], count.T1[i], count.TX[i], count.TC[i], w)
		}
	}
	busy := d.Var("top.u_child.busy").Signal
	if busy.TX[0] != 10 || busy.T0[0] != 10 || busy.T1[0] != 20 || busy.TC[0] != 1 {
		t.Errorf("busy: T0 %d T1 %d TX %d TC %d; want x->0 not counted, 0->1 counted", busy.T0[0], busy.T1[0], busy.TX[0], busy.TC[0])
	}

	cases := []struct {
		scope   string
		bits    int
		toggles uint64
	}{
		{"top", 5, 11},        // clk_i 6 + count_q 5; the parameter is left out
		{"top.u_child", 3, 3}, // busy 1 + mem[0] 2
	}
	for _, c := range cases {
		s := d.Scope(c.scope)
		if s == nil {
			t.Fatalf("no scope %s", c.scope)
		}
		if b, tg := s.Own(); b != c.bits || tg != c.toggles {
			t.Errorf("%s: %d bits, %d toggles; want %d, %d", c.scope, b, tg, c.bits, c.toggles)
		}
	}
}

func TestSAIF(t *testing.T) {
	d, err := ReadFile(filepath.Join("testdata", "small.vcd"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := d.WriteSAIF(&b, "top", SAIFHeader{Program: "test", Version: "1", Design: "top"}); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{
		"(SAIFVERSION \"2.0\")", "(DIRECTION \"backward\")", "(DIVIDER / )", "(TIMESCALE 1 ps)", "(DURATION 40)",
		"(INSTANCE top\n", "(clk_i (T0 25) (T1 15) (TX 0) (TC 6) (IG 0))",
		`(count_q\[3\] (T0 40) (T1 0) (TX 0) (TC 0) (IG 0))`,
		`(count_q\[0\] (T0 10) (T1 30) (TX 0) (TC 1) (IG 0))`,
		"(INSTANCE u_child\n", "(busy (T0 10) (T1 20) (TX 10) (TC 1) (IG 0))",
		`(mem\[0\]\[1\] (T0 20) (T1 20) (TX 0) (TC 1) (IG 0))`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("SAIF lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "Depth") {
		t.Error("SAIF lists the parameter")
	}
	if strings.Count(s, "(") != strings.Count(s, ")") {
		t.Errorf("unbalanced parentheses:\n%s", s)
	}
	if err := d.WriteSAIF(&b, "nope", SAIFHeader{}); err == nil {
		t.Error("a missing scope was accepted")
	}
}

func TestMalformedVCD(t *testing.T) {
	head := "$timescale 1ps $end\n$scope module top $end\n$var wire 2 ! v [1:0] $end\n$upscope $end\n$enddefinitions $end\n"
	cases := []struct{ name, body, want string }{
		{"undeclared", head + "#0\n1?\n", "bad.vcd:7: value for undeclared identifier"},
		{"too wide", head + "#0\nb101 !\n", "bad.vcd:7: value of 3 bits for a 2-bit signal"},
		{"bad bit", head + "#0\nb1q !\n", "bad.vcd:7: bad bit"},
		{"time back", head + "#5\n#3\n", "bad.vcd:7: time goes back"},
		{"before time", head + "b01 !\n", "bad.vcd:6: value for \"!\" before the first timestamp"},
		{"no enddefinitions", "$timescale 1ps $end\n", "ends before $enddefinitions"},
		{"unbalanced", "$upscope $end\n", "bad.vcd:1: $upscope without a $scope"},
		{"garbage", head + "#0\n?!\n", "bad.vcd:7: unexpected"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(c.body), "bad.vcd")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}
