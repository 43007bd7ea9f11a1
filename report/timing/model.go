package timing

import "math"

// Delays are the per-cell and per-net figures of the model, in ns. The cell
// figures and their sources are listed in docs/timing.md; Default returns
// the ones the report uses.
type Delays struct {
	FFClkToQ  float64 // FDRE/FDSE/FDCE/FDPE clock to Q (TCKO)
	FFSetupD  float64 // D setup (TDICK; negative figures clamped to 0)
	FFSetupCE float64 // CE setup (TCECK)
	FFSetupSR float64 // synchronous R/S setup, also async CLR/PRE recovery (TSRCK)
	LUT       float64 // any LUT input to O (TILO); INV is a LUT1

	MUXF7Data, MUXF7Sel float64 // I0/I1 to O, S to O
	MUXF8Data, MUXF8Sel float64

	// Carry4[in][out]: CARRY4 input pin to output pin. Inputs are CI,
	// CYINIT, DI[0..3], S[0..3]; outputs O[0..3], CO[0..3]. A missing entry
	// means no combinational arc (a later stage cannot reach an earlier
	// output).
	Carry4 map[string]map[string]float64

	RAMClkToQ   float64 // distributed RAM WCLK to DO (TSHCKO)
	RAMRead     float64 // distributed RAM read address to DO (TILO path)
	RAMSetupDI  float64 // data-in setup to WCLK (TDS)
	RAMSetupWA  float64 // write address setup (TAS)
	RAMSetupWE  float64 // write enable setup (TWS)
	SRLClkToQ   float64 // SRL16E/SRLC32E CLK to Q
	SRLSetupD   float64
	SRLAddrToQ  float64
	PortInDelay float64 // a top-level input is taken to be driven by a register outside: its TCKO

	// Route per general net: RouteBase + RouteFanout*log2(fanout). Nets on
	// dedicated wires (carry chain, LUT into MUXF7, MUXF7 into MUXF8, a
	// single-load LUT into the CARRY4 of its slice) cost nothing.
	RouteBase   float64
	RouteFanout float64
}

// Margin is the share of the target frequency the estimate should exceed
// it by, for the routing the model cannot see (docs/timing.md).
const Margin = 0.20

// Route is the modelled delay of a general (not dedicated) net with the
// given number of loads.
func (d *Delays) Route(fanout int) float64 {
	if fanout < 1 {
		fanout = 1
	}
	return d.RouteBase + d.RouteFanout*math.Log2(float64(fanout))
}

// Default is the model of docs/timing.md: Artix-7 cell delays and the
// routing term calibrated against public Vivado reports.
func Default() *Delays {
	d := &Delays{
		FFClkToQ:  0.456,
		FFSetupD:  0,
		FFSetupCE: 0.109,
		FFSetupSR: 0.404,
		LUT:       0.124,
		MUXF7Data: 0.223, MUXF7Sel: 0.296,
		MUXF8Data: 0.104, MUXF8Sel: 0.273,
		RAMClkToQ:   1.188,
		RAMRead:     0.124,
		RAMSetupDI:  0.461,
		RAMSetupWA:  0.362,
		RAMSetupWE:  0.654,
		SRLClkToQ:   1.472,
		SRLSetupD:   0.173,
		SRLAddrToQ:  0.124,
		PortInDelay: 0.456,
		RouteBase:   0.60,
		RouteFanout: 0.03,
	}
	// CARRY4 arcs in ps, the slowest per pin pair (docs/timing.md).
	ps := map[string]map[string]float64{
		"CYINIT": {"O0": 482, "O1": 598, "O2": 584, "O3": 642, "CO0": 536, "CO1": 494, "CO2": 592, "CO3": 580},
		"CI":     {"O0": 222, "O1": 334, "O2": 239, "O3": 313, "CO0": 271, "CO1": 157, "CO2": 228, "CO3": 114},
		"S0":     {"O0": 223, "O1": 400, "O2": 523, "O3": 582, "CO0": 340, "CO1": 433, "CO2": 512, "CO3": 508},
		"S1":     {"O1": 205, "O2": 558, "O3": 618, "CO1": 469, "CO2": 548, "CO3": 528},
		"S2":     {"O2": 226, "O3": 330, "CO2": 292, "CO3": 378},
		"S3":     {"O3": 227, "CO3": 380},
		"DI0":    {"O1": 407, "O2": 556, "O3": 615, "CO0": 379, "CO1": 465, "CO2": 540, "CO3": 526},
		"DI1":    {"O2": 537, "O3": 596, "CO1": 445, "CO2": 520, "CO3": 507},
		"DI2":    {"O3": 438, "CO2": 356, "CO3": 398},
		"DI3":    {"CO3": 385},
	}
	d.Carry4 = map[string]map[string]float64{}
	for in, outs := range ps {
		d.Carry4[in] = map[string]float64{}
		for out, v := range outs {
			d.Carry4[in][out] = v / 1000
		}
	}
	return d
}
