// Package report holds the per-block resource and power table of the receive
// path, the part it is measured against, the power model, and its outputs.
package report

import (
	"fmt"
	"strings"
)

// Resources are one block's FPGA resources (7-series names; on UltraScale a
// CARRY8 counts as one carry and URAM is not counted).
type Resources struct {
	LUTs      int     `json:"luts"`       // LUTs as logic
	LUTRAM    int     `json:"lutram"`     // LUTs as distributed RAM or shift registers
	Inverters int     `json:"inverters"`  // Yosys INV cells, not in LUTs (see docs/reports.md)
	FFs       int     `json:"ffs"`        // flip-flops and latches
	Carry     int     `json:"carry"`      // CARRY4 (7-series) / CARRY8 (UltraScale) cells
	MuxF7F8   int     `json:"muxf7f8"`    // F7/F8 wide multiplexers
	BRAM      float64 `json:"bram_tiles"` // 36 Kb block RAM tiles (a RAMB18 is half)
	DSP       int     `json:"dsp"`        // DSP48 slices
	// LCs is Yosys's LUT-combining estimate (logic cells once small LUT pairs
	// share a LUT6); -1 when the source has none (Vivado reports).
	LCs int `json:"yosys_lcs"`
}

// TotalLUTs is what the part's LUT count is spent on: logic and memory LUTs.
func (r Resources) TotalLUTs() int { return r.LUTs + r.LUTRAM }

// Add returns r + o; an unknown LCs (-1) on either side stays unknown.
func (r Resources) Add(o Resources) Resources {
	s := Resources{
		LUTs: r.LUTs + o.LUTs, LUTRAM: r.LUTRAM + o.LUTRAM, Inverters: r.Inverters + o.Inverters,
		FFs: r.FFs + o.FFs, Carry: r.Carry + o.Carry, MuxF7F8: r.MuxF7F8 + o.MuxF7F8,
		BRAM: r.BRAM + o.BRAM, DSP: r.DSP + o.DSP, LCs: r.LCs + o.LCs,
	}
	if r.LCs < 0 || o.LCs < 0 {
		s.LCs = -1
	}
	return s
}

// scaled is r with every count times k (LCs stays unknown if it is).
func (r Resources) scaled(k int) Resources {
	lcs := r.LCs * k
	if r.LCs < 0 {
		lcs = -1
	}
	return Resources{LUTs: r.LUTs * k, LUTRAM: r.LUTRAM * k, Inverters: r.Inverters * k, FFs: r.FFs * k,
		Carry: r.Carry * k, MuxF7F8: r.MuxF7F8 * k, BRAM: r.BRAM * float64(k), DSP: r.DSP * k, LCs: lcs}
}

// Block is one instance of the hierarchy with its own and total resources.
type Block struct {
	Path   string `json:"path"`   // e.g. arcalis_top.u_rx_engine.u_recv_set
	Module string `json:"module"` // source module name
	Label  string `json:"label"`  // the paper's name for it
	Depth  int    `json:"depth"`  // 0 for the top
	// Own is the block's logic outside its sub-instances; Total includes them.
	Own   Resources `json:"own"`
	Total Resources `json:"total"`
	// Activity and Power are filled by the power estimate.
	Activity *Activity `json:"activity,omitempty"`
	Power    *Power    `json:"power,omitempty"`
}

// Name is the instance name (the last element of Path).
func (b Block) Name() string { return b.Path[strings.LastIndexByte(b.Path, '.')+1:] }

// Timing is a Vivado timing summary.
type Timing struct {
	WNS, TNS, WHS, THS float64 // ns; NaN when the report says NA
	FailingEndpoints   int
	ClockPeriodNS      float64 // of the first clock in the clock summary, 0 if none
}

// Report is everything the outputs show.
type Report struct {
	Title   string  `json:"title"`
	Source  string  `json:"source"` // the tool and flow that produced the numbers
	Part    Part    `json:"part"`
	FreqMHz float64 `json:"freq_mhz"`
	Blocks  []Block `json:"blocks"` // pre-order: the top first, children after their parent
	// Notes are printed under the tables (how the numbers were obtained).
	Notes []string `json:"notes,omitempty"`
	// PowerSummary is set when a power estimate or a Vivado power report exists.
	PowerSummary *PowerSummary `json:"power_summary,omitempty"`
	Timing       *Timing       `json:"timing,omitempty"`
}

// Top is the top block.
func (r *Report) Top() Block { return r.Blocks[0] }

// Fit says, per resource, how much of the part the design uses.
type Fit struct {
	Resource  string  `json:"resource"`
	Used      float64 `json:"used"`
	Available float64 `json:"available"`
	Fits      bool    `json:"fits"`
}

// Fits compares the top's totals with the part.
func (r *Report) Fits() []Fit {
	t := r.Top().Total
	f := []Fit{
		{Resource: "LUTs (logic + memory)", Used: float64(t.TotalLUTs()), Available: float64(r.Part.LUTs)},
		{Resource: "Flip-flops", Used: float64(t.FFs), Available: float64(r.Part.FFs)},
		{Resource: "Block RAM (36 Kb tiles)", Used: t.BRAM, Available: float64(r.Part.BRAM36)},
		{Resource: "DSP slices", Used: float64(t.DSP), Available: float64(r.Part.DSP)},
	}
	for i := range f {
		f[i].Fits = f[i].Used <= f[i].Available
	}
	return f
}

// Part is an FPGA's capacity.
type Part struct {
	Name        string `json:"name"`
	LogicCells  int    `json:"logic_cells"`
	Slices      int    `json:"slices"`
	LUTs        int    `json:"luts"`
	FFs         int    `json:"ffs"`
	DistRAMKbit int    `json:"dist_ram_kbit"`
	BRAM36      int    `json:"bram36"`
	DSP         int    `json:"dsp"`
	Source      string `json:"source"`
}

// XA7A12T is the paper's part (xa7a12t-cpg238-2I). Figures from AMD's XA
// Artix-7 Automotive data sheet overview (DS197, Table 1; the same die as
// XC7A12T in DS180): 12,800 logic cells, 2,000 slices, 16,000 CLB flip-flops,
// 171 Kb distributed RAM, 40 DSP48E1 slices, 20 block RAM tiles of 36 Kb.
// A 7-series slice holds four 6-input LUTs and eight flip-flops (UG474,
// "CLB Slices"), so 2,000 slices are 8,000 LUTs, which agrees with UG474's
// 1.6 logic cells per LUT (12,800 / 1.6).
var XA7A12T = Part{
	Name: "xa7a12t-cpg238-2I", LogicCells: 12800, Slices: 2000, LUTs: 8000, FFs: 16000,
	DistRAMKbit: 171, BRAM36: 20, DSP: 40,
	Source: "AMD DS197 Table 1 (XA Artix-7 overview); LUTs = 4 per slice (UG474)",
}

// Parts are the parts the report knows by name.
var Parts = map[string]Part{"xa7a12t-cpg238-2I": XA7A12T, "xa7a12t": XA7A12T}

// LookupPart finds a part by its name (case-insensitive).
func LookupPart(name string) (Part, error) {
	for k, p := range Parts {
		if strings.EqualFold(k, name) {
			return p, nil
		}
	}
	known := make([]string, 0, len(Parts))
	for k := range Parts {
		known = append(known, k)
	}
	return Part{}, fmt.Errorf("part %q: capacity unknown (known: %s)", name, strings.Join(known, ", "))
}

// Labels are the paper's names (Figures 10 and 11) for the RTL's modules.
var Labels = map[string]string{
	"arcalis_top":     "Receive path (all)",
	"cmd_interface":   "FLR command interface",
	"ctrl_fsm":        "FLR control FSM",
	"load_queue":      "FLR load queue + ROB",
	"store_queue":     "FLR store queue",
	"output_buffer":   "Output buffer",
	"tx_engine":       "TxEngine (respFunction)",
	"rx_engine":       "RxEngine",
	"line_buffer":     "Line buffer",
	"byte_selector":   "Byte selector",
	"lane_mux4":       "Byte selector 4:1 step",
	"any_of":          "recvFunction enable OR",
	"rx_deserializer": "Deserializer / dispatch",
	"recv_set":        "recvFunction (Set, Get)",
	"schema_table":    "Schema table",
	"field_extractor": "Field extractor",
}

// FLRModules are the Fixed Logic Region's modules (paper section IV-B);
// everything else under the top, the top's own logic (the RxEngine/TxEngine
// mux into the output buffer) included, is the reconfigurable region.
var FLRModules = map[string]bool{"cmd_interface": true, "ctrl_fsm": true, "load_queue": true, "store_queue": true}

// Region is the resources of one region of the design.
type Region struct {
	Name  string    `json:"name"`
	Total Resources `json:"total"`
}

// Regions splits the top's totals into the FLR and the reconfigurable
// region: the reconfigurable one is the top's total minus the FLR blocks'.
func (r *Report) Regions() []Region {
	var flr Resources
	for _, b := range r.Blocks {
		if b.Depth > 0 && FLRModules[b.Module] {
			flr = flr.Add(b.Total)
		}
	}
	rec := r.Top().Total.Add(flr.scaled(-1))
	return []Region{{Name: "Fixed Logic Region (command interface, control FSM, load and store queues)", Total: flr},
		{Name: "Reconfigurable region (RxEngine, TxEngine, output buffer, their glue in arcalis_top)", Total: rec}}
}

// Label is the paper's name for module, or the module name.
func Label(module string) string {
	if l, ok := Labels[module]; ok {
		return l
	}
	return module
}
