package tb

import "encoding/binary"

// A small builder of Thrift binary-protocol bytes for hand-made cases; valid
// messages in the tests come from Apache Thrift's own serializer (apache_test.go).

type wire []byte

func header(name string, typ byte, seqid uint32) wire {
	w := wire{0x80, 0x01, 0x00, typ}
	w = binary.BigEndian.AppendUint32(w, uint32(len(name)))
	w = append(w, name...)
	return binary.BigEndian.AppendUint32(w, seqid)
}

func (w wire) field(t byte, id int16, payload ...byte) wire {
	w = append(w, t)
	w = binary.BigEndian.AppendUint16(w, uint16(id))
	return append(w, payload...)
}

func (w wire) i64(id int16, v uint64) wire {
	return w.field(10, id, binary.BigEndian.AppendUint64(nil, v)...)
}

func (w wire) i32(id int16, v uint32) wire {
	return w.field(8, id, binary.BigEndian.AppendUint32(nil, v)...)
}

func (w wire) bin(id int16, b []byte) wire {
	return w.field(11, id, append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)...)
}

func (w wire) stop() wire { return append(w, 0) }

func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7)
	}
	return b
}

// setMsg is a complete Set CALL in the field order Apache writes.
func setMsg(seqid uint32, key, value []byte) wire {
	return header("Set", 1, seqid).i64(1, 0x1122334455667788).bin(2, key).bin(3, value).
		i32(4, 0xCAFEBABE).i32(5, 3600).stop()
}
