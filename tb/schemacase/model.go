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

// OpenModel opens the Verilated model in lib, clocked by top+"clk_i", and
// binds ports, each named under top (the module's hierarchical name and a
// dot); width is the model's Width parameter. The Sim
// belongs to the calling goroutine's OS thread (see vpi.Open); Close it
// there.
func OpenModel(lib, top string, width int, ports []Port) (Sim, error) {
	if _, err := os.Stat(lib); err != nil { // through os, so that go test's cache sees a rebuilt model
		return Sim{}, err
	}
	sim, err := vpi.Open(lib, vpi.Options{Clock: top + "clk_i"})
	if err != nil {
		return Sim{}, err
	}
	for _, b := range ports {
		get := sim.Output
		if b.In {
			get = sim.Input
		}
		p, err := get(top + b.Name)
		if err == nil && p.Width() != b.Bits {
			err = fmt.Errorf("port %s is %d bits, want %d (Width %d)", b.Name, p.Width(), b.Bits, width)
		}
		if err != nil {
			sim.Close()
			return Sim{}, err
		}
		*b.P = p
	}
	return Sim{sim, width}, nil
}

// In is the module's input name, of bits bits, to bind into p.
func In(name string, bits int, p **vpi.Port) Port {
	return Port{In: true, Name: name, Bits: bits, P: p}
}

// Out is the module's output name, of bits bits, to bind into p.
func Out(name string, bits int, p **vpi.Port) Port { return Port{Name: name, Bits: bits, P: p} }

// Sim is a model OpenModel opened: what the modules' Models share.
type Sim struct {
	sim   *vpi.Sim
	width int
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

// ResetWith sets the idle inputs to 0 and holds rst (rst_ni) low for two
// cycles, then high for one.
func (s Sim) ResetWith(rst *vpi.Port, idle ...*vpi.Port) error {
	for _, p := range idle {
		p.Set(0)
	}
	rst.Set(0)
	if err := s.sim.Cycle(2); err != nil {
		return err
	}
	rst.Set(1)
	return s.sim.Cycle(1)
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
