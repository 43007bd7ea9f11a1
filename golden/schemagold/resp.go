package schemagold

import (
	"encoding/binary"
	"math/bits"

	"arcalis/thriftidl/schema"
)

// replyType is the version word of a strict binary REPLY.
const replyType = 0x80010002

// Serialize is the reference of the respFunction: it reads the App.Resp
// image img (docs/abi.md section 13) that
// answers a call of method (its index in t.Methods) with seqid, and returns
// the Thrift binary REPLY message Apache's generated server code writes for
// that result struct: 0x80010002, the method's name, seqid, then the result
// struct's fields in ascending id order (the order of the generated Write
// methods), each present field, and each absent field that is not optional,
// written as Apache writes the Go zero value (an absent struct as its
// STOP only), then STOP.
//
// Every header field, presence bit, descriptor and count is checked
// against the tables and the area [AreaStart, AreaEnd): a fault returns no
// message, its code and the image offset of the field, presence word or
// descriptor at fault. On success the code is RESP_OK (as golden's
// TxEngine) and the offset the reply's length. Serialize never panics, reads img only below the
// header's AreaEnd (below 64 for a header fault), and nests at most
// MaxDepth levels; a capacity CheckCapacity rejects, or a nil table, is
// code NONE.
func Serialize(t *schema.Table, img []byte, method int, seqid int32) (reply []byte, code Code, offset int) {
	if t == nil || CheckCapacity(len(img)) != nil {
		return nil, CodeNone, 0
	}
	if method < 0 || method >= len(t.Methods) || method >= MaxMethods {
		return nil, CodeUnknownMethod, respOffMethod
	}
	m := t.Methods[method]
	if m.Oneway {
		return nil, CodeBadMsgType, respOffMethod
	}
	size := RecordSize(t, m.Result)
	h, _ := ParseRespHeader(img)
	if at, ok := checkRespHeader(h, img, size, method, seqid); !ok {
		return nil, CodeRespBadImage, at
	}
	s := &serializer{t: t, img: img[:h.AreaEnd], ptr: AreaStart + size}
	s.out = binary.BigEndian.AppendUint32(s.out, replyType)
	s.out = binary.BigEndian.AppendUint32(s.out, uint32(len(m.Name)))
	s.out = append(s.out, m.Name...)
	s.out = binary.BigEndian.AppendUint32(s.out, uint32(seqid))
	if !s.record(m.Result, AreaStart, 1) {
		return nil, s.code, s.off
	}
	return s.out, CodeRespOK, len(s.out)
}

// ReplyHeaderLen is the length of the message header Serialize writes
// before the result struct for method: the version word, the name with
// its length, the seqid.
func ReplyHeaderLen(t *schema.Table, method int) int { return 12 + len(t.Methods[method].Name) }

// checkRespHeader checks the header line's fields in offset order and
// returns the offset of the first one at fault.
func checkRespHeader(h RespHeader, img []byte, size, method int, seqid int32) (int, bool) {
	switch {
	case h.ResultOffset != AreaStart:
		return respOffResult, false
	case h.ResultSize != uint32(size):
		return respOffSize, false
	case h.AreaEnd%SlotSize != 0 || h.AreaEnd < uint32(AreaStart+size) || h.AreaEnd > uint32(len(img)):
		return respOffEnd, false
	}
	for i := 12; i < HeaderSize; i++ {
		switch {
		case i == respOffSeqID && h.SeqID != seqid:
			return respOffSeqID, false
		case i == respOffMethod && int(h.Method) != method+1:
			return respOffMethod, false
		case respReserved(i) && img[i] != 0:
			return i, false
		}
	}
	return 0, true
}

// serializer is one Serialize: the image up to its area end, the pointer
// below which every record, array and string read so far lies, the reply.
type serializer struct {
	t    *schema.Table
	img  []byte // [0, AreaEnd)
	ptr  int
	out  []byte
	code Code
	off  int
}

func (s *serializer) fail(c Code, off int) bool {
	s.code, s.off = c, off
	return false
}

// block checks the descriptor at at, which gives a record, array or
// string of size bytes at off: 8-aligned, inside the area, and not before
// the pointer, so that no two overlap and none is read twice.
func (s *serializer) block(at, off, size int) bool {
	if off%SlotSize != 0 || off < AreaStart || off > len(s.img) || size > len(s.img)-off {
		return s.fail(CodeBadDescriptor, at)
	}
	if off < s.ptr {
		return s.fail(CodeOverlap, at)
	}
	s.ptr = off + size
	return true
}

// record writes the fields of struct st, whose record is at rec, at nesting
// level depth, then STOP.
func (s *serializer) record(st, rec, depth int) bool {
	se := s.t.Structs[st]
	le := binary.LittleEndian
	present := 0
	for w := range PresenceWords(se.Count) {
		word := le.Uint64(s.img[rec+w*SlotSize:])
		if valid := se.Count - 64*w; valid < 64 && word>>valid != 0 {
			return s.fail(CodeBadPresence, rec+w*SlotSize)
		}
		present += bits.OnesCount64(word)
	}
	switch {
	case se.Kind == schema.KindResult && present > 1:
		return s.fail(CodeBadPresence, rec)
	case se.Kind == schema.KindUnion && present != 1: // Apache's generated Write refuses it
		return s.fail(CodeBadPresence, rec)
	}
	for i, f := range s.t.StructFields(st) {
		at := rec + SlotOffset(s.t, st, f)
		has := s.img[rec+i/8]&(1<<(i%8)) != 0
		if !has && (f.Req == 2 || se.Kind == schema.KindUnion) {
			continue // Apache writes an optional field, or a union's, only when set
		}
		s.out = append(s.out, f.Wire, 0, 0)
		binary.BigEndian.PutUint16(s.out[len(s.out)-2:], uint16(f.ID))
		var ok bool
		if has {
			ok = s.value(f.Type, at, depth)
		} else {
			ok = s.zero(f.Type, at, depth)
		}
		if !ok {
			return false
		}
	}
	s.out = append(s.out, schema.Stop)
	return true
}

// value writes the value of type ti whose slot or descriptor is at at, in a
// struct or container at level depth.
func (s *serializer) value(ti, at, depth int) bool {
	ty := s.t.Types[ti]
	le, be := binary.LittleEndian, binary.BigEndian
	slot := s.img[at : at+SlotSize]
	switch ty.Wire {
	case schema.Bool:
		b := byte(0)
		if slot[0] != 0 {
			b = 1
		}
		s.out = append(s.out, b)
		return true
	case schema.Byte:
		s.out = append(s.out, slot[0])
		return true
	case schema.I16:
		s.out = be.AppendUint16(s.out, le.Uint16(slot))
		return true
	case schema.I32:
		s.out = be.AppendUint32(s.out, le.Uint32(slot))
		return true
	case schema.I64, schema.Double:
		s.out = be.AppendUint64(s.out, le.Uint64(slot))
		return true
	}
	off, n := int(le.Uint32(slot)), int(le.Uint32(slot[4:]))
	switch ty.Wire {
	case schema.String:
		if n > 0 && !s.block(at, off, (n+7)&^7) {
			return false
		}
		s.out = be.AppendUint32(s.out, uint32(n))
		if n > 0 {
			s.out = append(s.out, s.img[off:off+n]...)
		}
		return true
	case schema.Struct:
		if depth+1 > MaxDepth {
			return s.fail(CodeDepthExceeded, at)
		}
		if n != RecordSize(s.t, ty.Struct) {
			return s.fail(CodeBadDescriptor, at)
		}
		if !s.block(at, off, n) {
			return false
		}
		return s.record(ty.Struct, off, depth+1)
	case schema.List, schema.Set, schema.Map:
		if depth+1 > MaxDepth {
			return s.fail(CodeDepthExceeded, at)
		}
		if n > MaxElements {
			return s.fail(CodeTooManyElements, at)
		}
		s.containerHeader(ty, n)
		if n == 0 {
			return true // an empty container's offset is not read
		}
		esz, ksz := ElemSize(s.t, ty.Elem), 0
		if ty.Wire == schema.Map {
			ksz = ElemSize(s.t, ty.Key)
		}
		base := off
		if !s.block(at, off, n*(ksz+esz)) {
			return false
		}
		for k := range n {
			if ty.Wire == schema.Map {
				if !s.elem(ty.Key, base+k*(ksz+esz), depth+1) || !s.elem(ty.Elem, base+k*(ksz+esz)+ksz, depth+1) {
					return false
				}
			} else if !s.elem(ty.Elem, base+k*esz, depth+1) {
				return false
			}
		}
		return true
	}
	// UUID: an 8-byte slot cannot hold one, and Apache Go 0.17.0 has none.
	return s.fail(CodeBadType, at)
}

// elem writes an element of type ti at at of a container at level depth:
// a struct's record lies in the array itself.
func (s *serializer) elem(ti, at, depth int) bool {
	if ty := s.t.Types[ti]; ty.Wire == schema.Struct {
		if depth+1 > MaxDepth {
			return s.fail(CodeDepthExceeded, at)
		}
		return s.record(ty.Struct, at, depth+1)
	}
	return s.value(ti, at, depth)
}

// containerHeader writes a list's or set's element type and count, or a
// map's key and value types and count, from the tables.
func (s *serializer) containerHeader(ty schema.Type, n int) {
	if ty.Wire == schema.Map {
		s.out = append(s.out, s.t.Types[ty.Key].Wire)
	}
	s.out = append(s.out, s.t.Types[ty.Elem].Wire)
	s.out = binary.BigEndian.AppendUint32(s.out, uint32(n))
}

// zero writes what Apache's generated Write writes for an absent field of
// type ti that is not optional (the Go zero value; a nil struct pointer
// writes only its STOP), whose slot is at at, in a struct at level depth.
func (s *serializer) zero(ti, at, depth int) bool {
	ty := s.t.Types[ti]
	switch ty.Wire {
	case schema.Bool, schema.Byte, schema.I16, schema.I32, schema.I64, schema.Double:
		s.out = append(s.out, make([]byte, FixedSize(ty.Wire))...)
		return true
	case schema.String:
		s.out = append(s.out, 0, 0, 0, 0)
		return true
	case schema.Struct:
		if depth+1 > MaxDepth {
			return s.fail(CodeDepthExceeded, at)
		}
		s.out = append(s.out, schema.Stop)
		return true
	case schema.List, schema.Set, schema.Map:
		if depth+1 > MaxDepth {
			return s.fail(CodeDepthExceeded, at)
		}
		s.containerHeader(ty, 0)
		return true
	}
	return s.fail(CodeBadType, at)
}
