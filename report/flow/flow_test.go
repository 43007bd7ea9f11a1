package flow

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"arcalis/report/yosys"
)

// WriteStateCheck writes the flip-flop table for people and the same
// numbers for tools.
func TestWriteStateCheck(t *testing.T) {
	c := &yosys.StateCheck{Blocks: []yosys.BlockCheck{
		{Path: "top", Module: "top"},
		{Path: "top.u_q", Module: "q", RTLBits: 1283, FFs: 17,
			Vars:     []yosys.VarCheck{{Name: "fifo_q", Loc: "rtl/q.sv:38", RTL: 1268, Netlist: 2}},
			Problems: []string{"top.u_q.fifo_q (rtl/q.sv:38): the RTL declares 1268 state bits, the netlist holds 2"}},
	}}
	dir := t.TempDir()
	if err := WriteStateCheck(c, dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "flipflops.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| FFs (RTL) | FFs (netlist) |", "| top.u_q | q | 1283 | 17 | 0 | **MISMATCH** |", "the RTL declares 1268 state bits, the netlist holds 2"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("flipflops.md lacks %q:\n%s", want, md)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "flipflops.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back yosys.StateCheck
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Blocks) != 2 || back.Blocks[1].Vars[0].Netlist != 2 || back.Blocks[1].RTLBits != 1283 {
		t.Errorf("flipflops.json read back as %+v", back)
	}
	if got := paramText([]yosys.Param{{Name: "DataBytes", Value: "64"}}); got != ", DataBytes=64" {
		t.Errorf("paramText = %q", got)
	}
}
