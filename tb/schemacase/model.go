package schemacase

import (
	"fmt"
	"os"

	"arcalis/vpi"
)

// Port is one of a model's ports to bind: an input (In) or output of the
// module, its name without the module's prefix, its width in bits, and
// where to put it.
type Port struct {
	In   bool
	Name string
	Bits int
	P    **vpi.Port
}

// Open opens the Verilated model in lib, clocked by the port clock (a
// hierarchical name), with no port bound yet: each view of the model
// binds its own with Bind (or BindUnit). width is the model's Width
// parameter. The Sim belongs to the calling goroutine's OS thread (see
// vpi.Open); Close it there.
func Open(lib, clock string, width int) (Sim, error) {
	if _, err := os.Stat(lib); err != nil { // through os, so that go test's cache sees a rebuilt model
		return Sim{}, err
	}
	sim, err := vpi.Open(lib, vpi.Options{Clock: clock})
	if err != nil {
		return Sim{}, err
	}
	return Sim{sim, width, &[]*vpi.Port{}}, nil
}

// Bind binds ports, each named prefix+its name, on s; the inputs join
// those ResetAll sets idle. An error names the port.
func (s Sim) Bind(prefix string, ports []Port) error {
	for _, b := range ports {
		get := s.sim.Output
		if b.In {
			get = s.sim.Input
		}
		p, err := get(prefix + b.Name)
		if err == nil && p.Width() != b.Bits {
			err = fmt.Errorf("port %s is %d bits, want %d (Width %d)", prefix+b.Name, p.Width(), b.Bits, s.width)
		}
		if err != nil {
			return err
		}
		*b.P = p
		if b.In {
			*s.inputs = append(*s.inputs, p)
		}
	}
	return nil
}

// BindUnit binds a unit's ports on s: rst (its rst_ni) under top, the
// others under top+prefix (a unit of a model that holds several; "" for a
// model of one unit).
func (s Sim) BindUnit(top, prefix string, rst **vpi.Port, ports []Port) error {
	if err := s.Bind(top, []Port{In("rst_ni", 1, rst)}); err != nil {
		return err
	}
	return s.Bind(top+prefix, ports)
}

// In is the module's input name, of bits bits, to bind into p.
func In(name string, bits int, p **vpi.Port) Port {
	return Port{In: true, Name: name, Bits: bits, P: p}
}

// Out is the module's output name, of bits bits, to bind into p.
func Out(name string, bits int, p **vpi.Port) Port { return Port{Name: name, Bits: bits, P: p} }

// Sim is a model Open opened: what the modules' Models
// share, one or more views (each with its own ports) on one model.
type Sim struct {
	sim    *vpi.Sim
	width  int
	inputs *[]*vpi.Port // every input Bind bound, by any view
}

// Close frees the model.
func (s Sim) Close() error { return s.sim.Close() }

// Width is the model's Width parameter.
func (s Sim) Width() int { return s.width }

// TraceOn starts an FST trace into path.
func (s Sim) TraceOn(path string) error { return s.sim.TraceOn(path) }

// TraceOff closes the trace.
func (s Sim) TraceOff() error { return s.sim.TraceOff() }

// Step runs one cycle.
func (s Sim) Step() error { return s.sim.Cycle(1) }

// ResetAll sets every input bound on the Sim to 0, whichever view bound
// it, and holds rst (rst_ni) low for two cycles, then high for one: a
// reset of the model leaves every unit in it idle.
func (s Sim) ResetAll(rst *vpi.Port) error {
	Idle(*s.inputs...) // rst too: views sharing rst_ni bind it each, one signal
	rst.Set(0)
	if err := s.sim.Cycle(2); err != nil {
		return err
	}
	rst.Set(1)
	return s.sim.Cycle(1)
}

// Idle sets the inputs ps to 0, a unit's idle inputs.
func Idle(ps ...*vpi.Port) {
	for _, p := range ps {
		p.Set(0)
	}
}

// B2U is b as a port's value.
func B2U(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// DUT is a module as its harness drives it, with inputs I and outputs O:
// the Verilated model, or a stand-in for the harness's own tests.
type DUT[I, O any] interface {
	Width() int
	// Reset holds rst_ni low for a few cycles with every input idle.
	Reset() error
	// Cycle applies in for one cycle and returns what the rising edge saw.
	Cycle(in *I) (*O, error)
	TraceOn(path string) error
	TraceOff() error
}
