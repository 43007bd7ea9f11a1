// Command defaultset writes the default vector set, vectors/default.vec: Set and Get
// requests, valid and malformed, covering docs/abi.md (run: go generate ./vectors).
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/internal/memcached"
	"arcalis/internal/splitmix"
	"arcalis/vectors"
)

func main() {
	out := flag.String("o", "default.vec", "vector file to write")
	flag.Parse()
	if err := generate(*out); err != nil {
		fmt.Fprintln(os.Stderr, "defaultset:", err)
		os.Exit(1)
	}
}

// generate writes the default set to path.
//
// Valid messages are serialized by Apache Thrift's Go library from the
// generated arcalis/internal/memcached types. Messages Apache cannot write
// (fields reordered, repeated, missing, unknown or mistyped) come from a small
// builder whose bytes are checked against Apache's for the canonical Set; the
// malformed ones are edits of those bytes. Every case is documented where it
// is built. The output is the same bytes on every run: the only randomness is
// a fixed-seed SplitMix64 generator (internal/splitmix).
//
// Each record's metadata holds, besides "source" (the case name):
//   - "expect": the result code docs/abi.md section 5 gives for the message,
//     for an App.Recv capacity of at least 320 + 65,536 bytes (the largest
//     value in the set). The golden reference decides the full image; this is
//     the case's stated intent, for cross-checking.
//   - "apache": "accept" or "reject": whether Apache Thrift's Go library
//     (default configuration) reads it as exactly one message
//     (vectors.CheckMessage; `arcalis vectors verify` checks this).
//   - "reply_sha256" (vectors.MetaReplySHA256), on every Set CALL Apache's
//     generated processor answers: the SHA-256 of its reply, which `arcalis
//     run` holds the TxEngine's reply to.
func generate(path string) error {
	recs, err := buildSet()
	if err != nil {
		return err
	}
	for i := range recs {
		if reply := apacheReply(recs[i].Msg); reply != nil {
			sum := sha256.Sum256(reply)
			recs[i].Meta[vectors.MetaReplySHA256] = hex.EncodeToString(sum[:])
		}
	}
	return vectors.WriteFile(path, recs)
}

// voidHandler is the business logic of the replies: a Set that succeeds.
type voidHandler struct{}

func (voidHandler) Set(context.Context, int64, []byte, []byte, int32, int32) error { return nil }
func (voidHandler) Get(context.Context, int64, []byte) ([]byte, error)             { return nil, nil }

// apacheReply is what Apache's generated processor writes for a Set CALL
// msg, or nil if msg is not one it answers with a REPLY.
func apacheReply(msg []byte) []byte {
	if len(msg) < 15 || msg[3] != mCall || string(msg[8:11]) != "Set" {
		return nil
	}
	in, out := thrift.NewTMemoryBuffer(), thrift.NewTMemoryBuffer()
	in.Write(msg)
	ok, err := memcached.NewMemcachedServiceProcessor(voidHandler{}).Process(context.Background(),
		vectors.StrictBinary(in), vectors.StrictBinary(out))
	reply := out.Bytes()
	if !ok || err != nil || len(reply) < 4 || reply[3] != mReply {
		return nil
	}
	return bytes.Clone(reply)
}

// Thrift type ids on the wire (Apache Thrift's binary protocol).
const (
	tStop   = 0
	tVoid   = 1
	tBool   = 2
	tByte   = 3
	tDouble = 4
	tI16    = 6
	tI32    = 8
	tI64    = 10
	tBinary = 11
	tStruct = 12
	tMap    = 13
	tSet    = 14
	tList   = 15
	tUUID   = 16
)

// Message types.
const (
	mCall      = 1
	mReply     = 2
	mException = 3
	mOneway    = 4
)

// ABI result codes (docs/abi.md section 4), by name.
const (
	rOK          = "OK"
	rTruncated   = "TRUNCATED"
	rBadVersion  = "BAD_VERSION"
	rBadMsgType  = "BAD_MSG_TYPE"
	rUnknownMeth = "UNKNOWN_METHOD"
	rBadLength   = "BAD_LENGTH"
	rBadType     = "BAD_TYPE"
	rNested      = "NESTED_UNSUPPORTED"
	rKeyTooLong  = "KEY_TOO_LONG"
)

const (
	accept = "accept"
	reject = "reject"
)

// perm returns a Fisher-Yates shuffle of 1..n.
func perm(s *splitmix.Source, n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i + 1
	}
	for i := n - 1; i > 0; i-- {
		j := s.Intn(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// builder appends Thrift binary-protocol items exactly as Apache's
// TBinaryProtocol writes them (strict header).
type builder struct{ b []byte }

func (b *builder) raw(p ...byte) *builder { b.b = append(b.b, p...); return b }
func (b *builder) i8(v int8) *builder     { return b.raw(byte(v)) }
func (b *builder) i16(v int16) *builder {
	b.b = binary.BigEndian.AppendUint16(b.b, uint16(v))
	return b
}
func (b *builder) i32(v int32) *builder {
	b.b = binary.BigEndian.AppendUint32(b.b, uint32(v))
	return b
}
func (b *builder) u32(v uint32) *builder { return b.i32(int32(v)) }
func (b *builder) i64(v int64) *builder {
	b.b = binary.BigEndian.AppendUint64(b.b, uint64(v))
	return b
}
func (b *builder) bin(p []byte) *builder           { return b.i32(int32(len(p))).raw(p...) }
func (b *builder) field(t byte, id int16) *builder { return b.raw(t).i16(id) }
func (b *builder) stop() *builder                  { return b.raw(tStop) }

// header writes a strict message header: 0x8001_00tt, name, seqid.
func (b *builder) header(typ byte, name string, seqid int32) *builder {
	return b.u32(0x8001_0000 | uint32(typ)).bin([]byte(name)).i32(seqid)
}

// setField writes field id of a (1..5) with its schema type, as Apache does.
func (b *builder) setField(id int, a *memcached.MemcachedServiceSetArgs) *builder {
	switch id {
	case 1:
		return b.field(tI64, 1).i64(a.ReqID)
	case 2:
		return b.field(tBinary, 2).bin(a.Key)
	case 3:
		return b.field(tBinary, 3).bin(a.Value)
	case 4:
		return b.field(tI32, 4).i32(a.Flags)
	case 5:
		return b.field(tI32, 5).i32(a.Exptime)
	}
	panic("setField: no field " + strconv.Itoa(id))
}

// fixedValue writes a value of fixed-size type t (from the same bytes every time).
func (b *builder) fixedValue(t byte) *builder {
	switch t {
	case tBool:
		return b.raw(1)
	case tByte:
		return b.raw(0x5a)
	case tI16:
		return b.i16(0x1234)
	case tI32:
		return b.i32(0x0badcafe)
	case tI64, tDouble: // a double is 8 bytes: 1.5 as IEEE 754
		if t == tDouble {
			return b.raw(0x3f, 0xf8, 0, 0, 0, 0, 0, 0)
		}
		return b.i64(0x7766554433221100)
	case tUUID:
		return b.raw(0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00)
	}
	panic("fixedValue: not a fixed-size type " + strconv.Itoa(int(t)))
}

var fixedTypes = []struct {
	name string
	t    byte
}{
	{"bool", tBool}, {"byte", tByte}, {"double", tDouble}, {"i16", tI16},
	{"i32", tI32}, {"i64", tI64}, {"uuid", tUUID},
}

// gen collects the cases.
type gen struct {
	rng  splitmix.Source
	recs []vectors.Record
	seen map[string]bool
	err  error
}

// seq is the seqid for the next case: its record index plus one.
func (g *gen) seq() int32 { return int32(len(g.recs) + 1) }

func (g *gen) add(name, expect, apache string, msg []byte) {
	if g.seen[name] && g.err == nil {
		g.err = fmt.Errorf("case %q: duplicate name", name)
	}
	g.seen[name] = true
	perr := vectors.CheckMessage(msg)
	if (perr == nil) != (apache == accept) && g.err == nil {
		g.err = fmt.Errorf("case %q: stated apache=%s, but vectors.CheckMessage says %v", name, apache, perr)
	}
	g.recs = append(g.recs, vectors.Record{
		Source: name,
		Meta:   map[string]any{"expect": expect, "apache": apache},
		Msg:    msg,
	})
}

// apache serializes args as one message with Apache's binary protocol (strict).
func (g *gen) apache(name string, typ thrift.TMessageType, seqid int32, args thrift.TStruct) []byte {
	buf := thrift.NewTMemoryBuffer()
	return g.serialize(vectors.StrictBinary(buf), buf, name, typ, seqid, args)
}

func (g *gen) serialize(prot thrift.TProtocol, buf *thrift.TMemoryBuffer, name string, typ thrift.TMessageType, seqid int32, args thrift.TStruct) []byte {
	msg, err := vectors.EncodeMessage(prot, buf, name, typ, seqid, args)
	if err != nil && g.err == nil {
		g.err = err
	}
	return msg
}

func (g *gen) apacheSet(typ thrift.TMessageType, seqid int32, a *memcached.MemcachedServiceSetArgs) []byte {
	return g.apache("Set", typ, seqid, a)
}

// base returns the Set arguments most cases start from: an 8-byte key and a
// 32-byte value. Its canonical message is 95 bytes:
//
//	0  version 80 01 00 01     4  name length 3    8  "Set"      11 seqid
//	15 field 1 I64 (18: req_id)                    26 field 2 BINARY (29: length 8, 33: key)
//	41 field 3 BINARY (44: length 32, 48: value)   80 field 4 I32 (83: flags)
//	87 field 5 I32 (90: exptime)                   94 STOP
func base() *memcached.MemcachedServiceSetArgs {
	v := make([]byte, 32)
	for i := range v {
		v[i] = byte(0xa0 + i)
	}
	return &memcached.MemcachedServiceSetArgs{
		ReqID:   0x0102030405060708,
		Key:     []byte("key:0001"),
		Value:   v,
		Flags:   0x11223344,
		Exptime: 3600,
	}
}

// setMsg builds a Set CALL with the given fields of a, in order.
func setMsg(seqid int32, a *memcached.MemcachedServiceSetArgs, order ...int) *builder {
	b := new(builder).header(mCall, "Set", seqid)
	for _, id := range order {
		b.setField(id, a)
	}
	return b
}

func orderName(order []int) string {
	s := make([]string, len(order))
	for i, id := range order {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, "-")
}

// buildSet returns every case, in file order.
func buildSet() ([]vectors.Record, error) {
	g := &gen{rng: 0x41726361_6c697321, seen: map[string]bool{}} // "Arcalis!"

	// The builder must write what Apache writes.
	if ap, hb := g.apacheSet(thrift.CALL, 1, base()), setMsg(1, base(), 1, 2, 3, 4, 5).stop().b; !bytes.Equal(ap, hb) {
		return nil, fmt.Errorf("builder and Apache disagree on the canonical Set:\n apache  % x\n builder % x", ap, hb)
	}

	g.valid()
	g.fieldOrders()
	g.unknownFields()
	g.wrongTypes()
	g.repeats()
	g.missing()
	g.keyLengths()
	g.valueLengths()
	g.keyOffsets()
	g.gets()
	g.truncations()
	g.versions()
	g.msgTypes()
	g.methods()
	g.negativeLengths()
	g.lengthsPastEnd()
	g.nested()
	g.badTypes()
	g.afterStop()
	g.random()
	if g.err != nil {
		return nil, g.err
	}
	return g.recs, nil
}

// valid: Apache-serialized Set requests with ordinary and extreme values.
func (g *gen) valid() {
	g.add("set/canonical", rOK, accept, g.apacheSet(thrift.CALL, g.seq(), base()))
	g.add("set/oneway", rOK, accept, g.apacheSet(thrift.ONEWAY, g.seq(), base()))
	a := base()
	a.Key, a.Value = g.rng.Bytes(250), g.rng.Bytes(1000)
	g.add("set/oneway/key-250-value-1000", rOK, accept, g.apacheSet(thrift.ONEWAY, g.seq(), a))
	g.add("set/zero", rOK, accept, g.apacheSet(thrift.CALL, 0, &memcached.MemcachedServiceSetArgs{}))
	a = base()
	a.ReqID, a.Flags, a.Exptime = -1, -1, -1
	g.add("set/all-ones/seqid--1", rOK, accept, g.apacheSet(thrift.CALL, -1, a))
	a = base()
	a.ReqID, a.Flags, a.Exptime = -0x8000_0000_0000_0000, 0x7fff_ffff, -0x8000_0000
	g.add("set/extremes/seqid-max", rOK, accept, g.apacheSet(thrift.CALL, 0x7fff_ffff, a))
}

// fieldOrders: ten non-canonical orders of the five fields (5-4-3-2-1 and
// nine drawn from the fixed seed).
func (g *gen) fieldOrders() {
	orders := [][]int{{5, 4, 3, 2, 1}}
	seen := map[string]bool{"1-2-3-4-5": true, "5-4-3-2-1": true}
	for len(orders) < 10 {
		p := perm(&g.rng, 5)
		if !seen[orderName(p)] {
			seen[orderName(p)] = true
			orders = append(orders, p)
		}
	}
	for _, o := range orders {
		g.add("set/field-order/"+orderName(o), rOK, accept, setMsg(g.seq(), base(), o...).stop().b)
	}
}

// unknownFields: fields the schema does not have are skipped, whatever
// their fixed-size type; binary ones too. Apache v0.17.0 has no UUID type, so
// it rejects those messages; the accelerator skips 16 bytes.
func (g *gen) unknownFields() {
	a := base()
	for _, ft := range fixedTypes {
		b := setMsg(g.seq(), a, 1, 2)
		b.field(ft.t, 6).fixedValue(ft.t)
		apache := accept
		if ft.t == tUUID {
			apache = reject
		}
		g.add("set/unknown-field/id-6/"+ft.name, rOK, apache, b.setField(3, a).setField(4, a).setField(5, a).stop().b)
	}
	for _, n := range []int{0, 5, 300} {
		b := setMsg(g.seq(), a, 1, 2)
		b.field(tBinary, 6).bin(g.rng.Bytes(n))
		g.add(fmt.Sprintf("set/unknown-field/id-6/binary-%d", n), rOK, accept, b.setField(3, a).setField(4, a).setField(5, a).stop().b)
	}
	for _, id := range []int16{0, -1, 32767, -32768, 256} {
		b := setMsg(g.seq(), a, 1, 2, 3)
		b.field(tI32, id).fixedValue(tI32)
		g.add(fmt.Sprintf("set/unknown-field/id-%d/i32", id), rOK, accept, b.setField(4, a).setField(5, a).stop().b)
	}
	b := new(builder).header(mCall, "Set", g.seq()).field(tI64, 9).fixedValue(tI64)
	g.add("set/unknown-field/first/i64", rOK, accept, b.setField(1, a).setField(2, a).setField(3, a).setField(4, a).setField(5, a).stop().b)
	b = setMsg(g.seq(), a, 1, 2, 3, 4, 5).field(tBinary, 10).bin([]byte("trailing unknown"))
	g.add("set/unknown-field/last/binary", rOK, accept, b.stop().b)
	// One of every skippable type between every pair of known fields.
	b = new(builder).header(mCall, "Set", g.seq())
	for i, ft := range fixedTypes[:6] {
		b.field(ft.t, int16(20+i)).fixedValue(ft.t)
		b.setField(i%5+1, a)
	}
	g.add("set/unknown-field/many", rOK, accept, b.field(tBinary, 30).bin([]byte{1, 2, 3}).stop().b)
}

// wrongTypes: a known field id with a type other than the schema's is
// skipped like an unknown field (its present bit stays 0).
func (g *gen) wrongTypes() {
	a := base()
	tests := []struct {
		field  int
		name   string
		t      byte
		binary bool
	}{
		{1, "req_id-as-i32", tI32, false}, {1, "req_id-as-double", tDouble, false}, {1, "req_id-as-binary", tBinary, true},
		{2, "key-as-i32", tI32, false}, {2, "key-as-i64", tI64, false}, {2, "key-as-uuid", tUUID, false},
		{3, "value-as-i16", tI16, false}, {3, "value-as-bool", tBool, false},
		{4, "flags-as-i64", tI64, false}, {4, "flags-as-binary", tBinary, true},
		{5, "exptime-as-i16", tI16, false}, {5, "exptime-as-byte", tByte, false},
	}
	for _, tc := range tests {
		b := new(builder).header(mCall, "Set", g.seq())
		for id := 1; id <= 5; id++ {
			if id != tc.field {
				b.setField(id, a)
				continue
			}
			b.field(tc.t, int16(id))
			if tc.binary {
				b.bin([]byte("wrong type"))
			} else {
				b.fixedValue(tc.t)
			}
		}
		apache := accept
		if tc.t == tUUID {
			apache = reject
		}
		g.add("set/wrong-type/"+tc.name, rOK, apache, b.stop().b)
	}
	// Wrong type, then the right one: the key is set.
	b := setMsg(g.seq(), a, 1).field(tI32, 2).fixedValue(tI32)
	g.add("set/wrong-type/key-i32-then-binary", rOK, accept, b.setField(2, a).setField(3, a).setField(4, a).setField(5, a).stop().b)
	// Right type, then a wrong one: the key stays.
	b = setMsg(g.seq(), a, 1, 2).field(tI64, 2).fixedValue(tI64)
	g.add("set/wrong-type/key-binary-then-i64", rOK, accept, b.setField(3, a).setField(4, a).setField(5, a).stop().b)
}

// repeats: a repeated field overwrites (last wins); a shorter second key or
// value leaves the tail of the first in App.Recv.
func (g *gen) repeats() {
	keyRepeat := func(name string, lens ...int) {
		a := base()
		b := setMsg(g.seq(), a, 1)
		for _, n := range lens {
			b.field(tBinary, 2).bin(g.rng.Bytes(n))
		}
		g.add(name, rOK, accept, b.setField(3, a).setField(4, a).setField(5, a).stop().b)
	}
	keyRepeat("set/repeat/key/16-then-5", 16, 5)
	keyRepeat("set/repeat/key/5-then-16", 5, 16)
	keyRepeat("set/repeat/key/256-then-1", 256, 1)
	keyRepeat("set/repeat/key/100-then-0", 100, 0)
	keyRepeat("set/repeat/key/3-times-40-20-30", 40, 20, 30)

	a := base()
	b := setMsg(g.seq(), a, 1, 2).field(tBinary, 3).bin(g.rng.Bytes(100)).field(tBinary, 3).bin(g.rng.Bytes(10))
	g.add("set/repeat/value/100-then-10", rOK, accept, b.setField(4, a).setField(5, a).stop().b)

	b = setMsg(g.seq(), a, 1, 2, 3, 4, 5).field(tI64, 1).i64(-42)
	g.add("set/repeat/req_id", rOK, accept, b.stop().b)
	b = setMsg(g.seq(), a, 4, 1, 2, 3, 5).field(tI32, 4).i32(7)
	g.add("set/repeat/flags", rOK, accept, b.stop().b)
	b = setMsg(g.seq(), a, 5, 1, 2, 3, 4).field(tI32, 5).i32(0)
	g.add("set/repeat/exptime", rOK, accept, b.stop().b)

	second := &memcached.MemcachedServiceSetArgs{ReqID: 99, Key: []byte("k2"), Value: []byte("v2"), Flags: 2, Exptime: 20}
	b = setMsg(g.seq(), a, 1, 2, 3, 4, 5)
	for id := 1; id <= 5; id++ {
		b.setField(id, second)
	}
	g.add("set/repeat/all-fields", rOK, accept, b.stop().b)
}

// missing: absent fields stay 0 with their present bit clear.
func (g *gen) missing() {
	a := base()
	names := []string{"", "req_id", "key", "value", "flags", "exptime"}
	for skip := 1; skip <= 5; skip++ {
		var order []int
		for id := 1; id <= 5; id++ {
			if id != skip {
				order = append(order, id)
			}
		}
		g.add("set/missing/"+names[skip], rOK, accept, setMsg(g.seq(), a, order...).stop().b)
	}
	g.add("set/missing/all", rOK, accept, setMsg(g.seq(), a).stop().b)
	g.add("set/missing/all-but-key", rOK, accept, setMsg(g.seq(), a, 2).stop().b)
}

// keyLengths: Apache-serialized Sets around the 256-byte key limit.
func (g *gen) keyLengths() {
	for _, n := range []int{0, 1, 8, 16, 250, 255, 256, 257, 1000} {
		a := base()
		a.Key = g.rng.Bytes(n)
		expect := rOK
		if n > 256 {
			expect = rKeyTooLong
		}
		g.add(fmt.Sprintf("set/key-len/%d", n), expect, accept, g.apacheSet(thrift.CALL, g.seq(), a))
	}
}

// valueLengths: Apache-serialized Sets with values around line boundaries.
func (g *gen) valueLengths() {
	for _, n := range []int{0, 1, 8, 32, 63, 64, 65, 1000, 4096, 65536} {
		a := base()
		a.Value = g.rng.Bytes(n)
		g.add(fmt.Sprintf("set/value-len/%d", n), rOK, accept, g.apacheSet(thrift.CALL, g.seq(), a))
	}
}

// keyOffsets: the key's first byte at every offset within a 64-byte line,
// moved by an unknown binary field before it; key lengths vary too.
func (g *gen) keyOffsets() {
	// Without padding the key starts at byte 33 (see base). An unknown binary
	// field of n bytes after req_id adds 7 + n.
	for k := 0; k < 64; k++ {
		n := ((k-40)%64 + 64) % 64
		a := base()
		a.Key = g.rng.Bytes(1 + (k*37)%80)
		a.Value = g.rng.Bytes((k * 53) % 130)
		b := setMsg(g.seq(), a, 1).field(tBinary, 7).bin(g.rng.Bytes(n))
		if at := len(b.b) + 7; at%64 != k && g.err == nil { // 7: the key's field header and length
			g.err = fmt.Errorf("key-offset %d: key at byte %d", k, at)
		}
		msg := b.setField(2, a).setField(3, a).setField(4, a).setField(5, a).stop().b
		g.add(fmt.Sprintf("set/key-offset/%02d", k), rOK, accept, msg)
	}
}

// gets: Get's recvFunction, with Set's rules and its own two argument slots.
func (g *gen) gets() {
	args := &memcached.MemcachedServiceGetArgs{ReqID: 77, Key: []byte("key:0001")}
	g.add("get/call", rOK, accept, g.apache("Get", thrift.CALL, g.seq(), args))
	g.add("get/oneway", rOK, accept, g.apache("Get", thrift.ONEWAY, g.seq(), args))
	long := &memcached.MemcachedServiceGetArgs{ReqID: 78, Key: g.rng.Bytes(250)}
	g.add("get/call/key-250", rOK, accept, g.apache("Get", thrift.CALL, g.seq(), long))
	g.add("get/bad-fields-after-seqid", rBadType, reject, new(builder).header(mCall, "Get", g.seq()).raw(0xff, 0xff, 0xff).b)
	// Set's fields 3 to 5 are unknown to Get_args: skipped, as Apache does.
	set := base()
	g.add("get/set-fields-skipped", rOK, accept, new(builder).header(mCall, "Get", g.seq()).
		setField(3, set).setField(4, set).setField(2, set).setField(5, set).setField(1, set).stop().b)
	g.add("get/truncated/at-13", rTruncated, reject, g.apache("Get", thrift.CALL, g.seq(), args)[:13])
	g.add("get/reply", rBadMsgType, accept, g.apache("Get", thrift.REPLY, g.seq(), args))
}

// truncations: the canonical Set (see base for its layout) cut at
// representative points: inside and at the edge of every item.
func (g *gen) truncations() {
	for _, at := range []int{0, 2, 3, 4, 7, 8, 10, 11, 14, 15, 16, 17, 18, 25, 26, 29, 32, 33, 40, 41, 47, 48, 79, 80, 86, 90, 93, 94} {
		msg := g.apacheSet(thrift.CALL, g.seq(), base())[:at]
		g.add(fmt.Sprintf("err/truncated/at-%d", at), rTruncated, reject, msg)
	}
	// Inside skipped (unknown) fields: they must be wholly present too.
	a := base()
	for _, ft := range []struct {
		name string
		t    byte
		cut  int // bytes of the value kept
	}{{"i64", tI64, 5}, {"double", tDouble, 7}, {"uuid", tUUID, 15}, {"i16", tI16, 1}, {"binary-length", tBinary, 2}} {
		b := setMsg(g.seq(), a, 1, 2).field(ft.t, 6)
		g.add("err/truncated/in-unknown-"+ft.name, rTruncated, reject, append(b.b, make([]byte, ft.cut)...))
	}
	b := setMsg(g.seq(), a, 1, 2).field(tBinary, 6).bin(g.rng.Bytes(20))
	g.add("err/truncated/in-unknown-binary-data", rTruncated, reject, b.b[:len(b.b)-5])
}

// versions: only the strict header 0x8001_00tt is accepted.
// Apache's reader checks only the top half (0x8001), so byte 1 set is
// accepted there.
func (g *gen) versions() {
	edit := func(name, expect, apache string, first []byte) {
		msg := g.apacheSet(thrift.CALL, g.seq(), base())
		copy(msg, first)
		g.add(name, expect, apache, msg)
	}
	edit("err/version/2", rBadVersion, reject, []byte{0x80, 0x02, 0x00, 0x01})
	edit("err/version/byte1-nonzero", rBadVersion, accept, []byte{0x80, 0x01, 0x01, 0x01})
	edit("err/version/all-ones", rBadVersion, reject, []byte{0xff, 0xff, 0xff, 0xff})
	edit("err/version/0x0001", rBadVersion, reject, []byte{0x00, 0x01, 0x00, 0x01})
	// Old-style header (name length, name, type byte, seqid): Apache's
	// default reader takes it; the accelerator does not (abi.md section 7).
	a := base()
	b := new(builder).bin([]byte("Set")).i8(mCall).i32(g.seq())
	for id := 1; id <= 5; id++ {
		b.setField(id, a)
	}
	g.add("err/version/old-style-header", rBadVersion, accept, b.stop().b)
	// The same Set in Apache's compact protocol starts 0x82 0x21.
	buf := thrift.NewTMemoryBuffer()
	msg := g.serialize(thrift.NewTCompactProtocolConf(buf, &thrift.TConfiguration{}), buf, "Set", thrift.CALL, g.seq(), base())
	g.add("err/version/compact-protocol", rBadVersion, reject, msg)
	// Two bytes are not enough to check the version.
	g.add("err/version/short-80-01", rTruncated, reject, []byte{0x80, 0x01})
}

// msgTypes: only CALL and ONEWAY are requests.
func (g *gen) msgTypes() {
	g.add("err/msg-type/reply", rBadMsgType, accept, g.apacheSet(thrift.REPLY, g.seq(), base()))
	// A real EXCEPTION message: Apache's TApplicationException as the body.
	exc := thrift.NewTApplicationException(thrift.UNKNOWN_METHOD, "Unknown function Set")
	g.add("err/msg-type/exception", rBadMsgType, accept, g.apache("Set", thrift.EXCEPTION, g.seq(), exc))
	// The void Set reply the TxEngine writes (abi.md section 8).
	g.add("err/msg-type/set-reply", rBadMsgType, accept, new(builder).header(mReply, "Set", g.seq()).stop().b)
	for _, t := range []byte{0, 5, 0xff} {
		msg := g.apacheSet(thrift.CALL, g.seq(), base())
		msg[3] = t
		g.add(fmt.Sprintf("err/msg-type/%d", t), rBadMsgType, accept, msg)
	}
	// The type is checked before the method name.
	g.add("err/msg-type/reply-del", rBadMsgType, accept, new(builder).header(mReply, "Del", g.seq()).stop().b)
}

// methods: only "Set" and "Get", with a name length of exactly 3.
func (g *gen) methods() {
	a := base()
	named := func(name string) []byte {
		b := new(builder).header(mCall, name, g.seq())
		for id := 1; id <= 5; id++ {
			b.setField(id, a)
		}
		return b.stop().b
	}
	for _, tc := range []struct{ case_, name, expect string }{
		{"del", "Del", rUnknownMeth}, {"set-lowercase", "set", rUnknownMeth}, {"SET", "SET", rUnknownMeth},
		{"nul-nul-nul", "\x00\x00\x00", rUnknownMeth}, {"name-len-4", "Sets", rUnknownMeth},
		{"name-len-2", "Se", rUnknownMeth}, {"name-len-0", "", rUnknownMeth},
	} {
		g.add("err/method/"+tc.case_, tc.expect, accept, named(tc.name))
	}
	// Negative name lengths: BAD_LENGTH. A huge positive one is just not 3.
	for _, tc := range []struct {
		case_  string
		n      int32
		expect string
	}{{"name-len--1", -1, rBadLength}, {"name-len-min", -0x8000_0000, rBadLength}, {"name-len-max", 0x7fff_ffff, rUnknownMeth}} {
		b := new(builder).u32(0x8001_0001).i32(tc.n).raw('S', 'e', 't').i32(g.seq())
		g.add("err/method/"+tc.case_, tc.expect, reject, b.setField(1, a).stop().b)
	}
	// The name is checked before the seqid is needed.
	g.add("err/method/del-no-seqid", rUnknownMeth, reject, new(builder).u32(0x8001_0001).bin([]byte("Del")).b)
	// ... but all 3 name bytes are needed.
	g.add("err/method/set-name-truncated", rTruncated, reject, new(builder).u32(0x8001_0001).i32(3).raw('S', 'e').b)
}

// negativeLengths: a negative binary length is BAD_LENGTH, for any field.
func (g *gen) negativeLengths() {
	a := base()
	b := setMsg(g.seq(), a, 1).field(tBinary, 2).i32(-1)
	g.add("err/negative-len/key--1", rBadLength, reject, b.setField(3, a).stop().b)
	b = setMsg(g.seq(), a, 1).field(tBinary, 2).i32(-0x8000_0000)
	g.add("err/negative-len/key-min", rBadLength, reject, b.setField(3, a).stop().b)
	// The key is already in App.Recv when the value fails.
	b = setMsg(g.seq(), a, 1, 2).field(tBinary, 3).i32(-1)
	g.add("err/negative-len/value--1-after-key", rBadLength, reject, b.setField(4, a).stop().b)
	b = setMsg(g.seq(), a, 1, 2, 3).field(tBinary, 9).i32(-5)
	g.add("err/negative-len/unknown-binary--5", rBadLength, reject, b.setField(4, a).stop().b)
	b = setMsg(g.seq(), a, 1).field(tBinary, 2).i32(-1)
	g.add("err/negative-len/key--1-at-end", rBadLength, reject, b.b)
}

// lengthsPastEnd: a binary length larger than the rest of the message is
// TRUNCATED at the first missing byte, before any key or value limit.
func (g *gen) lengthsPastEnd() {
	a := base()
	b := setMsg(g.seq(), a, 1).field(tBinary, 2).i32(1000).raw([]byte("short key")...)
	g.add("err/len-past-end/key-1000", rTruncated, reject, b.setField(3, a).stop().b)
	b = setMsg(g.seq(), a, 1, 2).field(tBinary, 3).i32(0x7fff_ffff).raw(g.rng.Bytes(40)...)
	g.add("err/len-past-end/value-max", rTruncated, reject, b.stop().b)
	b = setMsg(g.seq(), a, 1).field(tBinary, 6).i32(65536).raw(g.rng.Bytes(64)...)
	g.add("err/len-past-end/unknown-65536", rTruncated, reject, b.stop().b)
	// Over the key limit and past the end: TRUNCATED comes first.
	b = setMsg(g.seq(), a, 1).field(tBinary, 2).i32(257).raw(g.rng.Bytes(100)...)
	g.add("err/len-past-end/key-257", rTruncated, reject, b.b)
}

// nested: STRUCT, MAP, SET and LIST fields are rejected at their field
// header, whatever their id; Apache skips them.
func (g *gen) nested() {
	a := base()
	with := func(name, apache string, nestedField func(b *builder)) {
		b := setMsg(g.seq(), a, 1, 2)
		nestedField(b)
		g.add("err/nested/"+name, rNested, apache, b.setField(3, a).setField(4, a).setField(5, a).stop().b)
	}
	with("unknown-struct", accept, func(b *builder) { b.field(tStruct, 6).field(tI32, 1).i32(5).field(tBinary, 2).bin([]byte("in")).stop() })
	with("unknown-empty-struct", accept, func(b *builder) { b.field(tStruct, 6).stop() })
	with("unknown-list-i32", accept, func(b *builder) { b.field(tList, 6).i8(tI32).i32(3).i32(1).i32(2).i32(3) })
	with("unknown-list-empty", accept, func(b *builder) { b.field(tList, 6).i8(tI64).i32(0) })
	with("unknown-set-binary", accept, func(b *builder) { b.field(tSet, 6).i8(tBinary).i32(2).bin([]byte("a")).bin([]byte("bc")) })
	with("unknown-map-binary-i64", accept, func(b *builder) { b.field(tMap, 6).i8(tBinary).i8(tI64).i32(1).bin([]byte("k")).i64(1) })
	with("unknown-struct-depth-3", accept, func(b *builder) {
		b.field(tStruct, 6).field(tStruct, 1).field(tList, 1).i8(tStruct).i32(1).field(tI16, 1).i16(2).stop().stop().stop()
	})
	// Deeper than Apache's limit of 64: Apache rejects; the accelerator
	// stops at the first header either way.
	with("unknown-struct-depth-70", reject, func(b *builder) {
		b.field(tStruct, 6)
		for i := 1; i < 70; i++ {
			b.field(tStruct, 1)
		}
		for i := 0; i < 70; i++ {
			b.stop()
		}
	})
	with("unknown-list-truncated", reject, func(b *builder) { b.field(tList, 6).i8(tI32).i32(1000).i32(1) })
	// Known ids with a nested type.
	for _, tc := range []struct {
		name  string
		field int16
		write func(b *builder)
	}{
		{"key-as-list", 2, func(b *builder) { b.i8(tByte).i32(3).raw('k', 'e', 'y') }},
		{"value-as-struct", 3, func(b *builder) { b.field(tBinary, 3).bin([]byte("v")).stop() }},
		{"req_id-as-map", 1, func(b *builder) { b.i8(tI32).i8(tI64).i32(0) }},
		{"flags-as-set", 4, func(b *builder) { b.i8(tI32).i32(1).i32(4) }},
	} {
		t := map[string]byte{"key-as-list": tList, "value-as-struct": tStruct, "req_id-as-map": tMap, "flags-as-set": tSet}[tc.name]
		b := new(builder).header(mCall, "Set", g.seq())
		for id := int16(1); id <= 5; id++ {
			if id == tc.field {
				b.field(t, id)
				tc.write(b)
				continue
			}
			b.setField(int(id), a)
		}
		g.add("err/nested/"+tc.name, rNested, accept, b.stop().b)
	}
}

// badTypes: a type id that is not a Thrift type. Apache reports it too.
func (g *gen) badTypes() {
	a := base()
	for _, t := range []byte{tVoid, 5, 7, 9, 17, 32, 127, 128, 255} {
		b := setMsg(g.seq(), a, 1, 2).raw(t).i16(6).i64(0)
		g.add(fmt.Sprintf("err/bad-type/%d", t), rBadType, reject, b.setField(3, a).setField(4, a).setField(5, a).stop().b)
	}
	// The field id is needed before the type is judged.
	g.add("err/bad-type/5-without-id", rTruncated, reject, setMsg(g.seq(), a, 1, 2).raw(5, 0).b)
	// Known id, bad type.
	b := setMsg(g.seq(), a, 1).raw(9).i16(2).bin([]byte("key"))
	g.add("err/bad-type/9-as-key", rBadType, reject, b.stop().b)
}

// afterStop: bytes after the closing STOP are ignored by the accelerator;
// Apache's reader leaves them unread (vectors.CheckMessage rejects that).
func (g *gen) afterStop() {
	tail := func(name string, extra []byte) {
		msg := g.apacheSet(thrift.CALL, g.seq(), base())
		g.add("set/after-stop/"+name, rOK, reject, append(msg, extra...))
	}
	tail("zero-byte", []byte{0})
	tail("garbage-16", g.rng.Bytes(16))
	tail("key-field", new(builder).field(tBinary, 2).bin([]byte("not this key")).stop().b)
	tail("second-message", g.apacheSet(thrift.CALL, 0x7777, base()))
}

// random: valid Sets with random field subsets, orders, repeats, unknown
// fields, key lengths 0..256 and value lengths 0..2047.
func (g *gen) random() {
	for i := 0; i < 30; i++ {
		a := &memcached.MemcachedServiceSetArgs{
			ReqID:   int64(g.rng.Next()),
			Key:     g.rng.Bytes(g.rng.Intn(257)),
			Value:   g.rng.Bytes(g.rng.Intn(2048)),
			Flags:   int32(g.rng.Next()),
			Exptime: int32(g.rng.Next()),
		}
		b := new(builder).header(mCall, "Set", g.seq())
		for _, id := range perm(&g.rng, 5) {
			if g.rng.Intn(8) == 0 { // leave the field out
				continue
			}
			if g.rng.Intn(4) == 0 { // an unknown field first
				if g.rng.Intn(2) == 0 {
					ft := fixedTypes[g.rng.Intn(6)] // no UUID: Apache v0.17.0 rejects it
					b.field(ft.t, int16(100+g.rng.Intn(100))).fixedValue(ft.t)
				} else {
					b.field(tBinary, int16(100+g.rng.Intn(100))).bin(g.rng.Bytes(g.rng.Intn(70)))
				}
			}
			b.setField(id, a)
		}
		g.add(fmt.Sprintf("set/random/%02d", i), rOK, accept, b.stop().b)
	}
}
