package vivado

import (
	"errors"
	"fmt"
	"math"

	"arcalis/report"
)

// Files are the report files scripts/vivado/flow.tcl writes; Hierarchical is
// required, the others are read when set.
type Files struct {
	Utilization  string // report_utilization
	Hierarchical string // report_utilization -hierarchical
	Power        string // report_power
	Timing       string // report_timing_summary
}

// Load reads the files into a report for part at freqMHz. When the flat
// utilization report is given, its Available column replaces the part's
// capacity (Vivado knows the device), and a disagreement with the part
// table is noted.
func Load(f Files, part report.Part, freqMHz float64) (*report.Report, error) {
	if f.Hierarchical == "" {
		return nil, errors.New("vivado: the hierarchical utilization report is required")
	}
	hier, err := ReadUtilizationFile(f.Hierarchical)
	if err != nil {
		return nil, err
	}
	if hier.Blocks == nil {
		return nil, fmt.Errorf("%s: no hierarchy table (was it written with report_utilization -hierarchical?)", f.Hierarchical)
	}
	rep := &report.Report{
		Title:   "Arcalís receive path: resources and power (Vivado)",
		Source:  "Vivado " + hier.Header.Version + ", " + hier.Header.State,
		Part:    part,
		FreqMHz: freqMHz,
		Blocks:  hier.Blocks,
	}
	if hier.Header.Version == "" {
		rep.Source = "Vivado"
	}
	if f.Utilization != "" {
		flat, err := ReadUtilizationFile(f.Utilization)
		if err != nil {
			return nil, err
		}
		if err := applyCapacity(rep, flat, f.Utilization); err != nil {
			return nil, err
		}
	}
	if f.Power != "" {
		p, err := ReadPowerFile(f.Power)
		if err != nil {
			return nil, err
		}
		p.Apply(rep)
	}
	if f.Timing != "" {
		t, err := ReadTimingFile(f.Timing)
		if err != nil {
			return nil, err
		}
		rep.Timing = t
		if t.ClockPeriodNS > 0 {
			if got := 1000 / t.ClockPeriodNS; math.Abs(got-freqMHz) > 0.5 {
				rep.Notes = append(rep.Notes, fmt.Sprintf("The timing report's clock is %.1f MHz, not the %.1f MHz asked for.", got, freqMHz))
			}
		}
	}
	rep.Notes = append(rep.Notes,
		"Read from Vivado's report files by report/vivado (make report-vivado runs scripts/vivado/flow.tcl, then this).",
		"Carry, F7/F8 and the Yosys columns are not in Vivado's hierarchical table and show 0.")
	return rep, nil
}

func applyCapacity(rep *report.Report, flat *Utilization, name string) error {
	luts, ok := flat.LUTs()
	if !ok {
		return fmt.Errorf("%s: no Slice LUTs / CLB LUTs row", name)
	}
	regs, ok := flat.Registers()
	if !ok {
		return fmt.Errorf("%s: no Slice Registers / CLB Registers row", name)
	}
	p := rep.Part
	if int(luts.Available) != p.LUTs || int(regs.Available) != p.FFs {
		rep.Notes = append(rep.Notes, fmt.Sprintf("Capacity from the report (%s): %d LUTs, %d registers; the part table (%s) says %d and %d.",
			flat.Header.Device, int(luts.Available), int(regs.Available), p.Name, p.LUTs, p.FFs))
	}
	p.LUTs, p.FFs = int(luts.Available), int(regs.Available)
	if s, ok := flat.site("Block RAM Tile"); ok {
		p.BRAM36 = int(s.Available)
	}
	if s, ok := flat.site("DSPs"); ok {
		p.DSP = int(s.Available)
	}
	if flat.Header.Device != "" {
		p.Name = flat.Header.Device
	}
	p.Source = "the Available column of " + name
	rep.Part = p
	if int(luts.Used) != rep.Top().Total.TotalLUTs() || int(regs.Used) != rep.Top().Total.FFs {
		return fmt.Errorf("%s:%d: the flat report counts %d LUTs and %d registers, the hierarchical one %d and %d: reports of different runs?",
			name, luts.Line, int(luts.Used), int(regs.Used), rep.Top().Total.TotalLUTs(), rep.Top().Total.FFs)
	}
	return nil
}
