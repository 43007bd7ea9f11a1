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
			res := golden.Deserialize(r.Msg, make([]byte, (golden.ValueOffset+len(r.Msg)+63)/64*64))
			if r.Set {
				sets++
			}
			if res.Code != golden.CodeOK {
				t.Errorf("%s: request %d (Set %v): reference says %v", m.Name, i, r.Set, res.Code)
			}
		}
		if sets < 150 || sets > 250 {
			t.Errorf("%s: %d Sets of 400, want about half", m.Name, sets)
		}
	}
}
