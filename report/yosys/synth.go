package yosys

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"arcalis/report"
)

// lutramLUTs is how many LUTs of a SLICEM each distributed-RAM or
// shift-register primitive occupies (UG474, "Distributed RAM" and "Shift
// Registers" tables).
var lutramLUTs = map[string]int{
	"RAM32X1S": 1, "RAM64X1S": 1, "RAM128X1S": 2, "RAM256X1S": 4,
	"RAM32X1D": 2, "RAM64X1D": 2, "RAM128X1D": 4,
	"RAM32M": 4, "RAM64M": 4, "RAM32X16DR8": 8, "RAM64X8SW": 8,
	"SRL16E": 1, "SRLC32E": 1,
}

// ignored are primitives that use none of the counted resources.
var ignored = map[string]bool{"BUFG": true, "BUFGCTRL": true, "IBUF": true, "OBUF": true, "IOBUF": true, "OBUFT": true, "GND": true, "VCC": true}

// Resources classifies one module's own primitive cells (as synth_xilinx
// -family xc7 maps them); cells whose type is a module of the design are
// sub-instances and are skipped. An unknown primitive is an error, so no
// resource is silently left out.
func Resources(m ModuleStat, isModule func(string) bool) (report.Resources, error) {
	r := report.Resources{LCs: m.LCs}
	types := slices.Sorted(maps.Keys(m.Cells))
	for _, t := range types {
		n := m.Cells[t]
		switch {
		case isModule(t) || ignored[t]:
		case len(t) == 4 && strings.HasPrefix(t, "LUT") && t[3] >= '1' && t[3] <= '6':
			r.LUTs += n
		case t == "INV":
			r.Inverters += n
		case t == "FDRE" || t == "FDSE" || t == "FDCE" || t == "FDPE" || t == "LDCE" || t == "LDPE" || t == "FDRE_1":
			r.FFs += n
		case t == "CARRY4":
			r.Carry += n
		case t == "MUXF7" || t == "MUXF8":
			r.MuxF7F8 += n
		case t == "RAMB36E1":
			r.BRAM += float64(n)
		case t == "RAMB18E1":
			r.BRAM += 0.5 * float64(n)
		case t == "DSP48E1":
			r.DSP += n
		case lutramLUTs[t] > 0:
			r.LUTRAM += n * lutramLUTs[t]
		default:
			return r, fmt.Errorf("module %s: primitive %s (%d cells) is not in the resource table", m.Name, t, n)
		}
	}
	return r, nil
}

// Blocks turns the hierarchy and statistics into the report's blocks in
// pre-order, with own and total resources.
func Blocks(top *Instance, stat *Stat) ([]report.Block, error) {
	isModule := func(t string) bool { _, ok := stat.Module(t); return ok }
	var out []report.Block
	var walk func(i *Instance, depth int) (report.Resources, error)
	walk = func(i *Instance, depth int) (report.Resources, error) {
		ms, _ := stat.Module(i.Module)
		own, err := Resources(ms, isModule)
		if err != nil {
			return own, err
		}
		idx := len(out)
		mod := i.BaseModule()
		out = append(out, report.Block{Path: i.Path, Module: mod, Label: report.Label(mod), Depth: depth, Own: own})
		total := own
		for _, c := range i.Children {
			ct, err := walk(c, depth+1)
			if err != nil {
				return total, err
			}
			total = total.Add(ct)
		}
		out[idx].Total = total
		return total, nil
	}
	if _, err := walk(top, 0); err != nil {
		return nil, err
	}
	return out, nil
}

// Options say what to synthesize and where.
type Options struct {
	Sources []string // SystemVerilog files, the package first
	Top     string
	Params  []Param // top-module parameters (chparam before hierarchy)
	Script  string  // scripts/yosys/synth.ys
	WorkDir string  // gets lowered/, sources.ys, stat.txt, hierarchy.json, netlist.{json,v}, yosys.log
	Yosys   string  // the yosys binary (default "yosys")
	// Verilator elaborates the RTL for the flip-flop check (default "verilator").
	Verilator string
}

// Result is a finished synthesis.
type Result struct {
	Blocks  []report.Block
	Version string // `yosys -V`
	Lowered []string
	Top     *Instance
	// State is the flip-flop check; State.Err() says whether it passed.
	State *StateCheck
}

// Synthesize lowers the sources, runs the Yosys script in WorkDir and reads
// back the per-block resources and the flip-flop check. The RTL is first
// elaborated by Verilator, so a parameter the top does not have fails
// before Yosys runs.
func Synthesize(ctx context.Context, o Options) (*Result, error) {
	if o.Yosys == "" {
		o.Yosys = "yosys"
	}
	rtl, err := ElaborateRTL(ctx, VerilatorOptions{Sources: o.Sources, Top: o.Top, Params: o.Params, WorkDir: o.WorkDir, Verilator: o.Verilator})
	if err != nil {
		return nil, err
	}
	script, lowered, err := writeSources(o)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(o.WorkDir, "sources.ys"), []byte(script), 0o644); err != nil {
		return nil, err
	}
	scriptPath, err := filepath.Abs(o.Script)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, o.Yosys, "-q", "-l", "yosys.log", "-s", scriptPath)
	cmd.Dir = o.WorkDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("yosys -s %s in %s: %w\n%s(full log: %s)", o.Script, o.WorkDir, err, lastLines(stderr.String(), 10), filepath.Join(o.WorkDir, "yosys.log"))
	}
	return load(ctx, o, rtl, lowered)
}

// Load reads a synthesis that Synthesize already ran in WorkDir with the
// same options (make decides whether it is up to date); the sources.ys
// there must be the one these options write, so a netlist of other sources
// or parameters is never reported under these.
func Load(ctx context.Context, o Options) (*Result, error) {
	rtl, err := ElaborateRTL(ctx, VerilatorOptions{Sources: o.Sources, Top: o.Top, Params: o.Params, WorkDir: o.WorkDir, Verilator: o.Verilator})
	if err != nil {
		return nil, err
	}
	want, lowered, err := writeSources(o)
	if err != nil {
		return nil, err
	}
	have, err := os.ReadFile(filepath.Join(o.WorkDir, "sources.ys"))
	if err != nil {
		return nil, fmt.Errorf("no synthesis to reuse in %s: %w", o.WorkDir, err)
	}
	if string(have) != want {
		return nil, fmt.Errorf("%s: synthesized from other sources, parameters or RTL text than asked (the RTL changed since? make report-synth again); want:\n%s", filepath.Join(o.WorkDir, "sources.ys"), want)
	}
	return load(ctx, o, rtl, lowered)
}

// CheckSynthesis runs the flip-flop check (and reads the blocks) of the
// synthesis in WorkDir against o.Sources, whatever sources it was made
// from: for a netlist made elsewhere, such as the store-queue replay of
// scripts/storequeue-replay.sh.
func CheckSynthesis(ctx context.Context, o Options) (*Result, error) {
	rtl, err := ElaborateRTL(ctx, VerilatorOptions{Sources: o.Sources, Top: o.Top, Params: o.Params, WorkDir: o.WorkDir, Verilator: o.Verilator})
	if err != nil {
		return nil, err
	}
	return load(ctx, o, rtl, nil)
}

func load(ctx context.Context, o Options, rtl *RTLDesign, lowered []string) (*Result, error) {
	if o.Yosys == "" {
		o.Yosys = "yosys"
	}
	res := &Result{Lowered: lowered}
	ver, err := exec.CommandContext(ctx, o.Yosys, "-V").Output()
	if err != nil {
		return nil, fmt.Errorf("running %s -V (install it with scripts/setup.sh): %w", o.Yosys, err)
	}
	res.Version = strings.TrimSpace(string(ver))
	stat, err := ReadStatFile(filepath.Join(o.WorkDir, "stat.txt"))
	if err != nil {
		return nil, err
	}
	if res.Top, err = ReadHierarchy(filepath.Join(o.WorkDir, "hierarchy.json"), o.Top, stat); err != nil {
		return nil, err
	}
	if res.Blocks, err = Blocks(res.Top, stat); err != nil {
		return nil, err
	}
	net, err := ReadNetlistState(filepath.Join(o.WorkDir, "netlist.json"))
	if err != nil {
		return nil, err
	}
	res.State = CheckState(res.Top, rtl, net, StateAllowances)
	return res, nil
}

// writeSources lowers the sources into WorkDir/lowered and returns the
// sources.ys that reads them and sets the parameters.
func writeSources(o Options) (string, []string, error) {
	var srcs []Source
	sum := sha256.New()
	for _, f := range o.Sources {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", nil, err
		}
		srcs = append(srcs, Source{Name: f, Text: string(b)})
		fmt.Fprintf(sum, "%s %d\n", f, len(b))
		sum.Write(b)
	}
	low, err := Lower(srcs)
	if err != nil {
		return "", nil, err
	}
	dir := filepath.Join(o.WorkDir, "lowered")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, err
	}
	var lowered []string
	var read strings.Builder
	// The sources' digest: Load refuses a synthesis of an RTL edited since.
	fmt.Fprintf(&read, "# Written by arcalis report: the RTL lowered for Yosys 0.23 (report/yosys/lower.go).\n# RTL sha256 %x\nread_verilog -sv", sum.Sum(nil))
	for _, s := range low {
		p := filepath.Join(dir, filepath.Base(s.Name))
		if err := os.WriteFile(p, []byte(s.Text), 0o644); err != nil {
			return "", nil, err
		}
		lowered = append(lowered, p)
		read.WriteString(" lowered/" + filepath.Base(s.Name))
	}
	read.WriteString("\n")
	// chparam fails on a parameter the module does not have.
	for _, p := range o.Params {
		fmt.Fprintf(&read, "chparam -set %s %s %s\n", p.Name, p.Value, o.Top)
	}
	return read.String(), lowered, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}
