package workload

import (
	"bytes"
	"testing"

	"arcalis/golden"
)

func TestSetOfSize(t *testing.T) {
	img := make([]byte, 1030*64)
	for _, size := range []int{MinSetSize, 64, 65, 127, 128, 4096, 65536, MinSetSize + MaxValue} {
		msg, err := SetOfSize(size, 7)
		if err != nil {
			t.Fatalf("SetOfSize(%d): %v", size, err)
		}
		if len(msg) != size {
			t.Errorf("SetOfSize(%d) is %d bytes", size, len(msg))
		}
		r := golden.Deserialize(msg, img)
		if r.Code != golden.CodeOK || r.KeyLen != 8 || int(r.ValueLen) != size-MinSetSize || r.Offset != uint32(size) {
			t.Errorf("SetOfSize(%d): reference reads %+v", size, r)
		}
	}
	for _, size := range []int{0, MinSetSize - 1, MinSetSize + MaxValue + 1} {
		if _, err := SetOfSize(size, 1); err == nil {
			t.Errorf("SetOfSize(%d) succeeded", size)
		}
	}
}

func TestMixes(t *testing.T) {
	img := make([]byte, 1030*64)
	for _, m := range Mixes {
		a, err := m.Generate(400, 9)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := m.Generate(400, 9)
		sets := 0
		for i, r := range a {
			if !bytes.Equal(r.Msg, b[i].Msg) {
				t.Fatalf("%s: request %d differs between two runs with the same seed", m.Name, i)
			}
			if r.Offset != i%64 {
				t.Errorf("%s: request %d at offset %d", m.Name, i, r.Offset)
			}
			res := golden.Deserialize(r.Msg, img)
			want := golden.CodePassToSW
			if r.Set {
				want = golden.CodeOK
				sets++
				if int(res.KeyLen) != r.Key || int(res.ValueLen) != r.Value {
					t.Errorf("%s: request %d: key %d value %d, reference reads %d and %d", m.Name, i, r.Key, r.Value, res.KeyLen, res.ValueLen)
				}
			}
			if res.Code != want {
				t.Errorf("%s: request %d (Set %v): reference says %v", m.Name, i, r.Set, res.Code)
			}
			if r.Key < 1 || r.Key > MaxKey || r.Value < 0 || r.Value > MaxValue {
				t.Errorf("%s: request %d: key %d, value %d out of range", m.Name, i, r.Key, r.Value)
			}
		}
		if sets < 150 || sets > 250 {
			t.Errorf("%s: %d Sets of 400, want about half", m.Name, sets)
		}
	}
}

// TestETCSizes checks the ETC draws against the distributions' medians:
// GEV(30.7984, 8.20449, 0.078688) has median mu + sigma((ln 2)^-xi - 1)/xi
// = 33.85, GPD(0, 214.476, 0.348238) has median sigma(2^xi - 1)/xi = 168.5.
func TestETCSizes(t *testing.T) {
	m, err := MixByName("etc")
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := m.Generate(4000, 1)
	if err != nil {
		t.Fatal(err)
	}
	var keys, values []int
	for _, r := range reqs {
		keys = append(keys, r.Key)
		if r.Set {
			values = append(values, r.Value)
		}
	}
	for _, c := range []struct {
		name   string
		xs     []int
		lo, hi int
	}{{"key", keys, 32, 36}, {"value", values, 150, 190}} {
		below := 0
		for _, x := range c.xs {
			if x < c.lo {
				below++
			}
		}
		above := 0
		for _, x := range c.xs {
			if x > c.hi {
				above++
			}
		}
		if 2*below > len(c.xs) || 2*above > len(c.xs) {
			t.Errorf("%s sizes: %d of %d below %d, %d above %d: median outside [%d, %d]", c.name, below, len(c.xs), c.lo, above, c.hi, c.lo, c.hi)
		}
	}
	if _, err := MixByName("nope"); err == nil {
		t.Error("MixByName(nope) succeeded")
	}
}
