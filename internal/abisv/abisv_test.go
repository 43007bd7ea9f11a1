package abisv

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated block of rtl/arcalis_pkg.sv")

const pkgPath = "../../rtl/arcalis_pkg.sv"

// TestPkgCurrent: rtl/arcalis_pkg.sv holds exactly the block Block prints
// from the Go ABI (go test ./internal/abisv -update, or make abi-sv, to
// rewrite it).
func TestPkgCurrent(t *testing.T) {
	b, err := os.ReadFile(pkgPath)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Replace(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(pkgPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != string(b) {
		t.Errorf("%s differs from the Go ABI: run make abi-sv", pkgPath)
	}
}

// TestBlock checks a few lines of the block against docs/abi.md's tables by
// hand, so a wrong printer cannot pass by matching itself.
func TestBlock(t *testing.T) {
	blk := Block()
	for _, line := range []string{
		"localparam int unsigned KeyOffset   = 64;",
		"localparam logic [LenW-1:0] MaxMessage = 24'd16384000;",
		"CmdSendNetLen   = 4'd2,",
		"CmdNetReadyFlag = 4'd6",
		"StIdleResp = 4'd4",
		"CmdErrBadArg        = 8'd4",
		"ResRespOk            = 8'h03,",
		"ResLoadFault         = 8'h1A",
		"TString = 8'd11,",
		"TUuid   = 8'd16",
		"localparam logic [7:0] MsgOneway = 8'd4;",
		"localparam logic [15:0] VersionStrict = 16'h8001;",
		"localparam logic [23:0] NameSet = 24'h536574;",
		"localparam logic [23:0] NameGet = 24'h476574;",
	} {
		if !strings.Contains(blk, line) {
			t.Errorf("the block lacks %q:\n%s", line, blk)
		}
	}
	if strings.Contains(blk, "8'h02") {
		t.Error("the block names 0x02, which docs/abi.md reserves")
	}
	if _, err := Replace("no markers"); err == nil {
		t.Error("Replace without markers succeeded")
	}
}
