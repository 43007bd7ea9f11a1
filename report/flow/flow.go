package flow

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"arcalis/report"
	"arcalis/report/activity"
	"arcalis/report/yosys"
)

// Options configure the open-source flow (`make report`).
type Options struct {
	RTL    []string // SystemVerilog sources, the package first
	Top    string   // top module
	Params []yosys.Param
	// Synthesized reuses the synthesis already in WorkDir (`arcalis report
	// synth` with the same sources and parameters) instead of running Yosys.
	Synthesized bool
	Script      string // the Yosys script (scripts/yosys/synth.ys)
	WorkDir     string // scratch: lowered RTL, Yosys files, waveforms
	OutDir      string // where the outputs go (reports/)
	Part        report.Part
	FreqMHz     float64
	Workload    Workload
	// Log receives one line per step.
	Log func(format string, args ...any)
}

// Outputs are the files Run writes under OutDir, by format.
var Outputs = map[string]string{"md": "yosys.md", "json": "yosys.json", "csv": "yosys.csv", "svg": "yosys.svg", "saif": "activity.saif", "ff": "flipflops.md"}

// Run synthesizes with Yosys, traces the workload, estimates power and
// writes the outputs. The report it returns is what was written.
func Run(ctx context.Context, o Options) (*report.Report, error) {
	logf := o.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if err := os.MkdirAll(o.WorkDir, 0o755); err != nil {
		return nil, err
	}
	syn, err := Synthesize(ctx, o.Synthesized, yosys.Options{Sources: o.RTL, Top: o.Top, Params: o.Params, Script: o.Script, WorkDir: o.WorkDir}, logf)
	if err != nil {
		return nil, err
	}
	if err := WriteStateCheck(syn.State, o.OutDir); err != nil {
		return nil, err
	}
	if err := syn.State.Err(); err != nil {
		return nil, fmt.Errorf("%w\n(table: %s)", err, filepath.Join(o.OutDir, Outputs["ff"]))
	}
	rep := &report.Report{
		Title:   "Arcalís receive path: resources and dynamic power",
		Source:  syn.Version + ", synth_xilinx -family xc7, out of context, hierarchy kept",
		Part:    o.Part,
		FreqMHz: o.FreqMHz,
		Blocks:  syn.Blocks,
	}

	fst := filepath.Join(o.WorkDir, "activity.fst")
	vcd := filepath.Join(o.WorkDir, "activity.vcd")
	logf("simulation: %s through %s with an FST waveform", o.Workload.Vectors, o.Workload.Model)
	n, err := Trace(o.Workload, fst)
	if err != nil {
		return nil, fmt.Errorf("activity run: %w", err)
	}
	logf("fst2vcd: %s", vcd)
	if err := FSTToVCD(ctx, fst, vcd); err != nil {
		return nil, err
	}
	dump, err := activity.ReadFile(vcd)
	if err != nil {
		return nil, err
	}
	cycles, err := dump.RisingEdges(o.Top + ".clk_i")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", vcd, err)
	}
	act := map[string]report.Activity{}
	for _, b := range rep.Blocks {
		s := dump.Scope(b.Path)
		if s == nil {
			return nil, fmt.Errorf("%s: block %s has no scope in the waveform", vcd, b.Path)
		}
		bits, toggles := s.Own()
		act[b.Path] = report.NewActivity(bits, toggles, cycles)
	}
	model, err := report.Figure19Model()
	if err != nil {
		return nil, err
	}
	workload := fmt.Sprintf("the %d records of %s through the Verilated RTL (memory latency %d, seed %d)",
		n, filepath.ToSlash(o.Workload.Vectors), o.Workload.MemLatency, o.Workload.Seed)
	if err := rep.Estimate(model, act, workload); err != nil {
		return nil, err
	}

	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return nil, err
	}
	saif := filepath.Join(o.OutDir, Outputs["saif"])
	rep.PowerSummary.SAIF = filepath.ToSlash(saif)
	if err := writeFile(saif, func(f *os.File) error {
		return dump.WriteSAIF(f, o.Top, activity.SAIFHeader{Program: "arcalis report", Version: "1", Design: o.Top})
	}); err != nil {
		return nil, err
	}
	rep.Notes = notes(rep, syn)
	if err := WriteOutputs(rep, o.OutDir, "yosys"); err != nil {
		return nil, err
	}
	return rep, nil
}

// Synthesize runs Yosys (or, with reuse, loads its results from the work
// dir) and the flip-flop check.
func Synthesize(ctx context.Context, reuse bool, o yosys.Options, logf func(string, ...any)) (*yosys.Result, error) {
	if err := os.MkdirAll(o.WorkDir, 0o755); err != nil {
		return nil, err
	}
	var syn *yosys.Result
	var err error
	if reuse {
		logf("yosys: reusing the synthesis in %s", o.WorkDir)
		syn, err = yosys.Load(ctx, o)
	} else {
		logf("yosys: synth_xilinx -family xc7 on %d files%s (log: %s)", len(o.Sources), paramText(o.Params), filepath.Join(o.WorkDir, "yosys.log"))
		syn, err = yosys.Synthesize(ctx, o)
	}
	if err != nil {
		return nil, fmt.Errorf("synthesis: %w", err)
	}
	return syn, nil
}

func paramText(ps []yosys.Param) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.Name+"="+p.Value)
	}
	if len(s) == 0 {
		return ""
	}
	return ", " + strings.Join(s, " ")
}

// WriteStateCheck writes the flip-flop table as DIR/flipflops.md and .json.
func WriteStateCheck(c *yosys.StateCheck, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, Outputs["ff"]), []byte(c.Markdown()), 0o644); err != nil {
		return err
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "flipflops.json"), append(b, '\n'), 0o644)
}

// WriteOutputs writes DIR/BASE.md, .json, .csv and .svg.
func WriteOutputs(rep *report.Report, dir, base string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for ext, write := range map[string]func(*os.File) error{
		"md":   func(f *os.File) error { return rep.WriteMarkdown(f) },
		"json": func(f *os.File) error { return rep.WriteJSON(f) },
		"csv":  func(f *os.File) error { return rep.WriteCSV(f) },
		"svg":  func(f *os.File) error { return rep.WriteSVG(f) },
	} {
		if err := writeFile(filepath.Join(dir, base+"."+ext), write); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, write func(*os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

func notes(rep *report.Report, syn *yosys.Result) []string {
	top := rep.Top().Total
	return []string{
		"Synthesis: `make report` (scripts/yosys/synth.ys) after report/yosys/lower.go rewrote the SystemVerilog forms Yosys 0.23 cannot read; `make report` first simulates that lowered RTL against the reference on vectors/default.vec, so the synthesized code is checked to behave as the RTL does, and `make gatesim` runs the synthesized netlist itself through the harness.",
		"Flip-flops: every block's netlist holds the state bits its RTL declares (flipflops.md: FFs (RTL) against FFs (netlist), variable by variable; `make report` fails otherwise).",
		"Yosys is not Vivado: its LUT mapping (ABC) and its lack of cross-boundary optimisation differ from Vivado's, so expect Vivado's numbers to differ; `make report-vivado` produces them where Vivado is installed.",
		fmt.Sprintf("INV: %d inverters that Yosys 0.23 leaves as separate cells, nearly all on the active-low asynchronous reset of FDCE flip-flops (one per flop); Vivado folds those into the flop's IS_CLR_INVERTED, so they are not counted as LUTs. Counting them anyway gives %d LUTs.", top.Inverters, top.TotalLUTs()+top.Inverters),
		"Yosys LCs: Yosys's estimate of logic cells after pairing small LUTs into LUT6 sites (`stat -tech xilinx`), summed over the modules of each block.",
		"Block RAM and DSP are 0 because the RTL has no memory wide and deep enough for Yosys to map to RAMB18/36 (the load queue's reorder buffer becomes distributed RAM, RAM32M) and no multiplier.",
		"Power: activity counted per block from the waveform (every traced bit declared in the block's own scope, parameters excluded; the rate is toggles per bit per clock cycle), then the model described under the power table. It is an estimate: the coefficients come from two published numbers, not from a power characterisation of the part.",
		"Lowered sources used: " + strings.Join(baseNames(syn.Lowered), ", ") + ".",
	}
}

func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return out
}
