// Package activity counts signal toggles per scope from a VCD waveform and
// writes them as SAIF, for the power estimate and for Vivado's read_saif.
package activity

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Scope is one $scope of the dump: a module instance.
type Scope struct {
	Name     string
	Kind     string // module, task, ...
	Children []*Scope
	Vars     []*Var
}

// Var is one $var declaration. Several may share a Signal (aliases).
type Var struct {
	Name   string // reference without the range, e.g. rob_q[0]
	Kind   string // wire, reg, logic, parameter, ...
	Width  int
	MSB    int // of the declared range; Width-1 when none
	LSB    int
	Signal *Signal
}

// Signal is the activity of one VCD identifier code, per bit (bit 0 is the
// least significant).
type Signal struct {
	Width int
	val   []byte   // current value per bit: '0', '1', 'x', 'z'
	since []uint64 // time of each bit's last change
	// T0, T1 and TX are the time each bit spent at 0, 1 and x/z; TC its
	// 0<->1 transitions (x/z transitions are not counted).
	T0, T1, TX []uint64
	TC         []uint64
	changed    bool // has a value at all
}

// Toggles is the sum of TC over the bits.
func (s *Signal) Toggles() uint64 {
	var n uint64
	for _, c := range s.TC {
		n += c
	}
	return n
}

// Dump is a parsed waveform with per-bit activity.
type Dump struct {
	Timescale  string // as declared, e.g. "1ps"
	Start, End uint64 // first and last timestamps
	Root       *Scope // unnamed: holds top-level vars and scopes
	signals    map[string]*Signal
}

// Scope finds a scope by dotted path from the root (e.g.
// "arcalis_top.u_rx_engine"), or nil.
func (d *Dump) Scope(path string) *Scope {
	s := d.Root
	for _, part := range strings.Split(path, ".") {
		var next *Scope
		for _, c := range s.Children {
			if c.Name == part {
				next = c
				break
			}
		}
		if next == nil {
			return nil
		}
		s = next
	}
	return s
}

// Var finds a variable by dotted path (scopes, then the name), or nil.
func (d *Dump) Var(path string) *Var {
	scope, name := d.Root, path
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		scope, name = d.Scope(path[:i]), path[i+1:]
	}
	if scope == nil {
		return nil
	}
	for _, v := range scope.Vars {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// RisingEdges counts the 0->1 transitions of a 1-bit signal (a clock).
func (d *Dump) RisingEdges(path string) (uint64, error) {
	v := d.Var(path)
	if v == nil {
		return 0, fmt.Errorf("no signal %s in the waveform", path)
	}
	if v.Width != 1 {
		return 0, fmt.Errorf("clock %s is %d bits wide", path, v.Width)
	}
	// Transitions alternate; 0->1 are half of them, rounded by the end value.
	tc := v.Signal.TC[0]
	if v.Signal.val[0] == '1' {
		return (tc + 1) / 2, nil
	}
	return tc / 2, nil
}

// Own is the activity of the scope's own variables (not its sub-scopes):
// the number of bits and their toggles. Parameters are left out: they are
// constants.
func (s *Scope) Own() (bits int, toggles uint64) {
	for _, v := range s.Vars {
		if v.Kind == "parameter" {
			continue
		}
		bits += v.Width
		toggles += v.Signal.Toggles()
	}
	return bits, toggles
}

// ReadFile parses a VCD file.
func ReadFile(path string) (*Dump, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Read parses a VCD stream. Errors name the stream and the line.
func Read(r io.Reader, name string) (*Dump, error) {
	d := &Dump{Root: &Scope{Kind: "root"}, signals: map[string]*Signal{}}
	br := bufio.NewReaderSize(r, 1<<20)
	line := 0
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	stack := []*Scope{d.Root}
	inHeader, haveTime := true, false
	var now uint64
	// Header keywords may span lines: collect tokens until $end.
	var pending []string
	for {
		raw, err := br.ReadString('\n')
		if raw == "" && err != nil {
			if err == io.EOF {
				break
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line++
		text := strings.TrimSpace(raw)
		if text == "" {
			continue
		}
		if inHeader {
			pending = append(pending, strings.Fields(text)...)
			if pending[len(pending)-1] != "$end" {
				continue
			}
			cmd := pending
			pending = nil
			switch cmd[0] {
			case "$scope":
				if len(cmd) != 4 {
					return nil, bad("$scope wants a kind and a name: %q", strings.Join(cmd, " "))
				}
				s := &Scope{Kind: cmd[1], Name: cmd[2]}
				top := stack[len(stack)-1]
				top.Children = append(top.Children, s)
				stack = append(stack, s)
			case "$upscope":
				if len(stack) == 1 {
					return nil, bad("$upscope without a $scope")
				}
				stack = stack[:len(stack)-1]
			case "$var":
				v, id, err := parseVar(cmd)
				if err != nil {
					return nil, bad("%v", err)
				}
				sig, ok := d.signals[id]
				if !ok {
					sig = newSignal(v.Width)
					d.signals[id] = sig
				} else if sig.Width != v.Width {
					return nil, bad("identifier %s declared with widths %d and %d", id, sig.Width, v.Width)
				}
				v.Signal = sig
				top := stack[len(stack)-1]
				top.Vars = append(top.Vars, v)
			case "$timescale":
				d.Timescale = strings.Join(cmd[1:len(cmd)-1], "")
			case "$enddefinitions":
				if len(stack) != 1 {
					return nil, bad("$enddefinitions inside scope %s", stack[len(stack)-1].Name)
				}
				inHeader = false
			case "$date", "$version", "$comment":
			default:
				return nil, bad("unknown header keyword %s", cmd[0])
			}
			continue
		}
		switch c := text[0]; {
		case c == '#':
			t, err := strconv.ParseUint(text[1:], 10, 64)
			if err != nil {
				return nil, bad("bad timestamp %q", text)
			}
			if haveTime && t < now {
				return nil, bad("time goes back from %d to %d", now, t)
			}
			if !haveTime {
				d.Start, haveTime = t, true
				for _, s := range d.signals {
					for i := range s.since {
						s.since[i] = t
					}
				}
			}
			now = t
		case c == '$':
			// $dumpvars, $dumpall, $dumpon/off, $end: values follow as usual.
			if strings.HasPrefix(text, "$comment") && !strings.Contains(text, "$end") {
				return nil, bad("multi-line $comment in the value section is not supported")
			}
		case c == '0' || c == '1' || c == 'x' || c == 'X' || c == 'z' || c == 'Z':
			if err := d.change(text[1:], text[:1], now, haveTime); err != nil {
				return nil, bad("%v", err)
			}
		case c == 'b' || c == 'B':
			val, id, ok := strings.Cut(text[1:], " ")
			if !ok {
				return nil, bad("vector change %q has no identifier", text)
			}
			if err := d.change(strings.TrimSpace(id), val, now, haveTime); err != nil {
				return nil, bad("%v", err)
			}
		case c == 'r' || c == 'R':
			// Real values: no bits to toggle.
		default:
			return nil, bad("unexpected %q", text)
		}
	}
	if inHeader {
		return nil, fmt.Errorf("%s: ends before $enddefinitions", name)
	}
	d.End = now
	for _, s := range d.signals {
		for i := range s.val {
			s.account(i, now)
		}
	}
	return d, nil
}

func parseVar(cmd []string) (*Var, string, error) {
	// $var KIND WIDTH ID NAME [RANGE] $end
	if len(cmd) < 6 || len(cmd) > 7 {
		return nil, "", fmt.Errorf("$var wants kind, width, identifier and name: %q", strings.Join(cmd, " "))
	}
	w, err := strconv.Atoi(cmd[2])
	if err != nil || w <= 0 {
		return nil, "", fmt.Errorf("$var %s: bad width %q", cmd[4], cmd[2])
	}
	v := &Var{Kind: cmd[1], Width: w, Name: cmd[4], MSB: w - 1}
	if len(cmd) == 7 {
		rng := strings.Trim(cmd[5], "[]")
		hi, lo, ok := strings.Cut(rng, ":")
		if !ok {
			lo = hi
		}
		msb, err1 := strconv.Atoi(hi)
		lsb, err2 := strconv.Atoi(lo)
		if err1 != nil || err2 != nil {
			return nil, "", fmt.Errorf("$var %s: bad range %s", cmd[4], cmd[5])
		}
		v.MSB, v.LSB = msb, lsb
	}
	return v, cmd[3], nil
}

func newSignal(w int) *Signal {
	s := &Signal{Width: w, val: make([]byte, w), since: make([]uint64, w),
		T0: make([]uint64, w), T1: make([]uint64, w), TX: make([]uint64, w), TC: make([]uint64, w)}
	for i := range s.val {
		s.val[i] = 'x'
	}
	return s
}

// account adds the time since bit i's last change to its current state.
func (s *Signal) account(i int, now uint64) {
	dt := now - s.since[i]
	switch s.val[i] {
	case '0':
		s.T0[i] += dt
	case '1':
		s.T1[i] += dt
	default:
		s.TX[i] += dt
	}
	s.since[i] = now
}

// change applies value v (MSB first, possibly shorter than the signal, as VCD
// allows) to the signal with identifier id at time now.
func (d *Dump) change(id, v string, now uint64, haveTime bool) error {
	s, ok := d.signals[id]
	if !ok {
		return fmt.Errorf("value for undeclared identifier %q", id)
	}
	if !haveTime {
		return fmt.Errorf("value for %q before the first timestamp", id)
	}
	if len(v) > s.Width {
		return fmt.Errorf("value of %d bits for a %d-bit signal %q", len(v), s.Width, id)
	}
	// Left-extend: with 0 for a leading 1 or 0, else with the leading x/z.
	pad := byte('0')
	if len(v) > 0 && (v[0] == 'x' || v[0] == 'X' || v[0] == 'z' || v[0] == 'Z') {
		pad = lower(v[0])
	}
	for i := 0; i < s.Width; i++ { // i: bit number, from the LSB
		nb := pad
		if i < len(v) {
			nb = lower(v[len(v)-1-i])
		}
		if nb != '0' && nb != '1' && nb != 'x' && nb != 'z' {
			return fmt.Errorf("bad bit %q in value of %q", nb, id)
		}
		old := s.val[i]
		if old == nb {
			continue
		}
		s.account(i, now)
		if (old == '0' && nb == '1') || (old == '1' && nb == '0') {
			s.TC[i]++
		}
		s.val[i] = nb
	}
	s.changed = true
	return nil
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
