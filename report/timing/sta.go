package timing

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
)

// Path kinds, by what launches and what captures.
const (
	RegToReg = "reg->reg"
	InToReg  = "in->reg"
	RegToOut = "reg->out"
	InToOut  = "in->out"
)

// Step is one cell of a path and the net it drives.
type Step struct {
	Cell  string  `json:"cell"` // hierarchical instance path, or the port
	Type  string  `json:"type"`
	Arc   string  `json:"arc"` // input pin -> output pin, "clk->Q" for a launch
	Delay float64 `json:"delay_ns"`
	Net   string  `json:"net"`
	Route float64 `json:"route_ns"` // route of Net to the next step's pin
}

// Path is the longest path into one endpoint.
type Path struct {
	Kind       string  `json:"kind"`
	Start      string  `json:"start"`
	End        string  `json:"end"`
	StartBlock string  `json:"start_block"`
	EndBlock   string  `json:"end_block"`
	LUTs       int     `json:"luts"`
	MUXFs      int     `json:"muxfs"`
	Carry4s    int     `json:"carry4s"`
	LogicNS    float64 `json:"logic_ns"` // cells, clock-to-out and setup
	RouteNS    float64 `json:"route_ns"`
	TotalNS    float64 `json:"total_ns"`
	Steps      []Step  `json:"steps"`
	// From lists every input port (bus names) reaching the end through
	// logic alone; only for input-to-output paths.
	From []string `json:"from,omitempty"`
}

// Levels is the LUT/MUXF/CARRY4 count as the reports print it.
func (p *Path) Levels() string {
	return fmt.Sprintf("%d LUT + %d MUXF + %d CARRY4", p.LUTs, p.MUXFs, p.Carry4s)
}

type cellKind int

const (
	kComb  cellKind = iota // arcs only
	kSeq                   // flip-flop: launches, captures, no arcs
	kMixed                 // distributed RAM, SRL: launches, captures and arcs
	kConst                 // GND, VCC
)

type arc struct {
	in, out *Pin
	delay   float64
}

type cellModel struct {
	kind    cellKind
	arcs    []arc
	launch  map[*Pin]float64 // output pin -> clock-to-out
	capture map[*Pin]float64 // input pin -> setup
}

// launch kinds index the arrival arrays.
const (
	fromReg = 0
	fromIn  = 1
)

// Analysis is the timing graph of a design under a delay model.
type Analysis struct {
	D      *Design
	M      *Delays
	models map[*Cell]*cellModel
	arr    [2][]float64
	pred   [2][]*Pin // input pin whose arc gave the net its arrival; nil at a launch
	fanout []int
}

var negInf = math.Inf(-1)

// Analyze builds the timing graph and propagates arrival times. A
// combinational loop, or a primitive the model does not know, is an error.
func Analyze(d *Design, m *Delays) (*Analysis, error) {
	a := &Analysis{D: d, M: m, models: map[*Cell]*cellModel{}}
	for _, c := range d.Cells {
		cm, err := modelCell(c, m)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.File, err)
		}
		a.models[c] = cm
	}
	a.fanout = make([]int, len(d.Nets))
	for i, n := range d.Nets {
		a.fanout[i] = len(n.Loads)
		if n.OutPort {
			a.fanout[i]++
		}
	}
	for k := range a.arr {
		a.arr[k] = make([]float64, len(d.Nets))
		a.pred[k] = make([]*Pin, len(d.Nets))
		for i := range a.arr[k] {
			a.arr[k][i] = negInf
		}
	}
	for _, n := range d.Inputs {
		a.arr[fromIn][n] = m.PortInDelay
	}
	// Kahn's order over cells with arcs: a cell waits for every arc input
	// whose net is driven by another cell with arcs.
	waiting := map[*Cell]int{}
	hasArcs := func(c *Cell) bool { k := a.models[c].kind; return k == kComb || k == kMixed }
	arcIn := map[*Pin]bool{}
	for _, c := range d.Cells {
		cm := a.models[c]
		for _, ar := range cm.arcs {
			arcIn[ar.in] = true
		}
		for p, t := range cm.launch {
			a.arr[fromReg][p.Net] = math.Max(a.arr[fromReg][p.Net], t)
		}
	}
	var ready []*Cell
	for _, c := range d.Cells {
		if !hasArcs(c) {
			continue
		}
		n := 0
		for _, p := range c.Inputs {
			if arcIn[p] {
				if drv := d.Nets[p.Net].Driver; drv != nil && hasArcs(drv.Cell) {
					n++
				}
			}
		}
		waiting[c] = n
		if n == 0 {
			ready = append(ready, c)
		}
	}
	done := 0
	for len(ready) > 0 {
		c := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		done++
		cm := a.models[c]
		for _, ar := range cm.arcs {
			for k := range a.arr {
				t := a.pinArrival(k, ar.in)
				if t == negInf {
					continue
				}
				if t += ar.delay; t > a.arr[k][ar.out.Net] {
					a.arr[k][ar.out.Net] = t
					a.pred[k][ar.out.Net] = ar.in
				}
			}
		}
		for _, o := range c.Output {
			for _, l := range d.Nets[o.Net].Loads {
				if arcIn[l] && hasArcs(l.Cell) {
					if waiting[l.Cell]--; waiting[l.Cell] == 0 {
						ready = append(ready, l.Cell)
					}
				}
			}
		}
	}
	if done < len(waiting) {
		return nil, a.loopError(waiting)
	}
	return a, nil
}

// loopError names the cells left waiting: each is on, or behind, a loop.
func (a *Analysis) loopError(waiting map[*Cell]int) error {
	var left []string
	for c, n := range waiting {
		if n > 0 {
			left = append(left, c.Path+" ("+c.Type+")")
		}
	}
	sort.Strings(left)
	n, more := len(left), ""
	if n > 10 {
		more = fmt.Sprintf(" and %d more", n-10)
		left = left[:10]
	}
	return fmt.Errorf("%s: combinational loop: %d cells on or behind a loop: %s%s", a.D.File, n, strings.Join(left, ", "), more)
}

// pinArrival is when the net's value reaches pin p: the driver's arrival
// plus the route to p.
func (a *Analysis) pinArrival(k int, p *Pin) float64 {
	t := a.arr[k][p.Net]
	if t == negInf {
		return t
	}
	return t + a.route(p.Net, p)
}

// route is the modelled delay of net n to load p (nil: the output port).
func (a *Analysis) route(n int, p *Pin) float64 {
	if p != nil && dedicated(a.D.Nets[n], p, a.fanout[n]) {
		return 0
	}
	return a.M.Route(a.fanout[n])
}

// dedicated reports whether the net reaches p on a wire inside the slice or
// the carry chain, which Vivado reports with no route delay.
func dedicated(n *Net, p *Pin, fanout int) bool {
	if n.Driver == nil {
		return false
	}
	dt, lt := n.Driver.Cell.Type, p.Cell.Type
	switch {
	case dt == "CARRY4" && lt == "CARRY4" && p.Port == "CI":
		return true
	case isLUT(dt) && lt == "MUXF7" && (p.Port == "I0" || p.Port == "I1"):
		return true
	case dt == "MUXF7" && lt == "MUXF8" && (p.Port == "I0" || p.Port == "I1"):
		return true
	// An INV is a LUT1 to Vivado (Yosys leaves it a cell of its own).
	case (isLUT(dt) || dt == "INV") && lt == "CARRY4" && fanout == 1 && (strings.HasPrefix(p.Port, "S") || strings.HasPrefix(p.Port, "DI")):
		return true
	}
	return false
}

func isLUT(t string) bool {
	return len(t) == 4 && strings.HasPrefix(t, "LUT") && t[3] >= '1' && t[3] <= '6'
}

// modelCell gives a primitive its arcs, launches and captures.
func modelCell(c *Cell, m *Delays) (*cellModel, error) {
	cm := &cellModel{launch: map[*Pin]float64{}, capture: map[*Pin]float64{}}
	out := func(name string) *Pin {
		for _, p := range c.Output {
			if p.Port == name {
				return p
			}
		}
		return nil
	}
	allTo := func(d float64, filter func(string) bool) {
		for _, i := range c.Inputs {
			if !filter(i.Port) {
				continue
			}
			for _, o := range c.Output {
				cm.arcs = append(cm.arcs, arc{i, o, d})
			}
		}
	}
	all := func(string) bool { return true }
	t := c.Type
	switch {
	case isLUT(t) || t == "INV":
		allTo(m.LUT, all)
	case t == "MUXF7" || t == "MUXF8":
		data, sel := m.MUXF7Data, m.MUXF7Sel
		if t == "MUXF8" {
			data, sel = m.MUXF8Data, m.MUXF8Sel
		}
		allTo(data, func(p string) bool { return p == "I0" || p == "I1" })
		allTo(sel, func(p string) bool { return p == "S" })
	case t == "CARRY4":
		for _, i := range c.Inputs {
			row, ok := m.Carry4[i.Port]
			if !ok {
				return nil, fmt.Errorf("cell %s (CARRY4): pin %s is not in the CARRY4 table", c.Path, i.Port)
			}
			for _, o := range c.Output {
				if d, ok := row[o.Port]; ok {
					cm.arcs = append(cm.arcs, arc{i, o, d})
				}
			}
		}
	case t == "BUFG" || t == "IBUF" || t == "OBUF" || t == "BUFGCTRL":
		allTo(0, all)
	case t == "GND" || t == "VCC":
		cm.kind = kConst
	case strings.HasPrefix(t, "FD") || t == "LDCE" || t == "LDPE":
		cm.kind = kSeq
		for _, o := range c.Output {
			cm.launch[o] = m.FFClkToQ
		}
		for _, i := range c.Inputs {
			switch i.Port {
			case "C", "G":
			case "D":
				cm.capture[i] = m.FFSetupD
			case "CE", "GE":
				cm.capture[i] = m.FFSetupCE
			case "R", "S", "CLR", "PRE":
				cm.capture[i] = m.FFSetupSR
			default:
				return nil, fmt.Errorf("cell %s (%s): pin %s is not in the flip-flop model", c.Path, t, i.Port)
			}
		}
		if out("Q") == nil {
			return nil, fmt.Errorf("cell %s (%s): no Q output", c.Path, t)
		}
	case t == "SRL16E" || t == "SRLC32E" || t == "SRLC16E":
		cm.kind = kMixed
		for _, o := range c.Output {
			cm.launch[o] = m.SRLClkToQ
		}
		for _, i := range c.Inputs {
			switch {
			case i.Port == "CLK":
			case i.Port == "D":
				cm.capture[i] = m.SRLSetupD
			case i.Port == "CE":
				cm.capture[i] = m.FFSetupCE
			case strings.HasPrefix(i.Port, "A"):
				if q := out("Q"); q != nil {
					cm.arcs = append(cm.arcs, arc{i, q, m.SRLAddrToQ})
				}
			default:
				return nil, fmt.Errorf("cell %s (%s): pin %s is not in the shift-register model", c.Path, t, i.Port)
			}
		}
	case strings.HasPrefix(t, "RAM") && !strings.HasPrefix(t, "RAMB"):
		cm.kind = kMixed
		for _, o := range c.Output {
			cm.launch[o] = m.RAMClkToQ
		}
		wide := strings.HasSuffix(t, "M") // RAM32M, RAM64M: four ports A..D, D writes
		for _, i := range c.Inputs {
			p := i.Port
			switch {
			case p == "WCLK" || p == "CLK":
			case p == "WE":
				cm.capture[i] = m.RAMSetupWE
			case p == "D" || strings.HasPrefix(p, "DI"):
				cm.capture[i] = m.RAMSetupDI
			case wide && strings.HasPrefix(p, "ADDR") && len(p) >= 5:
				letter := p[4:5]
				for _, o := range c.Output {
					if strings.HasPrefix(o.Port, "DO"+letter) {
						cm.arcs = append(cm.arcs, arc{i, o, m.RAMRead})
					}
				}
				if letter == "D" {
					cm.capture[i] = m.RAMSetupWA
				}
			case !wide && strings.HasPrefix(p, "DPRA"):
				if o := out("DPO"); o != nil {
					cm.arcs = append(cm.arcs, arc{i, o, m.RAMRead})
				}
			case !wide && strings.HasPrefix(p, "A"):
				for _, name := range []string{"SPO", "O"} {
					if o := out(name); o != nil {
						cm.arcs = append(cm.arcs, arc{i, o, m.RAMRead})
					}
				}
				cm.capture[i] = m.RAMSetupWA
			default:
				return nil, fmt.Errorf("cell %s (%s): pin %s is not in the distributed-RAM model", c.Path, t, p)
			}
		}
	default:
		return nil, fmt.Errorf("cell %s: primitive %s is not in the timing model (report/timing/sta.go)", c.Path, t)
	}
	return cm, nil
}

// endpoint is a capture pin (setup) or an output port (pin nil).
type endpoint struct {
	net   int
	pin   *Pin
	setup float64
}

func (a *Analysis) endpoints() []endpoint {
	var eps []endpoint
	for _, c := range a.D.Cells {
		cm := a.models[c]
		for p, s := range cm.capture {
			eps = append(eps, endpoint{p.Net, p, s})
		}
	}
	for _, n := range a.D.Outputs {
		eps = append(eps, endpoint{net: n})
	}
	sort.Slice(eps, func(i, j int) bool { return a.endName(eps[i]) < a.endName(eps[j]) })
	return eps
}

// arrivalAt is the data arrival plus setup at the endpoint for launch k.
func (a *Analysis) arrivalAt(k int, e endpoint) float64 {
	t := a.arr[k][e.net]
	if t == negInf {
		return t
	}
	return t + a.route(e.net, e.pin) + e.setup
}

// regName names a sequential cell by the net on its first output, which
// carries the RTL register's name (Yosys's own cell names are generated).
func (a *Analysis) regName(c *Cell) string {
	for _, o := range c.Output {
		if n := a.D.Nets[o.Net].Name; !strings.HasPrefix(n, "$") {
			return n
		}
	}
	return c.Path
}

func (a *Analysis) endName(e endpoint) string {
	if e.pin == nil {
		return a.D.Nets[e.net].Port + " (output)"
	}
	return a.regName(e.pin.Cell) + " (" + e.pin.Cell.Type + "." + e.pin.Port + ")"
}

// path rebuilds the longest path of launch k into e.
func (a *Analysis) path(k int, e endpoint) Path {
	p := Path{TotalNS: a.arrivalAt(k, e), End: a.endName(e), EndBlock: "(top)"}
	if e.pin != nil {
		p.EndBlock = e.pin.Cell.Block
	}
	var steps []Step
	n, load := e.net, e.pin
	for {
		net := a.D.Nets[n]
		r := a.route(n, load)
		in := a.pred[k][n]
		if in == nil {
			// A launch: a register output or a top-level input.
			if net.Driver == nil {
				p.Start, p.StartBlock = net.Port+" (input)", "(top)"
				steps = append(steps, Step{Cell: net.Name, Type: "port", Arc: "in", Delay: a.arr[k][n], Net: net.Name, Route: r})
			} else {
				c := net.Driver.Cell
				p.Start, p.StartBlock = a.regName(c)+" ("+c.Type+"."+net.Driver.Port+")", c.Block
				steps = append(steps, Step{Cell: c.Path, Type: c.Type, Arc: "clk->" + net.Driver.Port, Delay: a.arr[k][n], Net: net.Name, Route: r})
			}
			break
		}
		c := net.Driver.Cell
		steps = append(steps, Step{Cell: c.Path, Type: c.Type, Arc: in.Port + "->" + net.Driver.Port, Delay: a.arr[k][n] - a.pinArrival(k, in), Net: net.Name, Route: r})
		n, load = in.Net, in
	}
	for i, j := 0, len(steps)-1; i < j; i, j = i+1, j-1 {
		steps[i], steps[j] = steps[j], steps[i]
	}
	p.Steps = steps
	for _, s := range steps {
		p.LogicNS += s.Delay
		p.RouteNS += s.Route
		switch {
		case isLUT(s.Type) || s.Type == "INV":
			p.LUTs++
		case s.Type == "MUXF7" || s.Type == "MUXF8":
			p.MUXFs++
		case s.Type == "CARRY4":
			p.Carry4s++
		}
	}
	p.LogicNS += e.setup
	switch {
	case k == fromReg && e.pin != nil:
		p.Kind = RegToReg
	case k == fromReg:
		p.Kind = RegToOut
	case e.pin != nil:
		p.Kind = InToReg
	default:
		p.Kind = InToOut
	}
	return p
}

// inputsReaching lists the input ports (bus names, sorted) from which net n
// is reached through combinational arcs alone.
func (a *Analysis) inputsReaching(n int) []string {
	arcsTo := map[*Pin][]*Pin{}
	for _, cm := range a.models {
		for _, ar := range cm.arcs {
			arcsTo[ar.out] = append(arcsTo[ar.out], ar.in)
		}
	}
	seen := map[int]bool{n: true}
	ports := map[string]bool{}
	stack := []int{n}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		net := a.D.Nets[x]
		if net.InPort {
			name := net.Port
			if i := strings.IndexByte(name, '['); i > 0 {
				name = name[:i]
			}
			ports[name] = true
		}
		if net.Driver == nil {
			continue
		}
		for _, in := range arcsTo[net.Driver] {
			if !seen[in.Net] {
				seen[in.Net] = true
				stack = append(stack, in.Net)
			}
		}
	}
	return slices.Sorted(maps.Keys(ports))
}
