package vivado

import (
	"fmt"
	"io"
	"strings"

	"arcalis/report"
)

// Site is one row of a flat utilization table.
type Site struct {
	Used, Available float64
	Line            int
}

// Utilization is a parsed report_utilization file, flat or -hierarchical.
type Utilization struct {
	Header Header
	// Sites are the flat report's rows by site type ("Slice LUTs", "CLB LUTs",
	// "Slice Registers", "CLB Registers", "Block RAM Tile", "DSPs", ...).
	Sites map[string]Site
	// Blocks are the hierarchical report's instances, in pre-order.
	Blocks []report.Block
}

// LUTs is the design's LUT site row in either family's wording.
func (u *Utilization) LUTs() (Site, bool) {
	return u.site("Slice LUTs", "CLB LUTs", "Slice LUTs*", "CLB LUTs*")
}

// Registers is the design's register row in either family's wording.
func (u *Utilization) Registers() (Site, bool) {
	return u.site("Slice Registers", "CLB Registers", "Slice Registers*", "CLB Registers*")
}

func (u *Utilization) site(names ...string) (Site, bool) {
	for _, n := range names {
		if s, ok := u.Sites[n]; ok {
			return s, true
		}
	}
	return Site{}, false
}

// ReadUtilizationFile parses one report_utilization output file.
func ReadUtilizationFile(path string) (*Utilization, error) { return readFile(path, ParseUtilization) }

// ParseUtilization reads a report_utilization file of Vivado 2017 to 2023,
// 7-series ("Slice LUTs", "Slice Registers", "DSP48 Blocks") or UltraScale
// ("CLB LUTs", "CLB Registers", "URAM", "DSP Blocks") wording, with or
// without the Prohibited column. A report with neither a site table nor a
// hierarchy table, or with a cell that should be a number and is not, is an
// error naming the file and line.
func ParseUtilization(r io.Reader, name string) (*Utilization, error) {
	lines, ts, err := readTables(r, name)
	if err != nil {
		return nil, err
	}
	u := &Utilization{Header: readHeader(lines), Sites: map[string]Site{}}
	found := false
	for _, t := range ts {
		switch {
		case t.col("Site Type") == 0:
			found = true
			if err := u.readSites(t, name); err != nil {
				return nil, err
			}
		case t.col("Instance") == 0 && t.col("Module") == 1:
			if u.Blocks != nil {
				return nil, fmt.Errorf("%s:%d: a second hierarchy table", name, t.at)
			}
			found = true
			if u.Blocks, err = hierarchy(t, name, u.Header.Design); err != nil {
				return nil, err
			}
		}
	}
	if !found {
		return nil, fmt.Errorf("%s: no utilization table (| Site Type | ... or | Instance | Module | ...) found", name)
	}
	return u, nil
}

func (u *Utilization) readSites(t *table, name string) error {
	used, avail := t.col("Used"), t.col("Available")
	if used < 0 || avail < 0 {
		return fmt.Errorf("%s:%d: site table without Used and Available columns", name, t.at)
	}
	for i, row := range t.rows {
		site := row[0]
		if site == "" || row[used] == "" {
			continue
		}
		uv, err := number(row[used], false)
		if err != nil {
			return fmt.Errorf("%s:%d: %s, Used: %w", name, t.lines[i], site, err)
		}
		av, err := number(row[avail], false)
		if row[avail] == "" {
			av, err = 0, nil // a sub-row ("LUT as Distributed RAM") has no capacity of its own
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %s, Available: %w", name, t.lines[i], site, err)
		}
		if _, dup := u.Sites[site]; !dup { // the first table that names a site wins
			u.Sites[site] = Site{Used: uv, Available: av, Line: t.lines[i]}
		}
	}
	return nil
}

// hierarchy turns the -hierarchical table into blocks. Instances are
// indented two spaces per level; a row whose instance is in parentheses,
// "(top)", is its parent's own logic and is not a block.
func hierarchy(t *table, name, design string) ([]report.Block, error) {
	total := t.col("Total LUTs")
	ffs := t.col("FFs")
	if total < 0 || ffs < 0 {
		return nil, fmt.Errorf("%s:%d: hierarchy table without Total LUTs and FFs columns", name, t.at)
	}
	logic, lutram, srl := t.col("Logic LUTs"), t.col("LUTRAMs"), t.col("SRLs")
	b36, b18 := t.col("RAMB36"), t.col("RAMB18")
	dsp := t.col("DSP48 Blocks", "DSP Blocks", "DSPs")
	get := func(i, c int, what string) (float64, error) {
		if c < 0 {
			return 0, nil
		}
		v, err := number(t.rows[i][c], false)
		if err != nil {
			return 0, fmt.Errorf("%s:%d: %s, %s: %w", name, t.lines[i], t.rows[i][0], what, err)
		}
		return v, nil
	}
	var blocks []report.Block
	var stack []int // indices into blocks of the open ancestors
	for i, row := range t.rows {
		inst := row[0]
		raw := t.raw[i][0]
		indent := len(raw) - len(strings.TrimLeft(raw, " ")) - 1
		depth := indent / 2
		if indent < 0 || indent%2 != 0 {
			return nil, fmt.Errorf("%s:%d: instance %q is indented by %d spaces, not a multiple of two", name, t.lines[i], inst, indent)
		}
		var tot, lo, lr, sr, f, r36, r18, d float64
		vals := []column{
			{total, "Total LUTs", &tot}, {logic, "Logic LUTs", &lo}, {lutram, "LUTRAMs", &lr}, {srl, "SRLs", &sr},
			{ffs, "FFs", &f}, {b36, "RAMB36", &r36}, {b18, "RAMB18", &r18}, {dsp, "DSP", &d},
		}
		for _, v := range vals {
			x, err := get(i, v.col, v.what)
			if err != nil {
				return nil, err
			}
			*v.dst = x
		}
		if logic < 0 {
			lo = tot - lr - sr
		}
		res := report.Resources{LUTs: int(lo), LUTRAM: int(lr + sr), FFs: int(f), BRAM: r36 + r18/2, DSP: int(d), LCs: -1}
		if int(lo)+int(lr+sr) != int(tot) {
			return nil, fmt.Errorf("%s:%d: %s: Logic LUTs + LUTRAMs + SRLs = %d, not Total LUTs %d", name, t.lines[i], inst, int(lo+lr+sr), int(tot))
		}
		if depth > len(stack) {
			return nil, fmt.Errorf("%s:%d: instance %q is nested two levels below its parent", name, t.lines[i], inst)
		}
		stack = stack[:depth]
		if strings.HasPrefix(inst, "(") && strings.HasSuffix(inst, ")") {
			if depth == 0 {
				return nil, fmt.Errorf("%s:%d: own-logic row %s without a parent", name, t.lines[i], inst)
			}
			continue // the parent's own logic: recomputed from the children below
		}
		if depth == 0 && len(blocks) > 0 {
			return nil, fmt.Errorf("%s:%d: a second top-level instance %s", name, t.lines[i], inst)
		}
		module := row[1]
		if module == "(top)" {
			module = design
			if module == "" {
				module = inst
			}
		}
		path := inst
		if depth > 0 {
			path = blocks[stack[depth-1]].Path + "." + inst
		}
		base := baseModule(module)
		blocks = append(blocks, report.Block{Path: path, Module: base, Label: report.Label(base), Depth: depth, Total: res})
		stack = append(stack, len(blocks)-1)
	}
	if len(blocks) == 0 {
		return nil, fmt.Errorf("%s:%d: hierarchy table has no instances", name, t.at)
	}
	ownFromChildren(blocks)
	return blocks, nil
}

// column is one numeric column of a row and where its value goes.
type column struct {
	col  int
	what string
	dst  *float64
}

// baseModule strips Vivado's "__parameterized0" suffix.
func baseModule(m string) string {
	if i := strings.Index(m, "__parameterized"); i > 0 {
		return m[:i]
	}
	return m
}

// ownFromChildren sets each block's Own to its Total less its children's.
func ownFromChildren(blocks []report.Block) {
	for i := range blocks {
		own := blocks[i].Total
		for j := i + 1; j < len(blocks) && blocks[j].Depth > blocks[i].Depth; j++ {
			if blocks[j].Depth == blocks[i].Depth+1 {
				c := blocks[j].Total
				own.LUTs -= c.LUTs
				own.LUTRAM -= c.LUTRAM
				own.FFs -= c.FFs
				own.BRAM -= c.BRAM
				own.DSP -= c.DSP
			}
		}
		blocks[i].Own = own
	}
}
