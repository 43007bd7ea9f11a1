package schemahdr

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"arcalis/golden/schemagold"
	"arcalis/thriftidl/schema"
	"arcalis/vectors"
)

// Message is one message the harness checks.
type Message struct {
	N      int    // its index in the case's list: SCHEMAHDR_MSG selects it
	Source string // where it came from: vector file and record, or generator and what it changed
	// Msg is the message; of a Big one only its first bytes, the rest
	// being zero up to BigLen.
	Msg []byte
	Big bool // BigLen bytes long: big_i is set, rem_i saturated
}

// BigLen is a big message's length: one byte past schemagold.MaxMessage.
const BigLen = schemagold.MaxMessage + 1

// genSeed seeds the generators, per method: rand.NewPCG(genSeed, method
// index). Fixed, so that a message's number names the same bytes on every
// run.
const genSeed = 0x6864_7268_6472

// Message types and the version word's top half.
const (
	typeCall   = 1
	typeOneway = 4
	version1   = 0x8001_0000
)

// header is a message header: version word, name length, name, seqid,
// then tail (args, or anything).
func header(ver, nameLen uint32, name []byte, seqID uint32, tail []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, ver)
	b = binary.BigEndian.AppendUint32(b, nameLen)
	b = append(b, name...)
	b = binary.BigEndian.AppendUint32(b, seqID)
	return append(b, tail...)
}

// Messages lists a case's messages: each record of the default vectors
// (file names them), then, per method, headers generated around the rules
// of docs/abi.md section 5, then the big messages. The list depends on the
// service only, not on the width.
func Messages(file string, t *schema.Table, recs []vectors.Record) []Message {
	var out []Message
	add := func(src string, msg []byte, big bool) {
		out = append(out, Message{N: len(out), Source: src, Msg: msg, Big: big})
	}
	for _, r := range recs {
		add(fmt.Sprintf("%s record %d (%s)", file, r.Index, r.Source), r.Msg, false)
	}
	for i, m := range t.Methods {
		g := &gen{t: t, name: []byte(m.Name), rng: rand.New(rand.NewPCG(genSeed, uint64(i))), add: func(src string, msg []byte) {
			add(fmt.Sprintf("%s (PCG seed %#x,%d)", src, genSeed, i), msg, false)
		}}
		g.good()
		g.names()
		g.lengths()
		g.versions(i == 0)
	}
	// A big message's header is good, or bad from its first byte on, or
	// bad at the name: MSG_TOO_LARGE comes before each.
	if len(t.Methods) > 0 {
		name := []byte(t.Methods[0].Name)
		l := uint32(len(name))
		for _, v := range []struct {
			what string
			msg  []byte
		}{
			{"a CALL of " + string(name), header(version1|typeCall, l, name, 1, nil)},
			{"version byte 0 0x00", header(0x0001_0000|typeCall, l, name, 1, nil)},
			{"name length -1", header(version1|typeCall, 0xFFFF_FFFF, name, 1, nil)},
			{"an unknown name", header(version1|typeCall, l, flip(name, 0, 0x20), 1, nil)},
		} {
			add(fmt.Sprintf("%d bytes, %s (Msg is its first bytes, zeros after)", BigLen, v.what), v.msg, true)
		}
	}
	return out
}

// gen makes one method's header variants.
type gen struct {
	t    *schema.Table
	name []byte
	rng  *rand.Rand
	add  func(src string, msg []byte)
}

// tail is what follows a header: some bytes of args (random), most of the
// time, so that taking past the header shows.
func (g *gen) tail() []byte {
	n := 0
	if g.rng.IntN(8) != 0 {
		n = 1 + g.rng.IntN(80)
	}
	b := make([]byte, n)
	for k := range b {
		b[k] = byte(g.rng.Uint32())
	}
	return b
}

// seqID is a random seqid, now and then one with the top bit set.
func (g *gen) seqID() uint32 {
	v := g.rng.Uint32()
	if g.rng.IntN(2) == 0 {
		v &^= 1 << 31
	}
	return v
}

// cuts adds every prefix of msg from from bytes up to to (exclusive).
func (g *gen) cuts(what string, msg []byte, from, to int) {
	for k := from; k < min(to, len(msg)); k++ {
		g.add(fmt.Sprintf("%s cut to %d bytes", what, k), msg[:k])
	}
}

// good adds good headers (CALL and ONEWAY, seqids of every sign) and
// every prefix of one, cut at each place of the header.
func (g *gen) good() {
	l := uint32(len(g.name))
	for _, s := range []uint32{0, 0xFFFF_FFFF, 0x8000_0000, 0x7FFF_FFFF, g.seqID()} {
		g.add(fmt.Sprintf("a CALL of %s, seqid %d", g.name, int32(s)), header(version1|typeCall, l, g.name, s, g.tail()))
	}
	g.add(fmt.Sprintf("a ONEWAY of %s", g.name), header(version1|typeOneway, l, g.name, g.seqID(), g.tail()))
	g.add(fmt.Sprintf("a CALL of %s and nothing after", g.name), header(version1|typeCall, l, g.name, g.seqID(), nil))
	whole := header(version1|typeCall, l, g.name, g.seqID(), nil)
	g.cuts(fmt.Sprintf("a CALL of %s", g.name), whole, 0, len(whole))
}

// names adds headers whose name differs from the method's: each byte
// changed, the name cut or extended by a byte (with its length), and the
// names of the other methods fitted to this one's length and the other
// way round, so that a name that is another's prefix or extension
// (ReadPost, ReadPosts) is compared whole.
func (g *gen) names() {
	l := len(g.name)
	for k := range l {
		for _, x := range []byte{0x20, 0x80, byte(1 + g.rng.IntN(255))} {
			n := flip(g.name, k, x)
			g.add(fmt.Sprintf("%s with name byte %d %#02x -> %#02x", g.name, k, g.name[k], n[k]),
				header(version1|typeCall, uint32(l), n, g.seqID(), g.tail()))
		}
	}
	variants := [][]byte{append(g.name[:l:l], 's'), append(g.name[:l:l], g.name[l-1])}
	if l > 1 {
		variants = append(variants, g.name[:l-1])
	}
	for _, o := range g.t.Methods {
		if o.Name == string(g.name) {
			continue
		}
		other := []byte(o.Name)
		variants = append(variants, fit(other, g.name), fit(g.name, other))
	}
	for _, n := range variants {
		g.add(fmt.Sprintf("name %q (method %s)", n, g.name), header(version1|typeCall, uint32(len(n)), n, g.seqID(), g.tail()))
	}
	// A bad name of a used length: UNKNOWN_METHOD at 8 comes before a
	// seqid cut short, TRUNCATED at 8 before it.
	bad := header(version1|typeCall, uint32(l), flip(g.name, l-1, 0x01), g.seqID(), nil)
	g.cuts(fmt.Sprintf("%s with its last name byte changed", g.name), bad, 8, len(bad))
}

// fit is a cut to b's length, or a followed by b's bytes past a's length.
func fit(a, b []byte) []byte {
	if len(a) >= len(b) {
		return a[:len(b):len(b)]
	}
	return append(a[:len(a):len(a)], b[len(a):]...)
}

// flip is name with byte k xor x.
func flip(name []byte, k int, x byte) []byte {
	n := append([]byte(nil), name...)
	n[k] ^= x
	return n
}

// lengths adds headers with the method's name but another name length:
// off by one, 0, negative, huge, and lengths that match the name's in
// their low 8, 16 or 24 bits only.
func (g *gen) lengths() {
	l := uint32(len(g.name))
	for _, v := range []uint32{l - 1, l + 1, 0, 0x8000_0000, 0xFFFF_FFFF, 0x8000_0000 | l, 0x7FFF_FFFF,
		schemagold.MaxMessage, 1<<8 | l, 1<<16 | l, 1<<24 | l} {
		g.add(fmt.Sprintf("%s with name length %d", g.name, int32(v)), header(version1|typeCall, v, g.name, g.seqID(), g.tail()))
	}
	// BAD_LENGTH and UNKNOWN_METHOD at 4 come before a name cut short.
	for _, v := range []uint32{0xFFFF_FFFF, l + 1} {
		msg := header(version1|typeCall, v, g.name, g.seqID(), nil)
		g.cuts(fmt.Sprintf("%s with name length %d", g.name, int32(v)), msg, 4, 10)
	}
}

// versions adds headers with a bad version (each of bytes 0 to 2 wrong)
// and every message type: all 256 if all, else a sample; and their
// prefixes, where TRUNCATED at 0 comes before BAD_VERSION and
// BAD_MSG_TYPE before TRUNCATED at 4.
func (g *gen) versions(all bool) {
	l := uint32(len(g.name))
	for _, bad := range []struct {
		k int
		v []byte
	}{{0, []byte{0x00, 0x01, 0x7F, 0x81, 0xC0, 0xFF}}, {1, []byte{0x00, 0x02, 0x11, 0x81}}, {2, []byte{0x01, 0x80, 0xFF}}} {
		for _, v := range bad.v {
			msg := header(version1|typeCall, l, g.name, g.seqID(), g.tail())
			msg[bad.k] = v
			g.add(fmt.Sprintf("%s with version byte %d %#02x", g.name, bad.k, v), msg)
		}
	}
	types := []int{0, 2, 3, 5, 0x41, 0x81, 0xFF}
	if all {
		types = nil
		for v := range 256 {
			if v != typeCall && v != typeOneway { // good() has them
				types = append(types, v)
			}
		}
	}
	for _, v := range types {
		g.add(fmt.Sprintf("%s with message type %d", g.name, v), header(version1|uint32(v), l, g.name, g.seqID(), g.tail()))
	}
	badVer := header(0x8002_0000|typeCall, l, g.name, g.seqID(), nil)
	g.cuts(fmt.Sprintf("%s with version 0x8002", g.name), badVer, 1, 5)
	badType := header(version1|3, l, g.name, g.seqID(), nil)
	g.cuts(fmt.Sprintf("%s with message type 3", g.name), badType, 4, 9)
}
