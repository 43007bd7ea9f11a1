package schemagold

import (
	"encoding/binary"

	"arcalis/thriftidl/schema"
)

// Frame kinds of the stack.
const (
	kindStruct = iota
	kindList   // a list or a set
	kindMap
)

// frame is one level of the stack: a struct whose fields are being read, or
// a container whose elements are.
type frame struct {
	kind uint8
	keep bool // written to the image; false: skipped, as Apache skips it

	st  int // kept struct: its index
	rec int // kept struct: its record's offset in the image

	n, i       int   // container: elements (map: entries), and items read (a map entry is two)
	elem, key  int   // kept container: element (map: value) and key type indices
	elemW      uint8 // skipped container: element (map: value) wire type
	keyW       uint8 // skipped map: key wire type
	base       int   // kept container: its array's offset
	esz, ksz   int   // kept container: element (map: value) and key sizes in the array
	dest       int   // kept: where its descriptor goes when it ends; -1 none (a record inside an array)
	doff, dlen uint32
	prec, pbit int // kept: record and bit of the presence bit set when it ends; prec -1 none
}

// walker is one Deserialize: the message, the image, the stack.
type walker struct {
	t     *schema.Table
	msg   []byte
	img   []byte
	p     int // next message byte
	ptr   int // next free area byte, a multiple of 8
	sp    int // frames in use
	stack [MaxDepth]frame
	r     Result
}

// fail ends the walk with code c at message offset off.
func (w *walker) fail(c Code, off int) bool {
	w.r.Code = c
	w.r.Offset = uint32(off)
	return false
}

// Deserialize parses msg, a Thrift binary-protocol CALL or ONEWAY of one of
// t's methods, and writes the App.Recv image of docs/abi.md section 12
// into img, the header line last. len(img) is the
// capacity C; a capacity CheckCapacity rejects, or a nil table, writes
// nothing and returns Result{} (code NONE).
//
// Deserialize never panics on any msg, reads msg only below len(msg),
// writes img only below len(img), holds at most MaxDepth levels in its
// stack and does not recurse. On a code other than OK only the header line
// is defined: the area may hold anything.
func Deserialize(t *schema.Table, msg, img []byte) Result {
	if t == nil || CheckCapacity(len(img)) != nil {
		return Result{}
	}
	w := &walker{t: t, msg: msg, img: img, ptr: AreaStart}
	if w.header() && w.args() && w.walk() {
		w.r.Code = CodeOK
		w.r.Offset = uint32(w.p)
	}
	w.r.AreaEnd = uint32(w.ptr)
	w.r.Depth = uint8(w.sp)
	w.r.PutHeader(img)
	return w.r
}

// header runs CheckHeader into w.r; on OK the walk goes on at the args.
func (w *walker) header() bool {
	w.r = CheckHeader(w.t, w.msg)
	w.p = int(w.r.Offset)
	return w.r.Code == CodeOK
}

// CheckHeader checks msg's message header as golden does (docs/abi.md
// section 5, steps 1 to 5), with t's method names: the step of Deserialize
// before the args, and the reference of rtl/generic/recv_header.sv.
//
// On a good header the Result's Code is CodeOK, Offset 12 + the name's
// length (where the args start), and MsgType, Method and SeqID are the
// header's. On a fault Code and Offset are the fault's; MsgType is set once
// the version passed (BAD_MSG_TYPE shows the bad type), Method once the name
// matched (a TRUNCATED seqid shows it), SeqID stays 0. The other fields are
// 0. A nil table gives Result{} (code NONE).
func CheckHeader(t *schema.Table, msg []byte) Result {
	var r Result
	if t == nil {
		return r
	}
	fail := func(c Code, off int) Result {
		r.Code, r.Offset = c, uint32(off)
		return r
	}
	n := len(msg)
	be := binary.BigEndian
	if n > MaxMessage {
		return fail(CodeMsgTooLarge, 0)
	}
	if n < 4 {
		return fail(CodeTruncated, 0)
	}
	ver := be.Uint32(msg)
	if ver>>16 != 0x8001 || ver&0xFF00 != 0 {
		return fail(CodeBadVersion, 0)
	}
	r.MsgType = uint8(ver)
	if r.MsgType != 1 && r.MsgType != 4 { // CALL, ONEWAY
		return fail(CodeBadMsgType, 0)
	}
	if n < 8 {
		return fail(CodeTruncated, 4)
	}
	l := int32(be.Uint32(msg[4:]))
	if l < 0 {
		return fail(CodeBadLength, 4)
	}
	lenUsed := false
	for _, m := range t.Methods {
		lenUsed = lenUsed || len(m.Name) == int(l)
	}
	if !lenUsed {
		return fail(CodeUnknownMethod, 4)
	}
	if 8+int(l) > n {
		return fail(CodeTruncated, 8)
	}
	name := msg[8 : 8+int(l)]
	for i, m := range t.Methods {
		if m.Name == string(name) && i < MaxMethods {
			r.Method = uint8(i + 1)
			break
		}
	}
	if r.Method == 0 {
		return fail(CodeUnknownMethod, 8)
	}
	if 12+int(l) > n {
		return fail(CodeTruncated, 8+int(l))
	}
	r.SeqID = int32(be.Uint32(msg[8+int(l):]))
	r.Code, r.Offset = CodeOK, uint32(12+int(l))
	return r
}

// args reserves the args record at AreaStart and pushes the args struct.
func (w *walker) args() bool {
	st := w.t.Methods[w.r.Method-1].Args
	size := RecordSize(w.t, st)
	if size > len(w.img)-AreaStart {
		return w.fail(CodeAreaOverflow, w.p)
	}
	clear(w.img[AreaStart : AreaStart+size])
	w.r.ArgsOffset, w.r.ArgsSize = AreaStart, uint32(size)
	w.ptr = AreaStart + size
	w.stack[0] = frame{kind: kindStruct, keep: true, st: st, rec: AreaStart, dest: -1, prec: -1}
	w.sp = 1
	return true
}

// Skippable reports whether Apache's thrift.Skip (0.17.0) reads type id t.
func Skippable(t uint8) bool {
	switch t {
	case schema.Bool, schema.Byte, schema.Double, schema.I16, schema.I32, schema.I64,
		schema.String, schema.Struct, schema.Map, schema.Set, schema.List:
		return true
	}
	return false
}

// FixedSize is the wire size of the fixed-size types Deserialize reads
// (BOOL, BYTE, I16, I32, I64, DOUBLE); 0 for the others.
func FixedSize(t uint8) int {
	switch t {
	case schema.Bool, schema.Byte:
		return 1
	case schema.I16:
		return 2
	case schema.I32:
		return 4
	case schema.I64, schema.Double:
		return 8
	}
	return 0
}

// walk reads items until the args struct's STOP.
func (w *walker) walk() bool {
	msg, n := w.msg, len(w.msg)
	for w.sp > 0 {
		f := &w.stack[w.sp-1]
		switch f.kind {
		case kindStruct:
			p := w.p
			if p+1 > n {
				return w.fail(CodeTruncated, p)
			}
			typ := msg[p]
			if typ == 0 { // STOP
				if f.keep && !w.required(f) {
					return false
				}
				w.p++
				w.pop()
				continue
			}
			if p+3 > n {
				return w.fail(CodeTruncated, p)
			}
			if !Skippable(typ) {
				return w.fail(CodeBadType, p)
			}
			id := int16(binary.BigEndian.Uint16(msg[p+1:]))
			w.p += 3
			if f.keep {
				fields := w.t.StructFields(f.st)
				if i := find(fields, id); i >= 0 && fields[i].Wire == typ {
					fl := fields[i]
					if !w.value(true, fl.Type, typ, false, f.rec+SlotOffset(w.t, f.st, fl), f.rec, i) {
						return false
					}
					continue
				}
			}
			if !w.value(false, -1, typ, false, -1, -1, -1) {
				return false
			}

		case kindList:
			if f.i == f.n {
				w.pop()
				continue
			}
			k := f.i
			f.i++
			var ok bool
			if f.keep {
				ok = w.value(true, f.elem, w.t.Types[f.elem].Wire, true, f.base+k*f.esz, -1, -1)
			} else {
				ok = w.value(false, -1, f.elemW, false, -1, -1, -1)
			}
			if !ok {
				return false
			}

		case kindMap:
			if f.i == 2*f.n {
				w.pop()
				continue
			}
			k, isValue := f.i/2, f.i%2 == 1
			f.i++
			var ok bool
			switch {
			case f.keep && isValue:
				ok = w.value(true, f.elem, w.t.Types[f.elem].Wire, true, f.base+k*(f.ksz+f.esz)+f.ksz, -1, -1)
			case f.keep:
				ok = w.value(true, f.key, w.t.Types[f.key].Wire, true, f.base+k*(f.ksz+f.esz), -1, -1)
			case isValue:
				ok = w.value(false, -1, f.elemW, false, -1, -1, -1)
			default:
				ok = w.value(false, -1, f.keyW, false, -1, -1, -1)
			}
			if !ok {
				return false
			}
		}
	}
	return true
}

// find returns the index in fields (ascending ids) of the field with id, or -1.
func find(fields []schema.Field, id int16) int {
	for i, f := range fields {
		if f.ID == id {
			return i
		}
	}
	return -1
}

// required checks, at a kept struct's STOP, that every required field is
// present, as Apache's generated Read does after its loop.
func (w *walker) required(f *frame) bool {
	for i, fl := range w.t.StructFields(f.st) {
		if fl.Req == 1 && w.img[f.rec+i/64*SlotSize+i%64/8]&(1<<(i%8)) == 0 {
			w.r.Struct, w.r.FieldID = uint16(f.st), fl.ID
			return w.fail(CodeRequiredMissing, w.p)
		}
	}
	return true
}

// present sets bit i of the record at rec (rec -1: none).
func (w *walker) present(rec, i int) {
	if rec >= 0 {
		w.img[rec+i/64*SlotSize+i%64/8] |= 1 << (i % 8)
	}
}

// descriptor writes (off, length) at dest.
func (w *walker) descriptor(dest int, off, length uint32) {
	binary.LittleEndian.PutUint32(w.img[dest:], off)
	binary.LittleEndian.PutUint32(w.img[dest+4:], length)
}

// pop ends the top frame: a kept value's descriptor and presence bit are
// written now that it is whole.
func (w *walker) pop() {
	w.sp--
	f := &w.stack[w.sp]
	if !f.keep {
		return
	}
	if f.dest >= 0 {
		w.descriptor(f.dest, f.doff, f.dlen)
	}
	w.present(f.prec, f.pbit)
}

// value reads one value of wire type wire at w.p. Kept (keep), it is of type
// index ti and goes to dest: a fixed slot or a descriptor, or, for a struct
// element of an array (inline), its record; prec and pbit name the presence
// bit it sets when whole. Skipped, it is read as thrift.SkipDefaultDepth
// reads it. Structs and containers push a frame; the others are read here.
func (w *walker) value(keep bool, ti int, wire uint8, inline bool, dest, prec, pbit int) bool {
	msg, n, p := w.msg, len(w.msg), w.p
	be := binary.BigEndian
	switch wire {
	case schema.Bool, schema.Byte, schema.I16, schema.I32, schema.I64, schema.Double:
		size := FixedSize(wire)
		if p+size > n {
			return w.fail(CodeTruncated, p)
		}
		if keep {
			slot := w.img[dest : dest+SlotSize]
			clear(slot)
			if wire == schema.Bool {
				if msg[p] == 1 { // Apache's ReadBool: true exactly when the byte is 1
					slot[0] = 1
				}
			} else {
				for k := range size { // big-endian on the wire, little-endian in the slot
					slot[k] = msg[p+size-1-k]
				}
			}
			w.present(prec, pbit)
		}
		w.p += size
		return true

	case schema.String:
		if p+4 > n {
			return w.fail(CodeTruncated, p)
		}
		l := int32(be.Uint32(msg[p:]))
		if l < 0 {
			return w.fail(CodeBadLength, p)
		}
		if int(l) > n-(p+4) {
			return w.fail(CodeTruncated, p+4)
		}
		if keep {
			padded := (int(l) + 7) &^ 7
			if padded > len(w.img)-w.ptr {
				return w.fail(CodeAreaOverflow, p)
			}
			copy(w.img[w.ptr:], msg[p+4:p+4+int(l)])
			clear(w.img[w.ptr+int(l) : w.ptr+padded])
			w.descriptor(dest, uint32(w.ptr), uint32(l))
			w.ptr += padded
			w.present(prec, pbit)
		}
		w.p += 4 + int(l)
		return true

	case schema.Struct:
		if w.sp == MaxDepth {
			return w.fail(CodeDepthExceeded, p)
		}
		fr := frame{kind: kindStruct, keep: keep, dest: -1, prec: -1}
		if keep {
			fr.st = w.t.Types[ti].Struct
			if inline { // its record is its element of the array, zeroed when the array was reserved
				fr.rec = dest
			} else {
				size := RecordSize(w.t, fr.st)
				if size > len(w.img)-w.ptr {
					return w.fail(CodeAreaOverflow, p)
				}
				fr.rec = w.ptr
				clear(w.img[w.ptr : w.ptr+size])
				w.ptr += size
				fr.dest, fr.doff, fr.dlen, fr.prec, fr.pbit = dest, uint32(fr.rec), uint32(size), prec, pbit
			}
		}
		w.stack[w.sp] = fr
		w.sp++
		return true

	case schema.List, schema.Set, schema.Map:
		if w.sp == MaxDepth {
			return w.fail(CodeDepthExceeded, p)
		}
		head := 5 // element type, count
		if wire == schema.Map {
			head = 6 // key type, value type, count
		}
		if p+head > n {
			return w.fail(CodeTruncated, p)
		}
		cnt := int32(be.Uint32(msg[p+head-4:]))
		if cnt < 0 {
			return w.fail(CodeBadLength, p+head-4)
		}
		if cnt > MaxElements {
			return w.fail(CodeTooManyElements, p+head-4)
		}
		fr := frame{kind: kindList, keep: keep, n: int(cnt), dest: -1, prec: -1}
		if wire == schema.Map {
			fr.kind = kindMap
		}
		if keep {
			ty := w.t.Types[ti]
			fr.elem, fr.key = ty.Elem, ty.Key
			fr.esz = ElemSize(w.t, ty.Elem)
			if wire == schema.Map {
				fr.ksz = ElemSize(w.t, ty.Key)
			}
			size := int(cnt) * (fr.ksz + fr.esz)
			if size > len(w.img)-w.ptr {
				return w.fail(CodeAreaOverflow, p)
			}
			fr.base = w.ptr
			clear(w.img[w.ptr : w.ptr+size])
			w.ptr += size
			fr.dest, fr.doff, fr.dlen, fr.prec, fr.pbit = dest, uint32(fr.base), uint32(cnt), prec, pbit
		} else {
			// Apache's Skip reads the element types only to skip an element:
			// an empty container may name any type.
			if wire == schema.Map {
				fr.keyW, fr.elemW = msg[p], msg[p+1]
				if cnt > 0 && !Skippable(fr.keyW) {
					return w.fail(CodeBadType, p)
				}
				if cnt > 0 && !Skippable(fr.elemW) {
					return w.fail(CodeBadType, p+1)
				}
			} else {
				fr.elemW = msg[p]
				if cnt > 0 && !Skippable(fr.elemW) {
					return w.fail(CodeBadType, p)
				}
			}
		}
		w.p += head
		w.stack[w.sp] = fr
		w.sp++
		return true
	}
	// Unreachable: callers pass skippable types and the tables' wire types.
	return w.fail(CodeBadType, p)
}
