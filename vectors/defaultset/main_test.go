package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"arcalis/golden"
	"arcalis/vectors"
)

var update = flag.Bool("update", false, "rewrite ../default.vec")

const committed = "../default.vec"

// TestCommittedSetIsCurrent regenerates the set and compares it byte for byte
// with the committed vectors/default.vec.
func TestCommittedSetIsCurrent(t *testing.T) {
	if *update {
		if err := generate(committed); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "default.vec")
	if err := generate(path); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("regenerated set (%d bytes) differs from %s (%d bytes); run `go generate ./vectors` (or go test -update) and commit it", len(got), committed, len(want))
	}
	if len(want) > 400_000 {
		t.Errorf("%s is %d bytes, over the 400 KB budget", committed, len(want))
	}
}

// TestCommittedSetReads checks the committed file through the public reader:
// size budget, unique case names, and the metadata every case carries.
func TestCommittedSetReads(t *testing.T) {
	recs, err := vectors.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) > 300 {
		t.Errorf("%d records, over the budget of 300", len(recs))
	}
	seen := map[string]bool{}
	for _, rec := range recs {
		if seen[rec.Source] {
			t.Errorf("record %d: duplicate source %q", rec.Index, rec.Source)
		}
		seen[rec.Source] = true
		if !strings.HasPrefix(rec.Source, "set/") && !strings.HasPrefix(rec.Source, "get/") && !strings.HasPrefix(rec.Source, "err/") {
			t.Errorf("record %d: source %q is not under set/, get/ or err/", rec.Index, rec.Source)
		}
		apache, _ := rec.Meta["apache"].(string)
		if perr := vectors.CheckMessage(rec.Msg); (perr == nil) != (apache == accept) {
			t.Errorf("record %d (%s): apache=%q but CheckMessage says %v", rec.Index, rec.Source, apache, perr)
		}
	}
}

// TestExpectMatchesGolden cross-checks each case's stated "expect" with the
// golden reference deserializer, for the capacity the set assumes.
func TestExpectMatchesGolden(t *testing.T) {
	const capacity = 65856 // 320 + 65,536, a multiple of 64
	if err := golden.CheckCapacity(capacity); err != nil {
		t.Fatal(err)
	}
	recs, err := vectors.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	img := make([]byte, capacity)
	counts := map[string]int{}
	for _, rec := range recs {
		expect, _ := rec.Meta["expect"].(string)
		want, err := golden.ParseCode(expect)
		if err != nil {
			t.Errorf("record %d (%s): expect %q: %v", rec.Index, rec.Source, expect, err)
			continue
		}
		counts[expect]++
		if got := golden.Deserialize(rec.Msg, img); got.Code != want {
			t.Errorf("record %d (%s): golden gives %v at offset %d, the case expects %v", rec.Index, rec.Source, got.Code, got.Offset, want)
		}
	}
	t.Logf("expected results: %v", counts)
}
