package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"arcalis/report"
	"arcalis/report/flow"
	"arcalis/report/timing"
	"arcalis/report/vivado"
	"arcalis/report/yosys"
)

// reportCommand groups the resource and power reports (docs/reports.md).
func reportCommand() *cli.Command {
	partFlag := &cli.StringFlag{Name: "part", Value: report.XA7A12T.Name, Usage: "FPGA part whose capacity the design is measured against"}
	freqFlag := &cli.Float64Flag{Name: "freq", Value: 280, Usage: "clock frequency in `MHz`"}
	outFlag := &cli.StringFlag{Name: "out", Value: "reports", Usage: "output `DIR`", TakesFile: true}
	topFlag := &cli.StringFlag{Name: "top", Value: "arcalis_top", Usage: "top module"}
	scriptFlag := &cli.StringFlag{Name: "script", Value: "scripts/yosys/synth.ys", Usage: "Yosys script", TakesFile: true}
	ffOutFlag := &cli.StringFlag{Name: "out", Usage: "`DIR` for flipflops.{md,json} (default: --work)", TakesFile: true}
	return &cli.Command{
		Name:  "report",
		Usage: "per-block resources and dynamic power (Yosys estimate, or Vivado's reports)",
		Subcommands: []*cli.Command{
			{
				Name:      "yosys",
				Usage:     "synthesize with Yosys, trace a workload, estimate power; write DIR/yosys.{md,json,csv,svg} and DIR/activity.saif",
				ArgsUsage: "RTL... (the package first)",
				Flags: []cli.Flag{
					partFlag, freqFlag, outFlag, topFlag, scriptFlag,
					&cli.StringFlag{Name: "work", Value: "build/report", Usage: "scratch `DIR` (lowered RTL, Yosys files, waveforms)", TakesFile: true},
					&cli.StringFlag{Name: "vectors", Value: "vectors/default.vec", Usage: "workload for the activity", TakesFile: true},
					modelFlag(),
					&cli.IntFlag{Name: "mem-latency", Value: 4, Usage: "memory latency in `CYCLES` of the workload run"},
					&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of the memory model's random choices"},
					paramFlag(),
					&cli.BoolFlag{Name: "synthesized", Usage: "reuse the synthesis `arcalis report synth` left in --work (same RTL and parameters) instead of running Yosys"},
				},
				Action: reportYosys,
			},
			{
				Name:      "synth",
				Usage:     "synthesize with Yosys into --work (netlist.json, netlist.v, stat.txt) and check every block's flip-flops against the RTL; write flipflops.{md,json} (into --work unless --out)",
				ArgsUsage: "RTL... (the package first)",
				Flags: []cli.Flag{
					topFlag, scriptFlag,
					&cli.StringFlag{Name: "work", Value: "build/report", Usage: "scratch `DIR` (lowered RTL, Yosys files)", TakesFile: true},
					ffOutFlag,
					paramFlag(),
				},
				Action: reportSynth,
			},
			{
				Name:      "flipflops",
				Usage:     "only the flip-flop check of the synthesis already in --work (stat.txt, hierarchy.json, netlist.json) against the RTL given, whatever it was synthesized from; write flipflops.{md,json} (into --work unless --out)",
				ArgsUsage: "RTL... (the package first)",
				Flags: []cli.Flag{
					topFlag,
					&cli.StringFlag{Name: "work", Value: "build/report", Usage: "`DIR` holding the synthesis", TakesFile: true},
					ffOutFlag,
					paramFlag(),
				},
				Action: reportFlipflops,
			},
			{
				Name:  "vivado",
				Usage: "read the reports scripts/vivado/flow.tcl wrote in DIR; write OUT/vivado.{md,json,csv,svg}",
				Flags: []cli.Flag{
					partFlag, freqFlag, outFlag,
					&cli.StringFlag{Name: "dir", Value: "build/vivado", Usage: "`DIR` with utilization.rpt, utilization_hier.rpt, power.rpt, timing_summary.rpt", TakesFile: true},
				},
				Action: reportVivado,
			},
			{
				Name:  "timing",
				Usage: "static timing estimate of the synthesized netlist (docs/timing.md); writes OUT/timing.{md,json}; exit 1 if Fmax < --freq or an input reaches an output through logic",
				Flags: []cli.Flag{
					&cli.Float64Flag{Name: "freq", Value: 280, Usage: "target clock frequency in `MHz`"},
					&cli.StringFlag{Name: "netlist", Value: "build/report/netlist.json", Usage: "Yosys write_json netlist (make report or report synth writes it)", TakesFile: true},
					outFlag,
					&cli.StringFlag{Name: "top", Usage: "top module (default: the netlist's top attribute)"},
					&cli.IntFlag{Name: "paths", Value: 10, Usage: "how many worst paths to list"},
				},
				Action: reportTiming,
			},
			{
				Name:      "lower",
				Usage:     "write the RTL as Yosys 0.23 reads it (report/yosys/lower.go) into DIR",
				ArgsUsage: "RTL... (the package first)",
				Flags:     []cli.Flag{&cli.StringFlag{Name: "o", Usage: "output `DIR`", Required: true, TakesFile: true}},
				Action:    reportLower,
			},
		},
	}
}

// paramFlag sets a parameter of the top module for synthesis.
func paramFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "param", Usage: "top-module parameter `NAME=VALUE` (chparam before hierarchy; repeatable); one the top does not declare is an error"}
}

func params(c *cli.Context, cmd string) ([]yosys.Param, error) {
	var out []yosys.Param
	for _, s := range c.StringSlice("param") {
		p, err := yosys.ParseParam(s)
		if err != nil {
			return nil, fmt.Errorf("%s: --param: %w", cmd, err)
		}
		out = append(out, p)
	}
	return out, nil
}

func reportFlipflops(c *cli.Context) error { return synthOrCheck(c, "report flipflops", true) }

func reportSynth(c *cli.Context) error { return synthOrCheck(c, "report synth", false) }

// synthOrCheck is report synth, or with checkOnly report flipflops.
func synthOrCheck(c *cli.Context, cmd string, checkOnly bool) error {
	rtl, err := positional(c)
	if err != nil {
		return err
	}
	if len(rtl) == 0 {
		return fmt.Errorf("%s: no RTL files given (usage: arcalis %s [flags] RTL...)", cmd, cmd)
	}
	ps, err := params(c, cmd)
	if err != nil {
		return err
	}
	work := c.String("work")
	out := c.String("out")
	if out == "" {
		out = work
	}
	logw := c.App.ErrWriter
	o := yosys.Options{Sources: rtl, Top: c.String("top"), Params: ps, Script: c.String("script"), WorkDir: work}
	var syn *yosys.Result
	if checkOnly {
		syn, err = yosys.CheckSynthesis(context.Background(), o)
	} else {
		syn, err = flow.Synthesize(context.Background(), false, o, func(f string, a ...any) { fmt.Fprintf(logw, "report: "+f+"\n", a...) })
	}
	if err != nil {
		return err
	}
	if err := flow.WriteStateCheck(syn.State, out); err != nil {
		return err
	}
	if err := syn.State.Err(); err != nil {
		return findingsf("%v\n(table: %s)", err, filepath.Join(out, flow.Outputs["ff"]))
	}
	t := syn.Blocks[0].Total
	fmt.Fprintf(c.App.Writer, "%s: %d LUTs, %d FFs; flip-flops match the RTL in all %d blocks (%s); netlist in %s\n",
		syn.Blocks[0].Path, t.TotalLUTs(), t.FFs, len(syn.State.Blocks), filepath.Join(out, flow.Outputs["ff"]), work)
	return nil
}

func reportYosys(c *cli.Context) error {
	rtl, err := positional(c)
	if err != nil {
		return err
	}
	if len(rtl) == 0 {
		return errors.New("report yosys: no RTL files given (usage: arcalis report yosys [flags] RTL...)")
	}
	ps, err := params(c, "report yosys")
	if err != nil {
		return err
	}
	part, err := report.LookupPart(c.String("part"))
	if err != nil {
		return fmt.Errorf("report yosys: %w", err)
	}
	freq := c.Float64("freq")
	if freq <= 0 || freq > 2000 {
		return fmt.Errorf("report yosys: --freq %g: want 0 < MHz <= 2000", freq)
	}
	model, _, err := modelPath(c)
	if err != nil {
		return err
	}
	logw := c.App.ErrWriter
	rep, err := flow.Run(context.Background(), flow.Options{
		RTL: rtl, Top: c.String("top"), Params: ps, Synthesized: c.Bool("synthesized"),
		Script: c.String("script"), WorkDir: c.String("work"), OutDir: c.String("out"),
		Part: part, FreqMHz: freq,
		Workload: flow.Workload{Model: model, Vectors: c.String("vectors"), MemLatency: c.Int("mem-latency"), Seed: c.Int64("seed")},
		Log:      func(f string, a ...any) { fmt.Fprintf(logw, "report: "+f+"\n", a...) },
	})
	var mismatch *yosys.StateError
	if errors.As(err, &mismatch) {
		return findingsf("%v", err) // the flip-flop check found something
	}
	if err != nil {
		return err
	}
	printSummary(c, rep, c.String("out"), "yosys")
	return nil
}

func reportVivado(c *cli.Context) error {
	if c.NArg() > 0 {
		return fmt.Errorf("report vivado: unexpected argument %q (the reports are found with --dir)", c.Args().First())
	}
	part, err := report.LookupPart(c.String("part"))
	if err != nil {
		return fmt.Errorf("report vivado: %w", err)
	}
	dir := c.String("dir")
	files := vivado.Files{
		Utilization:  filepath.Join(dir, "utilization.rpt"),
		Hierarchical: filepath.Join(dir, "utilization_hier.rpt"),
		Power:        filepath.Join(dir, "power.rpt"),
		Timing:       filepath.Join(dir, "timing_summary.rpt"),
	}
	for _, p := range []*string{&files.Utilization, &files.Power, &files.Timing} {
		if _, err := os.Stat(*p); err != nil {
			*p = "" // optional
		}
	}
	rep, err := vivado.Load(files, part, c.Float64("freq"))
	if err != nil {
		return err
	}
	if err := flow.WriteOutputs(rep, c.String("out"), "vivado"); err != nil {
		return err
	}
	printSummary(c, rep, c.String("out"), "vivado")
	return nil
}

func reportTiming(c *cli.Context) error {
	if c.NArg() > 0 {
		return fmt.Errorf("report timing: unexpected argument %q (the netlist is given with --netlist)", c.Args().First())
	}
	freq := c.Float64("freq")
	if freq <= 0 || freq > 2000 {
		return fmt.Errorf("report timing: --freq %g: want 0 < MHz <= 2000", freq)
	}
	d, err := timing.Load(c.String("netlist"), c.String("top"))
	if err != nil {
		return fmt.Errorf("report timing: %w (make report, or arcalis report synth, writes the netlist)", err)
	}
	a, err := timing.Analyze(d, timing.Default())
	if err != nil {
		return fmt.Errorf("report timing: %w", err)
	}
	rep := a.Build(freq, c.Int("paths"))
	rep.Date = time.Now().UTC().Format(time.RFC3339)
	rep.Host, _ = os.Hostname()
	out := c.String("out")
	if err := rep.WriteFiles(out); err != nil {
		return err
	}
	w := c.App.Writer
	fmt.Fprintf(w, "estimated Fmax %.1f MHz (longest path %.3f ns), target %.1f MHz, worst slack %.3f ns; %d input-to-output paths\n",
		rep.FmaxMHz, rep.WorstNS, freq, rep.WorstSlackNS, len(rep.InToOut))
	if len(rep.Worst) > 0 {
		x := rep.Worst[0]
		fmt.Fprintf(w, "worst path (%s): %s -> %s, %s, %.3f ns (logic %.3f + route %.3f)\n", x.Kind, x.Start, x.End, x.Levels(), x.TotalNS, x.LogicNS, x.RouteNS)
	}
	fmt.Fprintf(w, "%d of %d endpoints above the %.0f %% margin's %.3f ns\n", rep.OverMargin, rep.Endpoints, timing.Margin*100, rep.PeriodNS/(1+timing.Margin))
	fmt.Fprintf(w, "wrote %s (an estimate: keep %.0f %% margin, docs/timing.md)\n", filepath.Join(out, "timing.{md,json}"), timing.Margin*100)
	switch {
	case len(rep.InToOut) > 0 && rep.FmaxMHz < freq:
		return findingsf("report timing: estimated Fmax %.1f MHz is below the %.1f MHz target, and %d output bits are reached from an input through logic alone (see %s)", rep.FmaxMHz, freq, len(rep.InToOut), filepath.Join(out, "timing.md"))
	case rep.FmaxMHz < freq:
		return findingsf("report timing: estimated Fmax %.1f MHz is below the %.1f MHz target (see %s)", rep.FmaxMHz, freq, filepath.Join(out, "timing.md"))
	case len(rep.InToOut) > 0:
		return findingsf("report timing: %d output bits are reached from an input through logic alone (see %s)", len(rep.InToOut), filepath.Join(out, "timing.md"))
	case rep.OverMargin > 0:
		return findingsf("report timing: %d endpoints are above the %.0f %% margin's %.3f ns (see %s, \"Above the margin\")",
			rep.OverMargin, timing.Margin*100, rep.PeriodNS/(1+timing.Margin), filepath.Join(out, "timing.md"))
	}
	return nil
}

func reportLower(c *cli.Context) error {
	rtl, err := positional(c)
	if err != nil {
		return err
	}
	var srcs []yosys.Source
	for _, f := range rtl {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		srcs = append(srcs, yosys.Source{Name: f, Text: string(b)})
	}
	low, err := yosys.Lower(srcs)
	if err != nil {
		return err
	}
	dir := c.String("o")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, s := range low {
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(s.Name)), []byte(s.Text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func printSummary(c *cli.Context, rep *report.Report, out, base string) {
	w := c.App.Writer
	t := rep.Top().Total
	fmt.Fprintf(w, "%s: %d LUTs (%d logic + %d memory), %d FFs, %d carry, %g BRAM tiles, %d DSP on %s\n",
		rep.Top().Path, t.TotalLUTs(), t.LUTs, t.LUTRAM, t.FFs, t.Carry, t.BRAM, t.DSP, rep.Part.Name)
	for _, f := range rep.Fits() {
		verdict := "fits"
		if !f.Fits {
			verdict = "DOES NOT FIT"
		}
		fmt.Fprintf(w, "  %-26s %8g / %-8g %s\n", f.Resource, f.Used, f.Available, verdict)
	}
	if ps := rep.PowerSummary; ps != nil {
		kind := "estimated dynamic power"
		if ps.Kind == "vivado" {
			kind = "Vivado dynamic power"
		}
		fmt.Fprintf(w, "%s at %g MHz: %.1f mW\n", kind, rep.FreqMHz, ps.DynamicW*1000)
	}
	fmt.Fprintf(w, "wrote %s\n", filepath.Join(out, base+".{md,json,csv,svg}"))
}
