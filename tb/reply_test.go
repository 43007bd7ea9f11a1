package tb

import (
	"errors"
	"fmt"
	"strings"

	"testing"

	"arcalis/golden"
)

// The TxEngine's respFunction (docs/abi.md section 11): every reply is
// compared byte for byte with golden.WriteReply on the same App.Resp image
// (the scoreboard), and nothing is written past it.

// gives returns an application that gives img whatever the request.
func gives(img []byte) Application { return func([]byte) []byte { return img } }

// appResp builds an App.Resp image, failing the test on an error.
func appResp(t *T, method uint8, value []byte, appErr error) []byte {
	t.Helper()
	img, err := golden.BuildAppResp(method, value, appErr)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func getMsg(seqid uint32, key []byte) []byte {
	return header("Get", 1, seqid).i64(1, 7).bin(2, key).stop()
}

// TestReplyShapes: Set's void reply and application error, Get's value of
// every length around the chunk and line sizes (so the data starts and ends
// at every place in a chunk), its NULL and its error, framed and not, at
// several start offsets of the request.
func TestReplyShapes(t *testing.T) {
	on(t, func(t *T) {
		set := setMsg(41, []byte("key"), []byte("value"))
		get := getMsg(42, []byte("key"))
		lengths := []int{0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 41, 42, 43, 63, 64, 65, 100, 127, 128, 129, 200, 1000, 4096}
		for _, framed := range []bool{false, true} {
			for i, n := range lengths {
				opt := RunOptions{Offset: i % LineSize, Framed: framed}
				opt.App = gives(appResp(t, golden.MethodGet, pattern(n, byte(n)), nil))
				expect(t, fmt.Sprintf("Get value of %d bytes, framed %v", n, framed), get, opt)
				opt.App = gives(appResp(t, golden.MethodGet, nil, errors.New(strings.Repeat("e", n))))
				expect(t, fmt.Sprintf("Get error of %d bytes, framed %v", n, framed), get, opt)
				opt.App = gives(appResp(t, golden.MethodSet, nil, errors.New(strings.Repeat("s", n))))
				expect(t, fmt.Sprintf("Set error of %d bytes, framed %v", n, framed), set, opt)
			}
			opt := RunOptions{Offset: 3, Framed: framed}
			opt.App = gives(appResp(t, golden.MethodGet, nil, nil))
			expect(t, fmt.Sprintf("Get NULL, framed %v", framed), get, opt)
			opt.App = gives(appResp(t, golden.MethodSet, nil, nil))
			expect(t, fmt.Sprintf("Set, framed %v", framed), set, opt)
		}
	})
}

// TestReplyLongest: the longest value and error text (1 MiB), framed.
func TestReplyLongest(t *testing.T) {
	on(t, func(t *T) {
		v := pattern(golden.RespDataMax, 9)
		expect(t, "Get value of 1 MiB", getMsg(1, []byte("k")), RunOptions{Framed: true, App: gives(appResp(t, golden.MethodGet, v, nil))})
		expect(t, "Get error of 1 MiB", getMsg(2, []byte("k")), RunOptions{Framed: true, App: gives(appResp(t, golden.MethodGet, nil, errors.New(string(v))))})
	})
}

// TestReplyBadImages: an App.Resp header line that does not describe a
// reply to the request ends RESP_BAD_IMAGE with the field at fault, and
// nothing is written.
func TestReplyBadImages(t *testing.T) {
	on(t, func(t *T) {
		get := getMsg(5, []byte("k"))
		set := setMsg(6, []byte("k"), []byte("v"))
		edit := func(img []byte, f func([]byte)) []byte { img = append([]byte(nil), img...); f(img); return img }
		value := appResp(t, golden.MethodGet, []byte("abc"), nil)
		cases := []struct {
			name string
			msg  []byte
			img  []byte
		}{
			{"method 0", get, edit(value, func(b []byte) { b[golden.RespMethodOffset] = 0 })},
			{"method Set for a Get", get, edit(value, func(b []byte) { b[golden.RespMethodOffset] = golden.MethodSet })},
			{"method Get for a Set", set, appResp(t, golden.MethodGet, nil, nil)},
			{"method 3", get, edit(value, func(b []byte) { b[golden.RespMethodOffset] = 3 })},
			{"status 0", get, edit(value, func(b []byte) { b[golden.RespStatusOffset] = 0 })},
			{"status 4", get, edit(value, func(b []byte) { b[golden.RespStatusOffset] = 4 })},
			{"NULL for a Set", set, edit(appResp(t, golden.MethodSet, nil, nil), func(b []byte) { b[golden.RespStatusOffset] = golden.RespStatusNull })},
			{"NULL with data", get, edit(value, func(b []byte) { b[golden.RespStatusOffset] = golden.RespStatusNull })},
			{"Set value with data", set, edit(value, func(b []byte) { b[golden.RespMethodOffset] = golden.MethodSet })},
			{"data past the image", get, edit(value, func(b []byte) { b[golden.RespDataLenOffset] = 4 })},
			{"data_len above 1 MiB", get, edit(value, func(b []byte) { b[golden.RespDataLenOffset+2] = 0x10; b[golden.RespDataLenOffset] = 1 })},
			{"data_len 2**32-1", get, edit(value, func(b []byte) { copy(b[golden.RespDataLenOffset:], []byte{0xFF, 0xFF, 0xFF, 0xFF}) })},
		}
		for i, c := range cases {
			r := expect(t, c.name, c.msg, RunOptions{Offset: i, App: gives(c.img)})
			if golden.Code(r.Outcome.ReplyStatus.Result()) != golden.CodeRespBadImage {
				t.Errorf("%s: reply status %s, want RESP_BAD_IMAGE", c.name, golden.Code(r.Outcome.ReplyStatus.Result()))
			}
		}
	})
}

// TestReplyCapacity: a Net.Resp buffer one byte short of the reply ends
// RESP_TOO_LARGE with the length needed, and nothing is written; one of
// exactly its length takes it.
func TestReplyCapacity(t *testing.T) {
	on(t, func(t *T) {
		for _, c := range []struct {
			name string
			msg  []byte
			img  []byte
		}{
			{"Set", setMsg(1, []byte("k"), []byte("v")), appResp(t, golden.MethodSet, nil, nil)},
			{"Get value", getMsg(2, []byte("k")), appResp(t, golden.MethodGet, pattern(300, 1), nil)},
			{"Get error", getMsg(3, []byte("k")), appResp(t, golden.MethodGet, nil, errors.New("gone"))},
		} {
			for _, framed := range []bool{false, true} {
				n, _ := golden.ReplyLen(golden.ReplyRequest{Method: c.img[golden.RespMethodOffset], Framed: framed}, c.img)
				r := expect(t, c.name+" short", c.msg, RunOptions{App: gives(c.img), Framed: framed, RespCap: n - 1})
				if golden.Code(r.Outcome.ReplyStatus.Result()) != golden.CodeRespTooLarge {
					t.Errorf("%s framed %v in %d bytes: reply status %s, want RESP_TOO_LARGE", c.name, framed, n-1, golden.Code(r.Outcome.ReplyStatus.Result()))
				}
				expect(t, c.name+" exact", c.msg, RunOptions{App: gives(c.img), Framed: framed, RespCap: n})
			}
		}
	})
}

// TestReplyAfterStreamFault: a reply whose data stream ends on a load fault
// leaves nothing behind, wherever the fault lands in the making of the
// prefix (data lengths and random stalls move it across that burst's
// cycles): the next request's reply is its own. FuzzRTL found a Set reply
// sent as the bytes of an abandoned Get error's prefix, when the fault came
// the cycle before the prefix's burst ended.
func TestReplyAfterStreamFault(t *testing.T) {
	on(t, func(t *T) {
		for n := 1; n < 200; n += 3 {
			for _, kind := range []string{"error", "value"} {
				img := appResp(t, golden.MethodGet, pattern(n, 3), nil)
				if kind == "error" {
					img = appResp(t, golden.MethodGet, nil, errors.New(string(pattern(n, 2))))
				}
				for seed := range 8 {
					framed := seed%2 == 1
					name := fmt.Sprintf("Get %s of %d bytes, fault on App.Resp line 1, stalls seed %d, framed %v", kind, n, seed, framed)
					withMem(t, MemConfig{MaxStall: 17, Seed: int64(seed), FaultLine: func(a uint64) bool { return a == AppRespBase+LineSize }}, func() {
						r := expect(t, name, getMsg(5, []byte("k")), RunOptions{App: gives(img), Framed: framed})
						if !r.Outcome.RespFaulted {
							t.Errorf("%s: the fault was not met: the sweep no longer reaches the stream", name)
						}
					})
					expect(t, "Set after "+name, setMsg(uint32(n), []byte("k"), []byte("v")), RunOptions{Framed: framed})
				}
			}
		}
	})
}

// TestReplyLoadFaults: an error on the App.Resp header line, or on a line of
// the data, ends RESP_LOAD_FAULT without a byte written past the reply; an
// error on a line past the data changes nothing.
func TestReplyLoadFaults(t *testing.T) {
	on(t, func(t *T) {
		img := appResp(t, golden.MethodGet, pattern(300, 4), nil)
		img = append(img, make([]byte, 200)...) // an App.Resp longer than the image: its last lines are loaded, not read
		for _, c := range []struct {
			name  string
			line  uint64
			fault bool
		}{{"header line", 0, true}, {"data's first line", 1, true}, {"data's last line", 5, true}, {"past the data", 7, false}} {
			withMem(t, MemConfig{Latency: 2, Seed: 1, FaultLine: func(a uint64) bool { return a == AppRespBase+c.line*LineSize }}, func() {
				r := expect(t, c.name, getMsg(9, []byte("k")), RunOptions{App: gives(img)})
				if r.Outcome.RespFaulted != c.fault {
					t.Errorf("%s: App.Resp fault seen %v, want %v", c.name, r.Outcome.RespFaulted, c.fault)
				}
			})
		}
	})
}
