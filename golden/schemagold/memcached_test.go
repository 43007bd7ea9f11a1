package schemagold_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"arcalis/golden"
	"arcalis/golden/schemagold"
	"arcalis/thriftidl/schema"
	"arcalis/vectors"
)

// TestMemcachedAgreesWithSet checks that the generic path configured for
// MemcachedService decodes what the hand-written Set and Get
// recvFunction's reference (golden.Deserialize, docs/abi.md section 6)
// decodes: on every default vector, its truncations and its bytes flipped
// three ways (each of the first 64, then about 200 spots), both give the same result code, offset, method
// and seqid, and on OK the same arguments (present bits, req_id, key,
// value, flags, exptime). The exceptions are the hand-written engine's
// documented limits (docs/abi.md section 7), where the generic path reads
// on: nested fields (NESTED_UNSUPPORTED), keys over 256 bytes, and UUID
// fields, which golden skips as 16 bytes and Apache Go 0.17.0, so the
// generic path too, rejects (BAD_TYPE at the field header).
func TestMemcachedAgreesWithSet(t *testing.T) {
	tab := serviceNamed("MemcachedService").table(t)
	recs, err := vectors.ReadFile(filepath.Join("..", "..", "vectors", "default.vec"))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	check := func(rec vectors.Record, what string, m []byte) {
		// Images large enough for anything the message holds: each side's
		// capacity limits are not what this test compares.
		gimg := make([]byte, (golden.MinCapacity+len(m)+63)&^63)
		simg := make([]byte, (2*len(m)+1024+63)&^63)
		g := golden.Deserialize(m, gimg)
		s := schemagold.Deserialize(tab, m, simg)
		kind, err := agree(tab, m, g, gimg, s, simg)
		if err != nil {
			t.Fatalf("vectors/default.vec record %d (%s), %s: %v\nmessage % x", rec.Index, rec.Source, what, err, m)
		}
		counts[kind]++
	}
	for _, rec := range recs {
		msg := rec.Msg
		check(rec, "as recorded", msg)
		// The header and the first fields byte by byte, then about 200 spots.
		step := max(1, len(msg)/200)
		for i := 0; i < len(msg); i++ {
			if i >= 64 && i%step != 0 {
				continue
			}
			check(rec, fmt.Sprintf("cut to %d bytes", i), msg[:i])
			for _, x := range []byte{0x01, 0x80, 0xFF} {
				m := bytes.Clone(msg)
				m[i] ^= x
				check(rec, fmt.Sprintf("byte %d ^ %#02x", i, x), m)
			}
		}
	}
	t.Logf("outcomes: %v", counts)
	for _, kind := range []string{"OK", "same error", "nested", "uuid"} {
		if counts[kind] == 0 {
			t.Errorf("no message ended %q: the vectors no longer cover it", kind)
		}
	}
}

// agree compares one message's two results and says which kind of outcome
// it was.
func agree(tab *schema.Table, m []byte, g golden.Result, gimg []byte, s schemagold.Result, simg []byte) (string, error) {
	switch g.Code {
	case golden.CodeNestedUnsupported:
		return "nested", nil
	case golden.CodeKeyTooLong:
		return "long key", nil
	}
	// A UUID field golden skipped, or would have skipped had it got there.
	if s.Code == schemagold.CodeBadType && int(s.Offset) < len(m) && m[s.Offset] == schema.UUID &&
		(g.Code == golden.CodeOK || s.Offset < g.Offset) {
		return "uuid", nil
	}
	if uint8(s.Code) != uint8(g.Code) || s.Offset != g.Offset || s.Method != g.Method || s.SeqID != g.SeqID || s.MsgType != g.MsgType {
		return "", fmt.Errorf("golden %v at %d (method %d, seqid %d, type %d); generic %v at %d (method %d, seqid %d, type %d)",
			g.Code, g.Offset, g.Method, g.SeqID, g.MsgType, s.Code, s.Offset, s.Method, s.SeqID, s.MsgType)
	}
	if g.Code != golden.CodeOK {
		return "same error", nil
	}
	rb, err := schemagold.ReadBack(tab, simg)
	if err != nil {
		return "", fmt.Errorf("generic image does not read back: %v", err)
	}
	args := rb.Args
	type field struct {
		name string
		bit  uint8
		want any
	}
	fields := []field{
		{"req_id", golden.PresentReqID, g.ReqID},
		{"key", golden.PresentKey, string(gimg[golden.KeyOffset : golden.KeyOffset+int(g.KeyLen)])},
	}
	if g.Method == golden.MethodSet { // Get_args has only these two: golden skips fields 3 to 5 of a Get
		fields = append(fields,
			field{"value", golden.PresentValue, string(gimg[golden.ValueOffset : golden.ValueOffset+int(g.ValueLen)])},
			field{"flags", golden.PresentFlags, g.Flags},
			field{"exptime", golden.PresentExptime, g.Exptime})
	}
	for _, f := range fields {
		v, ok := args.Get(f.name)
		if ok != (g.Present&f.bit != 0) {
			return "", fmt.Errorf("%s: generic present %v, golden %v", f.name, ok, !ok)
		}
		if ok && v != f.want {
			return "", fmt.Errorf("%s: generic %#v, golden %#v", f.name, v, f.want)
		}
	}
	return "OK", nil
}
