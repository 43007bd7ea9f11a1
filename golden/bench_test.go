package golden

import (
	"bytes"
	"testing"
)

func BenchmarkDeserialize(b *testing.B) {
	for _, bc := range []struct {
		name       string
		key, value int
	}{
		{"memc-tiny", 8, 8},
		{"memc-small", 16, 32},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := msg().call(1).i64(1, 42).bin(2, bytes.Repeat([]byte{'k'}, bc.key)).
				bin(3, bytes.Repeat([]byte{'v'}, bc.value)).i32(4, 0).i32(5, 0).stop().bytes()
			img := make([]byte, testCap)
			b.ReportAllocs()
			b.SetBytes(int64(len(m)))
			for b.Loop() {
				if r := Deserialize(m, img); r.Code != CodeOK {
					b.Fatalf("Deserialize: %v", r.Code)
				}
			}
		})
	}
}
