package yosys

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// NetState is the state one module of the synthesized netlist holds.
type NetState struct {
	Module string
	FFs    int // flip-flops and latches
	// FFNames counts flip-flops by the public names of their output net
	// (any [index] suffix removed, sorted, comma-joined; "" for none). A
	// merged duplicate keeps the names of both flops it replaced.
	FFNames map[string]int
	Ports   map[string]Port
	// RAMs are the LUT RAMs by the first dotted part of their cells' names
	// (Yosys names a memory's cells rob_q.0.1 after the RTL's rob_q).
	RAMs map[string]*RAMState
}

// RAMState is one memory as LUT RAM cells: the distinct nets written into
// it (a memory copied per read port writes the same nets into each copy)
// and the depth of its cells.
type RAMState struct {
	DataBits int
	Depth    int
	written  map[string]bool
}

// Held is the bits a memory of elems elements keeps: each distinct data
// bit in min(depth, elems) words. A memory deeper than one cell (banks of
// cells side by side) is not recognised and counts one cell's depth.
func (r *RAMState) Held(elems int) int { return r.DataBits * min(r.Depth, elems) }

// ffTypes are the 7-series flip-flop and latch primitives.
var ffTypes = map[string]bool{"FDRE": true, "FDSE": true, "FDCE": true, "FDPE": true, "FDRE_1": true, "FDSE_1": true, "FDCE_1": true, "FDPE_1": true, "LDCE": true, "LDPE": true}

// ramPorts are the LUT RAM primitives: their data-input ports, each port's
// bits holding depth bits apiece (UG474's distributed RAM table).
var ramPorts = map[string]struct {
	ports []string
	depth int
}{
	"RAM32M": {[]string{"DIA", "DIB", "DIC", "DID"}, 32}, "RAM64M": {[]string{"DIA", "DIB", "DIC", "DID"}, 64},
	"RAM32X1D": {[]string{"D"}, 32}, "RAM64X1D": {[]string{"D"}, 64}, "RAM128X1D": {[]string{"D"}, 128},
	"RAM32X1S": {[]string{"D"}, 32}, "RAM64X1S": {[]string{"D"}, 64}, "RAM128X1S": {[]string{"D"}, 128}, "RAM256X1S": {[]string{"D"}, 256},
}

// srlTypes are the shift-register LUTs; their length is A+1 (A constant).
var srlTypes = map[string]int{"SRL16E": 4, "SRLC32E": 5}

type jsonNetlist struct {
	Modules map[string]struct {
		Ports map[string]struct {
			Direction string            `json:"direction"`
			Bits      []json.RawMessage `json:"bits"`
		} `json:"ports"`
		Cells map[string]struct {
			Type        string                       `json:"type"`
			Connections map[string][]json.RawMessage `json:"connections"`
		} `json:"cells"`
		Netnames map[string]struct {
			HideName int               `json:"hide_name"`
			Bits     []json.RawMessage `json:"bits"`
		} `json:"netnames"`
	} `json:"modules"`
}

// ReadNetlistState reads Yosys's write_json netlist and counts each
// module's state, keyed by Yosys's module name.
func ReadNetlistState(path string) (map[string]*NetState, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseNetlistState(f, path)
}

var reIndex = regexp.MustCompile(`(\[\d+\])+$`)

// baseVar is a net name without a trailing [i] (Yosys names the element
// variables of a memory it turned into flip-flops line_q[0], line_q[1]).
func baseVar(name string) string { return reIndex.ReplaceAllString(strings.TrimPrefix(name, "\\"), "") }

// ParseNetlistState is ReadNetlistState on a reader; name is used in errors.
func ParseNetlistState(r io.Reader, name string) (map[string]*NetState, error) {
	var nl jsonNetlist
	if err := json.NewDecoder(r).Decode(&nl); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out := map[string]*NetState{}
	for mname, m := range nl.Modules {
		s := &NetState{Module: mname, FFNames: map[string]int{}, RAMs: map[string]*RAMState{}, Ports: map[string]Port{}}
		for pn, p := range m.Ports {
			s.Ports[pn] = Port{Dir: p.Direction, Bits: len(p.Bits)}
		}
		names := map[string][]string{} // bit id -> public base names
		for n, nn := range m.Netnames {
			// The fsm pass keeps the old-encoded state register (for its
			// users outside the FSM) under a hidden name: it is that state.
			old, isOld := strings.CutPrefix(n, "$fsm$oldstate\\")
			if nn.HideName != 0 && !isOld {
				continue
			}
			if isOld {
				n = old
			}
			b := baseVar(n)
			for _, bit := range nn.Bits {
				k := string(bit)
				if !contains(names[k], b) {
					names[k] = append(names[k], b)
				}
			}
		}
		cells := slices.Sorted(maps.Keys(m.Cells))
		for _, cn := range cells {
			c := m.Cells[cn]
			bad := func(format string, args ...any) error {
				return fmt.Errorf("%s: module %s, cell %s (%s): %s", name, mname, cn, c.Type, fmt.Sprintf(format, args...))
			}
			owner := baseVar(strings.SplitN(strings.TrimPrefix(cn, "\\"), ".", 2)[0])
			switch {
			case ffTypes[c.Type]:
				q := c.Connections["Q"]
				if len(q) != 1 {
					return nil, bad("Q has %d bits, want 1", len(q))
				}
				s.FFs++
				ns := append([]string(nil), names[string(q[0])]...)
				sort.Strings(ns)
				s.FFNames[strings.Join(ns, ",")]++
			case ramPorts[c.Type].depth > 0:
				rp := ramPorts[c.Type]
				r := s.ram(owner)
				r.Depth = max(r.Depth, rp.depth)
				for _, p := range rp.ports {
					for _, b := range c.Connections[p] {
						if !isConstBit(b) && !r.written[string(b)] {
							r.written[string(b)] = true
							r.DataBits++
						}
					}
				}
			case srlTypes[c.Type] > 0:
				a := c.Connections["A"]
				n, ok := constBits(a)
				if !ok || len(a) != srlTypes[c.Type] {
					return nil, bad("address A is not constant, so its length is unknown")
				}
				// A shift register of n+1 stages holds a word per stage,
				// like a memory of that depth written through D.
				r := s.ram(owner)
				r.Depth = max(r.Depth, n+1)
				if d := c.Connections["D"]; len(d) == 1 && !r.written[string(d[0])] {
					r.written[string(d[0])] = true
					r.DataBits++
				}
			}
		}
		out[mname] = s
	}
	return out, nil
}

func (s *NetState) ram(name string) *RAMState {
	r := s.RAMs[name]
	if r == nil {
		r = &RAMState{written: map[string]bool{}}
		s.RAMs[name] = r
	}
	return r
}

// isConstBit: Yosys writes constant bits as the strings "0", "1", "x", "z".
func isConstBit(b json.RawMessage) bool { return len(b) > 0 && b[0] == '"' }

// constBits is the value of constant bits, LSB first.
func constBits(bits []json.RawMessage) (int, bool) {
	v := 0
	for i, b := range bits {
		s, err := strconv.Unquote(string(b))
		if err != nil || (s != "0" && s != "1") {
			return 0, false
		}
		if s == "1" {
			v |= 1 << i
		}
	}
	return v, true
}
