package golden

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"
)

// FuzzApache compares Deserialize with Apache Thrift's generated Go code for
// Set and Get (read with strict-read off, as a default Apache server does) on
// every input: the second fuzz target of issue 6.
//
// When Apache decodes a message, Deserialize must return OK with the same
// values, image and bytes consumed, unless the message meets one of the
// divergences of docs/abi.md section 7, in which case it must return that
// divergence's code: a non-strict header or a strict one with bits [15:8]
// set is BAD_VERSION, a message type other than CALL and ONEWAY is
// BAD_MSG_TYPE, and a method other than Set and Get UNKNOWN_METHOD (these
// at the header's offsets, first match in that order), and a nested field, a key over 256 bytes or a value over the value
// region is NESTED_UNSUPPORTED, KEY_TOO_LONG or VALUE_TOO_LONG (whichever
// comes first in the message). When Apache fails, Deserialize may return OK
// only for the UUID divergence (Apache 0.17.0 does not know type 16).
// Messages over MaxMessage are too big to fuzz; TestApacheDivergences has one.
//
// lines%64 + 5 is the App.Recv capacity in lines. With $ARCALIS_FUZZ_TALLY
// set, each process counts its inputs by divergence into a file there.
func FuzzApache(f *testing.F) {
	big := make([]byte, 300)
	for i := range big {
		big[i] = 'k'
	}
	seeds := [][]byte{
		nil,
		canonical().bytes(),
		msg().raw(be32(3)...).raw('S', 'e', 't', MsgCall).raw(be32(9)...).i64(1, 5).stop().bytes(),
		msg().head(0x80010101, "Set", 9).i64(1, 5).stop().bytes(),
		msg().head(0x80010002, "Set", 9).i64(1, 5).stop().bytes(),
		msg().head(0x80010001, "Get", 9).bin(2, testKey).stop().bytes(),
		msg().head(0x80010001, "Del", 9).i64(1, 5).stop().bytes(),
		msg().head(0x80010001, "Sets", 9).stop().bytes(),
		msg().call(9).field(typeStruct, 9).raw(typeI64, 0, 1, 0, 0, 0, 0, 0, 0, 0, 7, typeStop).i64(1, 5).stop().bytes(),
		msg().call(9).field(typeList, 2).raw(typeByte, 0, 0, 0, 2, 'h', 'i').i64(1, 5).stop().bytes(),
		msg().call(9).field(typeMap, -4).raw(typeI16, typeBool, 0, 0, 0, 1, 0, 3, 1).stop().bytes(),
		msg().call(9).field(typeSet, 3).raw(typeI32, 0, 0, 0, 0).stop().bytes(),
		msg().call(9).bin(2, big[:257]).stop().bytes(),
		msg().call(9).bin(3, big[:65]).stop().bytes(),
		msg().call(9).i64(1, 5).stop().raw(0xDE, 0xAD).bytes(),
		msg().call(9).fixed(typeUUID, 9, 16).i64(1, 5).stop().bytes(),
	}
	for i, s := range seeds {
		f.Add(s, uint8(i))
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 200 {
		m := randomSet(rng)
		if i%2 == 1 {
			m = mutate(rng, m)
		}
		f.Add(m, uint8(rng.Uint32()))
	}

	f.Cleanup(flushApache)
	f.Fuzz(func(t *testing.T, m []byte, lines uint8) {
		c := MinCapacity + int(lines%64)*64
		r, img := run(m, c)
		d, err := apacheDecode(m, false)
		kind := apacheCompare(t, m, c, r, img, d, err)
		countApache(kind)
	})
}

// apacheCompare checks one message by the rules of FuzzApache and returns
// the name of the case it fell in.
func apacheCompare(t *testing.T, m []byte, c int, r Result, img []byte, d decoded, err error) string {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("C=%d, message % x: %s", c, m, fmt.Sprintf(format, args...))
	}
	if err != nil {
		if r.Code == CodeOK {
			if !isUUIDDivergence(err) {
				fail("Deserialize says OK at %d; Apache fails: %v", r.Offset, err)
			}
			return "UUID field: Apache fails, golden OK"
		}
		return "both reject"
	}

	// Apache decoded the message. The header divergences, in section 5's order.
	type want struct {
		kind string
		code Code
		off  uint32
	}
	var head *want
	strict := len(m) >= 2 && m[0] == 0x80 && m[1] == 0x01
	switch {
	case !strict:
		head = &want{"non-strict header", CodeBadVersion, 0}
	case m[2] != 0:
		head = &want{"version bits 15:8 set", CodeBadVersion, 0}
	case d.typ != thrift.CALL && d.typ != thrift.ONEWAY:
		head = &want{"message type not CALL or ONEWAY", CodeBadMsgType, 0}
	case d.name != "Set" && d.name != "Get" && len(d.name) != 3:
		head = &want{"other method", CodeUnknownMethod, 4}
	case d.name != "Set" && d.name != "Get":
		head = &want{"other method", CodeUnknownMethod, 8}
	}
	if head != nil {
		if r.Code != head.code || r.Offset != head.off {
			fail("Apache decodes it (%+v); divergence %q: want %v at %d, Deserialize says %v at %d",
				d, head.kind, head.code, head.off, r.Code, r.Offset)
		}
		return head.kind
	}

	// A Set or Get: the field divergences, whichever comes first.
	fields := map[Code]string{}
	if d.nested {
		fields[CodeNestedUnsupported] = "nested field"
	}
	if d.maxKey > KeyMax {
		fields[CodeKeyTooLong] = "key over 256 bytes"
	}
	if d.maxValue > c-ValueOffset {
		fields[CodeValueTooLong] = "value over the value region"
	}
	if len(fields) > 0 {
		kind, ok := fields[r.Code]
		if !ok {
			fail("Apache decodes it (%+v); divergences %v, Deserialize says %v at %d", d, fields, r.Code, r.Offset)
		}
		return kind
	}
	if r.Code != CodeOK {
		fail("Apache decodes it (%+v) within the documented limits; Deserialize says %v at %d", d, r.Code, r.Offset)
	}
	checkAgree(t, d, r, img)
	if int(r.Offset) < len(m) {
		return "both OK, bytes after the STOP"
	}
	return "both OK, same values"
}

// apacheTally counts one process's inputs by case, for reports/fuzz.md.
var apacheTally = struct {
	counts  map[string]int
	flushed time.Time
}{counts: map[string]int{}}

// countApache adds one input of the given case to the tally and, at most once a
// second, replaces $ARCALIS_FUZZ_TALLY/apache-PID.txt with one
// "key<TAB>count" line per counter.
func countApache(kind string) {
	ft := &apacheTally
	ft.counts["inputs"]++
	ft.counts["case "+kind]++
	if time.Since(ft.flushed) >= time.Second {
		ft.flushed = time.Now()
		flushApache()
	}
}

func flushApache() {
	dir := os.Getenv("ARCALIS_FUZZ_TALLY")
	if dir == "" {
		return
	}
	var b strings.Builder
	for k, n := range apacheTally.counts {
		fmt.Fprintf(&b, "%s\t%d\n", k, n)
	}
	file := fmt.Sprintf("apache-%d.txt", os.Getpid())
	tmp := filepath.Join(dir, "."+file)
	if os.WriteFile(tmp, []byte(b.String()), 0o644) == nil {
		os.Rename(tmp, filepath.Join(dir, file))
	}
}
