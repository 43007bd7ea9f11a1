package timing

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
)

// The subset of Yosys's write_json format the analysis reads.
type jsonNetlist struct {
	Creator string                `json:"creator"`
	Modules map[string]jsonModule `json:"modules"`
}

type jsonModule struct {
	Attributes map[string]any      `json:"attributes"`
	Ports      map[string]jsonPort `json:"ports"`
	Cells      map[string]jsonCell `json:"cells"`
	Netnames   map[string]jsonNet  `json:"netnames"`
}

type jsonPort struct {
	Direction string `json:"direction"`
	Bits      []any  `json:"bits"`
}

type jsonCell struct {
	Type           string            `json:"type"`
	PortDirections map[string]string `json:"port_directions"`
	Connections    map[string][]any  `json:"connections"`
}

type jsonNet struct {
	HideName int   `json:"hide_name"`
	Bits     []any `json:"bits"`
}

// Net is one bit of the flattened design. Constants are not nets.
type Net struct {
	Name    string // hierarchical name of the bit, e.g. u_load_queue/count_q[2]
	Driver  *Pin   // nil for a top-level input or an undriven bit
	Loads   []*Pin
	InPort  bool   // driven by a top-level input port
	OutPort bool   // read by a top-level output port
	Port    string // the top-level port bit, for a port net
}

// Pin is one bit of a cell port.
type Pin struct {
	Cell  *Cell
	Port  string // port name with its bit, e.g. I0, S2, DIA1
	Net   int    // index into Design.Nets
	Input bool
}

// Cell is a primitive of the flattened design.
type Cell struct {
	Type   string
	Path   string // hierarchical instance path, e.g. u_rx_engine/u_parser/$abc$123$lut
	Block  string // top-level instance it sits in, or "(top)"
	Inputs []*Pin
	Output []*Pin
}

// Design is the flattened netlist.
type Design struct {
	File    string
	Top     string
	Creator string // the Yosys version line write_json records
	Nets    []*Net
	Cells   []*Cell
	Inputs  []int // nets of top-level input bits
	Outputs []int // nets of top-level output bits
}

// constant bits ("0", "1", "x", "z") are strings in write_json.
func bitID(b any) (int, bool) {
	f, ok := b.(float64)
	return int(f), ok
}

// Load reads a Yosys write_json netlist and flattens it below top (the
// module with the "top" attribute when top is empty).
func Load(file, top string) (*Design, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var nl jsonNetlist
	if err := json.Unmarshal(raw, &nl); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return flatten(file, &nl, top)
}

func flatten(file string, nl *jsonNetlist, top string) (*Design, error) {
	if top == "" {
		for name, m := range nl.Modules {
			if v, ok := m.Attributes["top"]; ok && v != "00000000000000000000000000000000" && v != float64(0) {
				top = name
			}
		}
		if top == "" {
			return nil, fmt.Errorf("%s: no module has the top attribute (name one with --top)", file)
		}
	}
	tm, ok := nl.Modules[top]
	if !ok {
		return nil, fmt.Errorf("%s: no module %q", file, top)
	}
	d := &Design{File: file, Top: top, Creator: nl.Creator}
	newNet := func(name string) int {
		d.Nets = append(d.Nets, &Net{Name: name})
		return len(d.Nets) - 1
	}
	// Top-level ports: each bit its own net.
	topMap := map[int]int{}
	portNames := slices.Sorted(maps.Keys(tm.Ports))
	for _, pn := range portNames {
		p := tm.Ports[pn]
		for i, b := range p.Bits {
			id, ok := bitID(b)
			if !ok {
				continue
			}
			g, seen := topMap[id]
			if !seen {
				g = newNet("")
				topMap[id] = g
			}
			if d.Nets[g].Port == "" {
				d.Nets[g].Port = bitName(pn, i, len(p.Bits))
			}
			switch p.Direction {
			case "input":
				d.Nets[g].InPort = true
				d.Inputs = append(d.Inputs, g)
			case "output":
				d.Nets[g].OutPort = true
				d.Outputs = append(d.Outputs, g)
			default:
				return nil, fmt.Errorf("%s: module %s port %s: direction %q is not supported", file, top, pn, p.Direction)
			}
		}
	}
	// Every name a bit has in the hierarchy; the one in the module that
	// drives it is the most telling (a register's own name, not the port
	// it reaches upward).
	cands := map[int][]nameCand{}
	var walk func(modName, path, block string, bits map[int]int, depth int) error
	walk = func(modName, path, block string, bits map[int]int, depth int) error {
		if depth > 64 {
			return fmt.Errorf("%s: module %s at %s: hierarchy deeper than 64 (recursive instantiation?)", file, modName, path)
		}
		m := nl.Modules[modName]
		prefix := ""
		if path != "" {
			prefix = path + "/"
		}
		// Name the module's nets from its netnames, visible names first.
		names := slices.Sorted(maps.Keys(m.Netnames))
		sort.SliceStable(names, func(i, j int) bool { return m.Netnames[names[i]].HideName < m.Netnames[names[j]].HideName })
		net := func(b any) (int, bool) {
			id, ok := bitID(b)
			if !ok {
				return 0, false
			}
			if g, ok := bits[id]; ok {
				return g, true
			}
			g := newNet("")
			bits[id] = g
			return g, true
		}
		for _, nn := range names {
			n := m.Netnames[nn]
			for i, b := range n.Bits {
				if g, ok := net(b); ok {
					_, isPort := m.Ports[nn]
					cands[g] = append(cands[g], nameCand{prefix, prefix + bitName(nn, i, len(n.Bits)), n.HideName != 0, isPort})
				}
			}
		}
		for _, cn := range slices.Sorted(maps.Keys(m.Cells)) {
			c := m.Cells[cn]
			if sub, isMod := nl.Modules[c.Type]; isMod && !isBox(sub) {
				subBits := map[int]int{}
				for pn, conn := range c.Connections {
					sp, ok := sub.Ports[pn]
					if !ok {
						return fmt.Errorf("%s: cell %s%s: module %s has no port %s", file, prefix, cn, c.Type, pn)
					}
					if len(sp.Bits) != len(conn) {
						return fmt.Errorf("%s: cell %s%s: port %s has %d bits, module %s declares %d", file, prefix, cn, pn, len(conn), c.Type, len(sp.Bits))
					}
					for i, b := range conn {
						sid, ok := bitID(sp.Bits[i])
						if !ok {
							continue
						}
						if g, ok := net(b); ok {
							subBits[sid] = g
						} else {
							// A constant on a sub-module port: a fresh undriven net.
							subBits[sid] = newNet("")
						}
					}
				}
				b := block
				if b == "" {
					b = cn
				}
				if err := walk(c.Type, prefix+cn, b, subBits, depth+1); err != nil {
					return err
				}
				continue
			}
			cell := &Cell{Type: c.Type, Path: prefix + cn, Block: block}
			if cell.Block == "" {
				cell.Block = "(top)"
			}
			for _, pn := range slices.Sorted(maps.Keys(c.Connections)) {
				conn := c.Connections[pn]
				dir, ok := c.PortDirections[pn]
				if !ok {
					return fmt.Errorf("%s: cell %s (%s): port %s has no direction", file, cell.Path, c.Type, pn)
				}
				for i, b := range conn {
					g, ok := net(b)
					if !ok {
						continue
					}
					p := &Pin{Cell: cell, Port: pinName(pn, i, len(conn)), Net: g, Input: dir == "input"}
					switch dir {
					case "input":
						cell.Inputs = append(cell.Inputs, p)
						d.Nets[g].Loads = append(d.Nets[g].Loads, p)
					case "output":
						if old := d.Nets[g].Driver; old != nil {
							return fmt.Errorf("%s: net %s: driven by both %s and %s", file, d.Nets[g].Name, old.Cell.Path, cell.Path)
						}
						cell.Output = append(cell.Output, p)
						d.Nets[g].Driver = p
					default:
						return fmt.Errorf("%s: cell %s (%s): port %s direction %q is not supported", file, cell.Path, c.Type, pn, dir)
					}
				}
			}
			d.Cells = append(d.Cells, cell)
		}
		return nil
	}
	if err := walk(top, "", "", topMap, 0); err != nil {
		return nil, err
	}
	for g, cs := range cands {
		n := d.Nets[g]
		if n.InPort { // an input keeps its port name
			n.Name = n.Port
			continue
		}
		drvPrefix := ""
		if n.Driver != nil {
			if i := strings.LastIndex(n.Driver.Cell.Path, "/"); i >= 0 {
				drvPrefix = n.Driver.Cell.Path[:i+1]
			}
		}
		best := -1
		for i, c := range cs {
			if best < 0 || better(c, cs[best], drvPrefix) {
				best = i
			}
		}
		n.Name = cs[best].name
	}
	for i, n := range d.Nets {
		if n.Name == "" {
			n.Name = n.Port
		}
		if n.Name == "" {
			n.Name = fmt.Sprintf("$net%d", i)
		}
		if n.InPort && n.Driver != nil {
			return nil, fmt.Errorf("%s: net %s: a top-level input is also driven by %s", file, n.Name, n.Driver.Cell.Path)
		}
	}
	return d, nil
}

type nameCand struct {
	prefix, name string
	hidden, port bool
}

// better prefers a visible name, then one in the driver's module, then one
// that is not a port of that module (a register's own name), then the
// shorter.
func better(a, b nameCand, drvPrefix string) bool {
	if a.hidden != b.hidden {
		return !a.hidden
	}
	if (a.prefix == drvPrefix) != (b.prefix == drvPrefix) {
		return a.prefix == drvPrefix
	}
	if a.port != b.port {
		return !a.port
	}
	return len(a.name) < len(b.name)
}

// isBox reports whether a module is a primitive's model (write_json
// includes the cell library, marked blackbox or whitebox), not hierarchy.
func isBox(m jsonModule) bool {
	for _, a := range []string{"blackbox", "whitebox", "lib_whitebox"} {
		if v, ok := m.Attributes[a]; ok && v != "0" && v != "00000000000000000000000000000000" {
			return true
		}
	}
	return false
}

// bitName is name[i] for a multi-bit signal, name for a single bit.
func bitName(name string, i, width int) string {
	name = strings.TrimPrefix(name, "\\")
	if width == 1 {
		return name
	}
	return fmt.Sprintf("%s[%d]", name, i)
}

// pinName is the port name with its bit index appended when the port is
// wider than one bit (S2, DIA1), as the delay tables name pins.
func pinName(port string, i, width int) string {
	if width == 1 {
		return port
	}
	return fmt.Sprintf("%s%d", port, i)
}
