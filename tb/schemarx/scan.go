package schemarx

import (
	"encoding/binary"

	"arcalis/golden/schemagold"
	"arcalis/thriftidl/schema"
)

// spotKind is what lies at a spot of a message: the items whose change
// makes the walk take another path, which mutations aim at.
type spotKind uint8

const (
	spotType  spotKind = iota // a field's type byte, or a container's element, key or value type
	spotID                    // a field id (2 bytes)
	spotCount                 // a string length or container count (4 bytes, big-endian)
	spotStop                  // a struct's STOP
)

type spot struct {
	off  int
	kind spotKind
}

// span is one field of the args struct: its bytes [start, end).
type span struct{ start, end int }

// scanner walks a struct as thrift.Skip would, with no schema, noting the
// spots and the args struct's field spans. It stops at the first item it
// cannot read; maxSteps bounds its work on long containers.
type scanner struct {
	msg    []byte
	spots  []spot
	fields []span
	steps  int
}

const maxSteps = 4096

// scan walks the struct at p (the args struct: p just after the header).
func scan(msg []byte, p int) (spots []spot, fields []span) {
	s := &scanner{msg: msg}
	s.structure(p, 1)
	return s.spots, s.fields
}

func (s *scanner) structure(p, level int) (int, bool) {
	for {
		if p >= len(s.msg) {
			return p, false
		}
		typ := s.msg[p]
		if typ == schema.Stop {
			s.spots = append(s.spots, spot{p, spotStop})
			return p + 1, true
		}
		s.spots = append(s.spots, spot{p, spotType})
		if p+3 > len(s.msg) {
			return p, false
		}
		s.spots = append(s.spots, spot{p + 1, spotID})
		end, ok := s.value(typ, p+3, level)
		if !ok {
			return end, false
		}
		if level == 1 {
			s.fields = append(s.fields, span{p, end})
		}
		p = end
	}
}

func (s *scanner) value(typ byte, p, level int) (int, bool) {
	s.steps++
	if s.steps > maxSteps || level > 16 {
		return p, false
	}
	if n := schemagold.FixedSize(typ); n > 0 {
		return p + n, p+n <= len(s.msg)
	}
	switch typ {
	case schema.String:
		n, ok := s.count(p)
		return p + 4 + n, ok && n <= len(s.msg)-(p+4)
	case schema.Struct:
		return s.structure(p, level+1)
	case schema.Map:
		if p+2 > len(s.msg) {
			return p, false
		}
		s.spots = append(s.spots, spot{p, spotType}, spot{p + 1, spotType})
		kt, vt := s.msg[p], s.msg[p+1]
		n, ok := s.count(p + 2)
		p += 6
		for i := 0; ok && i < n; i++ {
			if p, ok = s.value(kt, p, level+1); ok {
				p, ok = s.value(vt, p, level+1)
			}
		}
		return p, ok
	case schema.Set, schema.List:
		if p+1 > len(s.msg) {
			return p, false
		}
		s.spots = append(s.spots, spot{p, spotType})
		et := s.msg[p]
		n, ok := s.count(p + 1)
		p += 5
		for i := 0; ok && i < n; i++ {
			p, ok = s.value(et, p, level+1)
		}
		return p, ok
	}
	return p, false
}

// count notes the length or count at p and reads it; a negative one or one
// past the message is not ok.
func (s *scanner) count(p int) (int, bool) {
	if p+4 > len(s.msg) {
		return 0, false
	}
	s.spots = append(s.spots, spot{p, spotCount})
	n := int32(binary.BigEndian.Uint32(s.msg[p:]))
	return int(n), n >= 0
}
