package schemarx

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"

	"arcalis/golden/schemagold"
	"arcalis/thriftidl/schema"
	"arcalis/vectors"
)

// Message is one message the harness checks, at one capacity.
type Message struct {
	N      int    // its index in the case's list: SCHEMARX_MSG selects it
	Source string // where it came from: vector file and record, or generator, and what was changed
	Msg    []byte
	Cap    int
}

// Seeds of the generators: fixed, so that a message's number names the
// same bytes on every run.
const (
	mutateSeed = 0x5c4e_4d41_7278 // per record: rand.NewPCG(mutateSeed, record index)
	craftSeed  = 0x6372_6166_7421 // per method: rand.NewPCG(craftSeed, method index)
	fullSeed   = 0x6675_6c6c_6172 // per method: rand.NewPCG(fullSeed, method index)
)

// MaxCap is the largest capacity, schemagold.MaxCapacity rounded down to a
// multiple of 64.
const MaxCap = schemagold.MaxCapacity &^ 63

// recordCaps are the capacities every unchanged record is checked at: the
// small ones overflow the area.
var recordCaps = []int{128, 256, 1024, 65536, MaxCap}

// Limits on the mutants of one record.
const (
	allCutsBelow = 40 // args of at most this many bytes are cut at every point
	randomCuts   = 20
	mutants      = 20
)

// argsStart returns where the args struct begins (12 + the name's length)
// or false if msg is too short to say.
func argsStart(msg []byte) (int, bool) {
	if len(msg) < 8 {
		return 0, false
	}
	l := int32(binary.BigEndian.Uint32(msg[4:]))
	if l < 0 || int(l) > len(msg)-12 {
		return 0, false
	}
	return 12 + int(l), true
}

// base is a message the mutants are made from: a vector, or full args
// generated from the table.
type base struct {
	src  string
	seed uint64 // the mutants' PCG seed's second word
	msg  []byte
	rep  bool // also repeat and reverse its fields
}

// Messages lists the messages of a case: each vector, and args of each
// method with every field present generated from the table, at every
// capacity of recordCaps with their truncations and single-byte mutants,
// fields repeated and reordered for some; then messages crafted from the
// table for the limits (depth, element counts, bad types, required fields,
// area overflow at an exact fit). file names the vectors' file. The list
// depends on the service only, not on the width.
func Messages(file string, t *schema.Table, recs []vectors.Record) []Message {
	var bases []base
	for _, r := range recs {
		src := fmt.Sprintf("%s record %d (%s)", file, r.Index, r.Source)
		bases = append(bases, base{src, uint64(r.Index), r.Msg, r.Index%4 == 0})
	}
	for i, msg := range generated(t) {
		what := "every field"
		if i%generatedPerMethod != 0 {
			what = "random fields"
		}
		src := fmt.Sprintf("args of %s with %s (PCG seed %#x,%d)", t.Methods[i/generatedPerMethod].Name, what, fullSeed, i)
		bases = append(bases, base{src, 1<<32 + uint64(i), msg, i%generatedPerMethod == 0})
	}
	var out []Message
	add := func(src string, msg []byte, c int) {
		out = append(out, Message{N: len(out), Source: src, Msg: msg, Cap: c})
	}
	for _, b := range bases {
		start, ok := argsStart(b.msg)
		if !ok || schemagold.Deserialize(t, b.msg, make([]byte, 128)).Method == 0 {
			add(b.src, b.msg, 65536) // header-only: checked by golden's tests, counted here
			continue
		}
		for _, c := range recordCaps {
			add(b.src, b.msg, c)
		}
		rng := rand.New(rand.NewPCG(mutateSeed, b.seed))
		spots, fields := scan(b.msg, start)
		for _, n := range cuts(rng, start, len(b.msg), spots) {
			add(fmt.Sprintf("%s cut to %d bytes", b.src, n), b.msg[:n], mutantCap(rng))
		}
		for i := 0; i < mutants && start < len(b.msg); i++ {
			m, what := mutate(rng, b.msg, start, spots)
			add(fmt.Sprintf("%s with %s (PCG seed %#x,%d)", b.src, what, mutateSeed, b.seed), m, mutantCap(rng))
		}
		if b.rep && len(fields) > 1 {
			add(b.src+" with its fields repeated", rebuild(b.msg, start, fields, true), 65536)
			add(b.src+" with its fields reversed", rebuild(b.msg, start, fields, false), 65536)
		}
	}
	for _, m := range crafted(t) {
		add(m.Source, m.Msg, m.Cap)
	}
	return out
}

// mutantCap is a mutant's capacity: mostly room for any args, sometimes
// little.
func mutantCap(rng *rand.Rand) int {
	if rng.IntN(4) == 0 {
		return []int{128, 256, 1024, 4096}[rng.IntN(4)]
	}
	return 65536
}

// cuts are the lengths a message of n bytes whose args start at start is
// cut to: all of them for short args, else some at random and some just
// before or inside a spot.
func cuts(rng *rand.Rand, start, n int, spots []spot) []int {
	if n-start <= allCutsBelow {
		var all []int
		for k := start; k < n; k++ {
			all = append(all, k)
		}
		return all
	}
	seen := map[int]bool{}
	var out []int
	for len(out) < randomCuts {
		k := start + rng.IntN(n-start)
		if len(spots) > 0 && rng.IntN(2) == 0 {
			s := spots[rng.IntN(len(spots))]
			k = min(n-1, s.off+rng.IntN(4))
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// mutate returns a copy of msg with one change after the header, aimed at a
// spot most of the time, and says what it changed.
func mutate(rng *rand.Rand, msg []byte, start int, spots []spot) ([]byte, string) {
	m := slices.Clone(msg)
	if len(spots) == 0 || rng.IntN(4) == 0 {
		p := start + rng.IntN(len(m)-start)
		v := byte(rng.IntN(256))
		m[p] = v
		return m, fmt.Sprintf("byte %d %#02x -> %#02x", p, msg[p], v)
	}
	s := spots[rng.IntN(len(spots))]
	p := s.off
	switch s.kind {
	case spotType, spotStop:
		v := byte(rng.IntN(17))
		if rng.IntN(8) == 0 {
			v = byte(17 + rng.IntN(239))
		}
		m[p] = v
		return m, fmt.Sprintf("type byte %d %#02x -> %#02x", p, msg[p], v)
	case spotID:
		id := uint16(rng.IntN(8))
		if rng.IntN(4) == 0 {
			id = uint16(rng.Uint32())
		}
		binary.BigEndian.PutUint16(m[p:], id)
		return m, fmt.Sprintf("field id at %d -> %d", p, int16(id))
	}
	old := binary.BigEndian.Uint32(m[p:])
	var v uint32
	switch rng.IntN(6) {
	case 0:
		v = old ^ 0x8000_0000 // negative
	case 1:
		v = old + 1 + uint32(rng.IntN(16)) // past its data
	case 2:
		v = 0
	case 3:
		v = schemagold.MaxElements
	case 4:
		v = schemagold.MaxElements + 1
	default:
		v = old - 1 - uint32(rng.IntN(min(int(old)+1, 16)))
	}
	binary.BigEndian.PutUint32(m[p:], v)
	return m, fmt.Sprintf("length at %d %d -> %d", p, int32(old), int32(v))
}

// rebuild returns msg with its args fields each written twice in a row
// (twice), or in reverse order.
func rebuild(msg []byte, start int, fields []span, twice bool) []byte {
	m := slices.Clone(msg[:start])
	if twice {
		for _, f := range fields {
			m = append(m, msg[f.start:f.end]...)
			m = append(m, msg[f.start:f.end]...)
		}
	} else {
		for _, f := range slices.Backward(fields) {
			m = append(m, msg[f.start:f.end]...)
		}
	}
	return append(m, schema.Stop)
}
