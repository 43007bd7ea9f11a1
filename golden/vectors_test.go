package golden_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"arcalis/golden"
	"arcalis/vectors"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current reference")

// expected is one vector's reference output as kept in a golden file.
type expected struct {
	Index    int    `json:"index"`
	Source   string `json:"source"`
	Code     string `json:"code"`
	Offset   uint32 `json:"offset"`
	MsgType  uint8  `json:"msg_type"`
	Method   uint8  `json:"method"`
	Present  uint8  `json:"present"`
	SeqID    int32  `json:"seqid"`
	ReqID    int64  `json:"req_id"`
	Flags    int32  `json:"flags"`
	Exptime  int32  `json:"exptime"`
	Key      string `json:"key_hex"`
	ValueLen uint32 `json:"value_len"`
	Image    string `json:"image_sha256"` // App.Recv of goldenCap bytes, zero before
}

// goldenCap is the App.Recv capacity the golden files assume: a 64 KiB value fits.
const goldenCap = 1030 * 64

// TestCommittedVectors checks the reference against the expected outputs of
// vectors/default.vec kept in testdata/default.golden (go test ./golden -update
// rewrites them, and the diff shows what changed).
func TestCommittedVectors(t *testing.T) {
	recs, err := vectors.ReadFile("../vectors/default.vec")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, rec := range recs {
		img := make([]byte, goldenCap)
		r := golden.Deserialize(rec.Msg, img)
		sum := sha256.Sum256(img)
		e := expected{
			Index: rec.Index, Source: rec.Source, Code: r.Code.String(), Offset: r.Offset,
			MsgType: r.MsgType, Method: r.Method, Present: r.Present, SeqID: r.SeqID,
			ReqID: r.ReqID, Flags: r.Flags, Exptime: r.Exptime, ValueLen: r.ValueLen,
			Key:   hex.EncodeToString(img[golden.KeyOffset : golden.KeyOffset+int(min(r.KeyLen, golden.KeyMax))]),
			Image: hex.EncodeToString(sum[:]),
		}
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	const path = "testdata/default.golden"
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with go test ./golden -update)", err)
	}
	got := bytes.Split(buf.Bytes(), []byte("\n"))
	wantLines := bytes.Split(want, []byte("\n"))
	if len(got) != len(wantLines) {
		t.Fatalf("%s has %d lines, the reference gives %d", path, len(wantLines), len(got))
	}
	for i := range got {
		if !bytes.Equal(got[i], wantLines[i]) {
			t.Errorf("%s line %d:\n got  %s\n want %s", path, i+1, got[i], wantLines[i])
		}
	}
}
