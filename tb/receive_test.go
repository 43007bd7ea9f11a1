package tb

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"arcalis/golden"
	"arcalis/internal/perm"
	"arcalis/vectors"
)

// Every test here runs the RTL and the reference on the same bytes; expect()
// compares status, result detail, every App.Recv byte and the reply.

func TestFieldOrderPermutations(t *testing.T) {
	on(t, func(t *T) {
		key, value := []byte("permkey!"), pattern(40, 3)
		fields := []func(wire) wire{
			func(w wire) wire { return w.i64(1, 0x0102030405060708) },
			func(w wire) wire { return w.bin(2, key) },
			func(w wire) wire { return w.bin(3, value) },
			func(w wire) wire { return w.i32(4, 0xDEADBEEF) },
			func(w wire) wire { return w.i32(5, 77) },
		}
		orders := perm.All(5)
		if len(orders) != 120 {
			t.Fatalf("%d orders, want 120", len(orders))
		}
		for n, order := range orders {
			t.Run(fmt.Sprint("order", order), func(t *T) {
				w := header("Set", 1, uint32(n))
				for _, i := range order {
					w = fields[i](w)
				}
				r := expect(t, fmt.Sprint("order", order), w.stop(), RunOptions{Offset: n % 64})
				if r.Verdict.Ref.Code != golden.CodeOK || r.Verdict.Ref.Present != 0x1F {
					t.Fatalf("order %v: reference says %s present %#x, want OK with all five fields", order, r.Verdict.Ref.Code, r.Verdict.Ref.Present)
				}
			})
		}
	})
}

func TestSkippedFields(t *testing.T) {
	on(t, func(t *T) {
		base := func() wire { return header("Set", 1, 9).i64(1, 5) }
		cases := map[string]wire{
			"unknown bool":        base().field(2, 6, 1),
			"unknown byte":        base().field(3, 7, 0xFF),
			"unknown double":      base().field(4, 8, 1, 2, 3, 4, 5, 6, 7, 8),
			"unknown i16":         base().field(6, 9, 0x12, 0x34),
			"unknown i32":         base().i32(10, 1),
			"unknown i64":         base().i64(11, 2),
			"unknown binary":      base().bin(12, pattern(100, 1)),
			"unknown uuid":        base().field(16, 13, pattern(16, 9)...),
			"negative id":         base().i32(-1, 4),
			"id 0":                base().i64(0, 4),
			"key as i32":          base().i32(2, 4),
			"value as i64":        base().i64(3, 4),
			"req_id as binary":    base().bin(1, []byte("notanint")),
			"flags as i64":        base().i64(4, 4),
			"exptime as binary":   base().bin(5, pattern(70, 2)),
			"flags as i16":        base().field(6, 4, 0, 1),
			"long skipped binary": base().bin(99, pattern(3000, 5)),
		}
		for i, name := range slices.Sorted(maps.Keys(cases)) {
			t.Run(name, func(t *T) {
				msg := cases[name].bin(2, []byte("k")).bin(3, []byte("v")).stop()
				r := expect(t, name, msg, RunOptions{Offset: i * 5 % 64})
				if r.Verdict.Ref.Code != golden.CodeOK {
					t.Errorf("%s: reference result %s, want OK", name, r.Verdict.Ref.Code)
				}
			})
		}
	})
}

func TestRepeatedFields(t *testing.T) {
	on(t, func(t *T) {
		cases := map[string]wire{
			"shorter second key":   header("Set", 1, 1).bin(2, pattern(200, 1)).bin(2, []byte("short")),
			"shorter second value": header("Set", 1, 2).bin(3, pattern(1000, 2)).bin(3, pattern(10, 3)),
			"longer second value":  header("Set", 1, 3).bin(3, pattern(10, 2)).bin(3, pattern(500, 3)),
			"req_id twice":         header("Set", 1, 4).i64(1, 1).i64(1, 2),
			"everything twice": header("Set", 1, 5).
				i64(1, 1).i32(4, 1).i32(5, 1).bin(2, []byte("k1")).bin(3, []byte("v1")).
				i64(1, 9).i32(4, 9).i32(5, 9).bin(2, []byte("k2")).bin(3, []byte("v2")),
		}
		for _, name := range slices.Sorted(maps.Keys(cases)) {
			t.Run(name, func(t *T) {
				expect(t, name, cases[name].stop(), RunOptions{Offset: 17})
			})
		}
	})
}

func TestMissingFields(t *testing.T) {
	on(t, func(t *T) {
		expect(t, "no fields", header("Set", 1, 1).stop(), RunOptions{Offset: 0})
		expect(t, "only key", header("Set", 1, 2).bin(2, []byte("k")).stop(), RunOptions{Offset: 63})
		expect(t, "only value", header("Set", 4, 3).bin(3, pattern(65, 0)).stop(), RunOptions{Offset: 1})
	})
}

func TestKeyLengths(t *testing.T) {
	on(t, func(t *T) {
		for n := 0; n <= 257; n++ {
			t.Run(fmt.Sprint("key ", n), func(t *T) {
				expect(t, fmt.Sprintf("key %d", n), setMsg(uint32(n), pattern(n, byte(n)), []byte("v")), RunOptions{Offset: n % 64})
			})
		}
	})
}

func TestValueLengths(t *testing.T) {
	on(t, func(t *T) {
		sizes := []int{0, 1, 2, 7, 8, 31, 32, 63, 64, 65, 127, 128, 129, 200, 1000, 4095, 4096, 4097, 20000, 65535, 65536}
		for i, n := range sizes {
			t.Run(fmt.Sprint("value ", n), func(t *T) {
				expect(t, fmt.Sprintf("value %d", n), setMsg(uint32(i), []byte("key"), pattern(n, byte(i))), RunOptions{Offset: (i * 13) % 64})
			})
		}
	})
}

func TestValueCapacity(t *testing.T) {
	on(t, func(t *T) {
		// 6 lines: the value region is 64 bytes.
		expect(t, "value fills the region", setMsg(1, []byte("k"), pattern(64, 1)), RunOptions{CapLines: 6})
		r := expect(t, "value one past the region", setMsg(2, []byte("k"), pattern(65, 1)), RunOptions{CapLines: 6})
		if r.Verdict.Ref.Code != golden.CodeValueTooLong {
			t.Errorf("reference result %s, want VALUE_TOO_LONG", r.Verdict.Ref.Code)
		}
		expect(t, "minimum capacity, empty value", setMsg(3, []byte("k"), nil), RunOptions{CapLines: 5})
		expect(t, "minimum capacity, 1-byte value", setMsg(4, []byte("k"), []byte("v")), RunOptions{CapLines: 5})
	})
}

func TestTruncationEveryByte(t *testing.T) {
	on(t, func(t *T) {
		full := setMsg(42, []byte("truncate-me"), pattern(90, 4))
		for n := 0; n < len(full); n++ {
			t.Run(fmt.Sprint("cut at ", n), func(t *T) {
				r := expect(t, fmt.Sprintf("cut at %d", n), full[:n], RunOptions{Offset: (n * 3) % 64})
				if r.Verdict.Ref.Code != golden.CodeTruncated {
					t.Fatalf("cut at %d: reference says %s, want TRUNCATED", n, r.Verdict.Ref.Code)
				}
			})
		}
	})
}

func TestHeaderErrors(t *testing.T) {
	on(t, func(t *T) {
		set := setMsg(7, []byte("key"), []byte("value"))
		patch := func(at int, b ...byte) wire {
			w := append(wire(nil), set...)
			copy(w[at:], b)
			return w
		}
		cases := []struct {
			name string
			msg  wire
			want golden.Code
		}{
			{"bad version", patch(0, 0x80, 0x02), golden.CodeBadVersion},
			{"non-strict header", append(wire{0, 0, 0, 3}, "Set"...), golden.CodeBadVersion},
			{"version byte 2 set", patch(2, 0x01), golden.CodeBadVersion},
			{"REPLY", patch(3, 2), golden.CodeBadMsgType},
			{"EXCEPTION", patch(3, 3), golden.CodeBadMsgType},
			{"type 0", patch(3, 0), golden.CodeBadMsgType},
			{"ONEWAY", patch(3, 4), golden.CodeOK},
			{"unknown method", patch(8, 'D', 'e', 'l'), golden.CodeUnknownMethod},
			{"lower-case set", patch(8, 's'), golden.CodeUnknownMethod},
			{"name length 4", header("Sets", 1, 1).stop(), golden.CodeUnknownMethod},
			{"name length 0", header("", 1, 1).stop(), golden.CodeUnknownMethod},
			{"negative name length", patch(4, 0xFF, 0xFF, 0xFF, 0xFD), golden.CodeBadLength},
			{"Get", header("Get", 1, 9).i64(1, 1).bin(2, []byte("k")).stop(), golden.CodeOK},
			{"Get oneway", header("Get", 4, 9).stop(), golden.CodeOK},
			{"Get with Set's other fields", header("Get", 1, 9).bin(3, []byte("v")).i32(4, 1).bin(2, []byte("k")).i32(5, 2).stop(), golden.CodeOK},
			{"Get's key too long", header("Get", 1, 9).bin(2, make([]byte, 257)).stop(), golden.CodeKeyTooLong},
		}
		for i, c := range cases {
			t.Run(c.name, func(t *T) {
				r := expect(t, c.name, c.msg, RunOptions{Offset: i * 9 % 64})
				if r.Verdict.Ref.Code != c.want {
					t.Errorf("%s: reference says %s, want %s", c.name, r.Verdict.Ref.Code, c.want)
				}
			})
		}
	})
}

func TestFieldErrors(t *testing.T) {
	on(t, func(t *T) {
		h := func() wire { return header("Set", 1, 3).i64(1, 8) }
		neg := func(id int16) wire { return h().field(11, id, 0xFF, 0xFF, 0xFF, 0xF0) }
		cases := []struct {
			name string
			msg  wire
			want golden.Code
		}{
			{"negative key length", neg(2), golden.CodeBadLength},
			{"negative value length", neg(3), golden.CodeBadLength},
			{"negative skipped length", neg(9), golden.CodeBadLength},
			{"key length past the message", h().field(11, 2, 0, 0, 1, 0, 'a', 'b'), golden.CodeTruncated},
			{"value length 2^31-1", h().field(11, 3, 0x7F, 0xFF, 0xFF, 0xFF, 0), golden.CodeTruncated},
			{"key 257 bytes", h().bin(2, pattern(257, 0)).stop(), golden.CodeKeyTooLong},
			{"struct field", h().field(12, 6, 0).stop(), golden.CodeNestedUnsupported},
			{"map field", h().field(13, 2, 8, 8, 0, 0, 0, 0).stop(), golden.CodeNestedUnsupported},
			{"set field", h().field(14, 7, 8, 0, 0, 0, 0).stop(), golden.CodeNestedUnsupported},
			{"list field", h().field(15, 3, 8, 0, 0, 0, 0).stop(), golden.CodeNestedUnsupported},
			{"type 1", h().field(1, 2).stop(), golden.CodeBadType},
			{"type 5", h().field(5, 2).stop(), golden.CodeBadType},
			{"type 7", h().field(7, 2).stop(), golden.CodeBadType},
			{"type 9", h().field(9, 2).stop(), golden.CodeBadType},
			{"type 17", h().field(17, 2).stop(), golden.CodeBadType},
			{"type 255", h().field(255, 2).stop(), golden.CodeBadType},
			{"no STOP", h(), golden.CodeTruncated},
			{"bytes after STOP", h().stop().i64(1, 9), golden.CodeOK},
		}
		for i, c := range cases {
			t.Run(c.name, func(t *T) {
				r := expect(t, c.name, c.msg, RunOptions{Offset: 60 - i})
				if r.Verdict.Ref.Code != c.want {
					t.Errorf("%s: reference says %s, want %s", c.name, r.Verdict.Ref.Code, c.want)
				}
			})
		}
		big := make([]byte, golden.MaxMessage+1)
		copy(big, setMsg(1, []byte("k"), []byte("v")))
		loads := dut.Mem.LoadCount
		r := expect(t, "message over MaxFrameSize", big, RunOptions{Offset: 0})
		if r.Verdict.Ref.Code != golden.CodeMsgTooLarge {
			t.Errorf("reference says %s, want MSG_TOO_LARGE", r.Verdict.Ref.Code)
		}
		if n := dut.Mem.LoadCount - loads; n != 0 {
			t.Errorf("engine loaded %d lines of a message it must refuse unread", n)
		}
	})
}

// After each kind of error the engine must take the next request as if
// nothing had happened.
func TestValidAfterEachError(t *testing.T) {
	on(t, func(t *T) {
		bad := map[string]wire{
			"truncated":   setMsg(1, []byte("k"), pattern(100, 1))[:50],
			"bad version": append(wire{0x80, 0x02}, setMsg(1, nil, nil)[2:]...),
			"reply":       header("Set", 2, 1).stop(),
			"method":      header("Put", 1, 1).stop(),
			"bad length":  header("Set", 1, 1).field(11, 3, 0x80, 0, 0, 0),
			"bad type":    header("Set", 1, 1).field(20, 3),
			"nested":      header("Set", 1, 1).field(15, 3, 11, 0, 0, 0, 1),
			"key long":    header("Set", 1, 1).bin(2, pattern(300, 1)).stop(),
			"value long":  header("Set", 1, 1).bin(3, pattern(65537, 1)).stop(),
			"get":         header("Get", 1, 1).stop(),
		}
		good := setMsg(99, []byte("after"), pattern(130, 9))
		for _, name := range slices.Sorted(maps.Keys(bad)) {
			t.Run(name, func(t *T) {
				expect(t, name, bad[name], RunOptions{Offset: 5})
				r := expect(t, "valid after "+name, good, RunOptions{Offset: 33})
				if r.Verdict.Ref.Code != golden.CodeOK {
					t.Fatalf("reference says %s for the valid request", r.Verdict.Ref.Code)
				}
			})
		}
	})
}

func TestStartOffsets(t *testing.T) {
	on(t, func(t *T) {
		msg := setMsg(3, pattern(16, 1), pattern(200, 2))
		for off := 0; off < 64; off++ {
			t.Run(fmt.Sprint("offset ", off), func(t *T) {
				expect(t, fmt.Sprintf("offset %d", off), msg, RunOptions{Offset: off})
			})
		}
	})
}

func TestBackToBack(t *testing.T) {
	on(t, func(t *T) {
		for i := 0; i < 40; i++ {
			msg := setMsg(uint32(i), pattern(i%20, byte(i)), pattern((i*37)%300, byte(i)))
			if i%3 == 0 {
				msg[3] = 4 // ONEWAY: no reply between requests
			}
			expect(t, fmt.Sprintf("request %d", i), msg, RunOptions{Offset: i % 64})
		}
	})
}

func TestMemoryTiming(t *testing.T) {
	on(t, func(t *T) {
		msg := setMsg(8, pattern(250, 3), pattern(5000, 4))
		for _, cfg := range []MemConfig{
			{Latency: 0},
			{Latency: 1},
			{Latency: 30},
			{Latency: 200},
			{Latency: 3, MaxStall: 20, Seed: 4},
			{Latency: 2, Backpressure: 0.5, Seed: 5},
			{Latency: 10, MaxStall: 40, Reorder: true, Seed: 6},
			{Latency: 0, Backpressure: 0.9, Reorder: true, Seed: 7},
		} {
			t.Run(memName(cfg), func(t *T) {
				withMem(t, cfg, func() {
					expect(t, memName(cfg), msg, RunOptions{Offset: 11})
				})
			})
		}
	})
}

// The committed default vectors, each at the start offset its index gives.
func TestDefaultVectors(t *testing.T) {
	on(t, func(t *T) {
		recs, err := vectors.ReadFile("../vectors/default.vec")
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs {
			t.Run(fmt.Sprint("record ", rec.Index), func(t *T) {
				r := dut.RunVector(rec.Index, rec.Source, rec.Msg, RunOptions{Offset: -1})
				if !r.OK() {
					t.Errorf("record %d (%s): %v %v", rec.Index, rec.Source, r.Err, r.Verdict.Diffs)
				}
			})
		}
	})
}

// A failing vector's replay writes an FST waveform (RunVector does this when
// the verdict is a mismatch; here the replay is called directly).
func TestReplayWaveform(t *testing.T) {
	on(t, func(t *T) {
		path := filepath.Join(t.TempDir(), "w", "vector-7.fst")
		req := Request{Msg: setMsg(7, []byte("wave"), pattern(200, 1)), Offset: 9}
		if err := dut.replay(7, req, path); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// An FST file starts with its header block (type 0) of 329 bytes.
		if len(b) < 330 || b[0] != 0 || binary.BigEndian.Uint64(b[1:]) != 329 {
			t.Fatalf("%s: %d bytes, not an FST file", path, len(b))
		}
		expect(t, "after the replay", setMsg(8, []byte("k"), nil), RunOptions{Offset: 0})
	})
}

// TestImagesLastThroughNextRequest: an Outcome's App.Recv images live in
// buffers the memory reuses, but stay as they were through the next request,
// whether App.Recv keeps its size (Before is then the last Image) or not.
func TestImagesLastThroughNextRequest(t *testing.T) {
	on(t, func(t *T) {
		for _, capLines := range []int{0, 40} { // 0: sized to each message
			t.Run(fmt.Sprint("capacity ", capLines), func(t *T) {
				freshEngine(t)
				// Large requests first, so that every buffer is big enough to be
				// used again (a buffer too small is replaced, not overwritten).
				for i := 0; i < 4; i++ {
					if _, err := dut.Receive(Request{Msg: setMsg(99, pattern(8, 1), pattern(4000+i, 2))}); err != nil {
						t.Fatal(err)
					}
				}
				var prev Outcome
				var before, image []byte
				for i := 0; i < 6; i++ {
					o, err := dut.Receive(Request{Msg: setMsg(uint32(i), pattern(8+i, byte(i)), pattern(300*i, byte(i+1))), CapLines: capLines})
					if err != nil {
						t.Fatal(err)
					}
					if i > 0 && (!bytes.Equal(prev.Before, before) || !bytes.Equal(prev.Image, image)) {
						t.Fatalf("capacity %d: request %d changed request %d's images", capLines, i, i-1)
					}
					if i > 0 && capLines > 0 && !bytes.Equal(o.Before, image) {
						t.Fatalf("capacity %d: request %d's Before is not the image request %d left", capLines, i, i-1)
					}
					prev, before, image = o, bytes.Clone(o.Before), bytes.Clone(o.Image)
				}
			})
		}
	})
}

// TestLineAddressCarry puts messages and App.Recv regions across a 16 MiB
// boundary (2**18 lines), where the engines' line counters carry from their
// low part into their high part (the load queue's next line, the RxEngine's
// App.Recv line: docs/abi.md section 9), and across the boundaries where
// the high part's plus-one (worked out in three parts, rtl/rx_engine.sv)
// carries from one part into the next (2**38 and 2**51 bytes; App.Recv
// lies below 2**50).
func TestLineAddressCarry(t *testing.T) {
	on(t, func(t *T) {
		n := 0
		for _, boundary := range []uint64{1 << 24, 1 << 38, 1 << 51} {
			for _, linesBefore := range []uint64{1, 2, 3, 4, 5, 8} {
				for _, valueLen := range []int{0, 40, 200, 700} {
					for _, offset := range []int{0, 17, 63} {
						if boundary != 1<<24 && (offset != 17 || valueLen == 0) {
							continue // the part carries: a few placements each
						}
						n++
						msg := header("Set", 1, uint32(n)).i64(1, uint64(n)).bin(2, []byte("carry")).
							bin(3, pattern(valueLen, byte(n))).i32(4, 7).i32(5, 9).stop()
						for _, base := range []struct {
							what     string
							net, app uint64
						}{
							{"Net.Recv", boundary - linesBefore*LineSize, 0},
							{"App.Recv", 0, boundary - linesBefore*LineSize},
						} {
							if base.app>>50 != 0 {
								continue // App.Recv lines are 44 bits (CMD_APP_READY_FLAG)
							}
							name := fmt.Sprintf("%s %d lines below %#x, value %d, offset %d", base.what, linesBefore, boundary, valueLen, offset)
							r := expect(t, name, msg, RunOptions{Offset: offset, NetBase: base.net, AppBase: base.app})
							if r.Verdict.Ref.Code != golden.CodeOK {
								t.Fatalf("%s: the reference says %s, want OK", name, r.Verdict.Ref.Code)
							}
						}
					}
				}
			}
		}
	})
}
