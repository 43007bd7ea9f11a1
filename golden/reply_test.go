package golden

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"arcalis/internal/memcached"

	"github.com/apache/thrift/lib/go/thrift"
)

// fixedHandler is a MemcachedService whose every call returns the same
// result.
type fixedHandler struct {
	value []byte
	err   error
}

func (h fixedHandler) Set(context.Context, int64, []byte, []byte, int32, int32) error {
	return h.err
}

func (h fixedHandler) Get(context.Context, int64, []byte) ([]byte, error) {
	return h.value, h.err
}

// loopback is the client's transport: what the client writes is the CALL;
// Flush hands it to serve and queues the bytes serve returns for the client
// to read as the reply.
type loopback struct {
	sent  bytes.Buffer
	recv  bytes.Reader
	serve func(call []byte) []byte
}

func (l *loopback) Read(p []byte) (int, error)  { return l.recv.Read(p) }
func (l *loopback) Write(p []byte) (int, error) { return l.sent.Write(p) }
func (l *loopback) Close() error                { return nil }
func (l *loopback) Open() error                 { return nil }
func (l *loopback) IsOpen() bool                { return true }
func (l *loopback) RemainingBytes() uint64      { return uint64(l.recv.Len()) }

func (l *loopback) Flush(context.Context) error {
	reply := l.serve(bytes.Clone(l.sent.Bytes()))
	l.sent.Reset()
	l.recv.Reset(reply)
	return nil
}

// clientProtocol is the binary protocol a client of either transport uses
// (defaults: strict write).
func clientProtocol(l *loopback, framed bool) thrift.TProtocol {
	var tr thrift.TTransport = l
	if framed {
		tr = thrift.NewTFramedTransportConf(l, nil)
	}
	return thrift.NewTBinaryProtocolConf(tr, nil)
}

// apacheServe runs Apache's generated processor on one CALL as an Apache Go
// server with that transport does, with handler h, and returns the bytes it
// writes.
func apacheServe(t testing.TB, h memcached.MemcachedService, call []byte, framed bool) []byte {
	t.Helper()
	in, out := thrift.NewTMemoryBuffer(), thrift.NewTMemoryBuffer()
	in.Write(call)
	var itr, otr thrift.TTransport = in, out
	if framed {
		itr = thrift.NewTFramedTransportConf(in, nil)
		otr = thrift.NewTFramedTransportConf(out, nil)
	}
	ok, err := memcached.NewMemcachedServiceProcessor(h).Process(context.Background(),
		thrift.NewTBinaryProtocolConf(itr, nil), thrift.NewTBinaryProtocolConf(otr, nil))
	if !ok {
		t.Fatalf("Apache's processor failed: %v", err)
	}
	return bytes.Clone(out.Bytes())
}

// referenceServe returns the reply the reference writes for call: the
// request's method and seqid as the RxEngine reports them (Deserialize of
// the message, frame length removed), the App.Resp image BuildAppResp makes
// of the handler's result, WriteReply. It also checks WriteReply at the
// exact Net.Resp capacity and one byte below it.
func referenceServe(t testing.TB, call []byte, framed bool, value []byte, appErr error) []byte {
	t.Helper()
	msg := call
	if framed {
		if len(call) < 4 || int(binary.BigEndian.Uint32(call)) != len(call)-4 {
			t.Fatalf("framed CALL of %d bytes does not start with its frame length: % x", len(call), head(call))
		}
		msg = call[4:]
	}
	img := make([]byte, MinCapacity+64)
	r := Deserialize(msg, img)
	if r.Method == MethodUnknown || r.Code != CodeOK {
		t.Fatalf("Deserialize of the client's CALL: %v, method %d", r.Code, r.Method)
	}
	req := ReplyRequest{Method: r.Method, SeqID: r.SeqID, Framed: framed}
	appResp, err := BuildAppResp(r.Method, value, appErr)
	if err != nil {
		t.Fatal(err)
	}
	reply, res := Reply(req, appResp)
	if res.Code != CodeRespOK || int(res.Detail) != len(reply) {
		t.Fatalf("Reply: %v detail %d, %d bytes", res.Code, res.Detail, len(reply))
	}
	checkCapacity(t, req, appResp, reply)
	return reply
}

// checkCapacity checks WriteReply into a Net.Resp buffer of exactly
// len(want) bytes (writes want, nothing around it) and of len(want) - 1
// (RESP_TOO_LARGE with the needed length, nothing written).
func checkCapacity(t testing.TB, req ReplyRequest, appResp, want []byte) {
	t.Helper()
	const guard = 64
	n := len(want)
	buf := bytes.Repeat([]byte{fill}, guard+n+guard)
	if res := WriteReply(buf[guard:guard+n-1:guard+n-1], req, appResp); res != (TxResult{CodeRespTooLarge, uint32(n)}) {
		t.Errorf("capacity %d for a %d-byte reply: %v detail %d, want RESP_TOO_LARGE detail %d", n-1, n, res.Code, res.Detail, n)
	}
	if i := written(buf); i >= 0 {
		t.Fatalf("capacity %d for a %d-byte reply: byte %d written", n-1, n, i-guard)
	}
	if res := WriteReply(buf[guard:guard+n:guard+n], req, appResp); res != (TxResult{CodeRespOK, uint32(n)}) {
		t.Errorf("capacity %d for a %d-byte reply: %v detail %d, want RESP_OK detail %d", n, n, res.Code, res.Detail, n)
	}
	if !bytes.Equal(buf[guard:guard+n], want) {
		t.Error("capacity = length: WriteReply wrote other bytes than Reply")
	}
	for i, b := range append(buf[:guard:guard], buf[guard+n:]...) {
		if b != fill {
			t.Fatalf("capacity = length: guard byte %d written", i)
		}
	}
}

// replyCase is one handler result for one method.
type replyCase struct {
	name   string
	method uint8
	value  []byte
	err    error
}

// replyCases: Set, Get with values around the line boundaries up to 1 MiB
// (random bytes), nil and empty values, application errors of both methods.
func replyCases() []replyCase {
	rng := rand.New(rand.NewPCG(16, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	cases := []replyCase{
		{name: "set", method: MethodSet},
		{name: "get/nil", method: MethodGet},
		{name: "get/empty", method: MethodGet, value: []byte{}},
	}
	for _, n := range []int{1, 63, 64, 65, 4096, RespDataMax} {
		cases = append(cases, replyCase{name: fmt.Sprintf("get/%d", n), method: MethodGet, value: random(n)})
	}
	errs := []error{
		errors.New("key not found"),
		errors.New(""),
		errors.New(string(random(200))), // not UTF-8
		errors.New(string(random(5000))),
		thrift.NewTApplicationException(thrift.UNKNOWN_METHOD, "already an application exception"),
		fmt.Errorf("wrapped: %w", thrift.NewTTransportException(thrift.TIMED_OUT, "store timed out")),
	}
	for i, e := range errs {
		cases = append(cases,
			replyCase{name: fmt.Sprintf("set/error%d", i), method: MethodSet, err: e},
			replyCase{name: fmt.Sprintf("get/error%d", i), method: MethodGet, value: random(i * 10), err: e})
	}
	cases = append(cases, replyCase{name: "get/error-1MiB", method: MethodGet, err: errors.New(string(random(RespDataMax)))})
	return cases
}

// checkClient checks what the generated client returned for a reply to c.
func checkClient(t testing.TB, c replyCase, got []byte, err error) {
	t.Helper()
	if c.err != nil {
		var ae thrift.TApplicationException
		if !errors.As(err, &ae) {
			t.Fatalf("client returned %v (%T), want the application exception", err, err)
		}
		prefix := AppErrorPrefixGet
		if c.method == MethodSet {
			prefix = AppErrorPrefixSet
		}
		if ae.TypeId() != thrift.INTERNAL_ERROR || ae.Error() != prefix+c.err.Error() {
			t.Fatalf("client's exception: type %d, %d-byte message; want %d, %q + the %d-byte error", ae.TypeId(), len(ae.Error()), thrift.INTERNAL_ERROR, prefix, len(c.err.Error()))
		}
		return
	}
	if err != nil {
		t.Fatalf("client returned %v", err)
	}
	if !bytes.Equal(got, c.value) {
		t.Fatalf("client returned a %d-byte value, want %d bytes", len(got), len(c.value))
	}
	// A nil value (no field 0) reads back as nil. An empty one is sent as
	// field 0 of length 0 and reads back non-nil.
	if c.method == MethodGet && (got == nil) != (c.value == nil) {
		t.Fatalf("client returned nil %v, handler returned nil %v", got == nil, c.value == nil)
	}
}

// TestReplyApache: for every case, framed and unframed, the generated
// client's CALL is answered by Apache's generated processor and by the
// reference; the replies must be the same bytes, and the generated client
// must accept the reference's and return the handler's result. The client
// numbers its calls from seqid 1.
func TestReplyApache(t *testing.T) {
	ctx := context.Background()
	cases := replyCases()
	for _, framed := range []bool{false, true} {
		var c replyCase
		var ct testing.TB // the running subtest
		l := &loopback{serve: func(call []byte) []byte {
			apache := apacheServe(ct, fixedHandler{c.value, c.err}, call, framed)
			ref := referenceServe(ct, call, framed, c.value, c.err)
			if !bytes.Equal(ref, apache) {
				ct.Fatalf("%s framed=%v: reference and Apache differ at byte %d (%d and %d bytes)\nreference % x\napache    % x",
					c.name, framed, firstDiff(ref, apache), len(ref), len(apache), head(ref), head(apache))
			}
			return ref
		}}
		p := clientProtocol(l, framed)
		client := memcached.NewMemcachedServiceClient(thrift.NewTStandardClient(p, p))
		for _, c = range cases {
			t.Run(fmt.Sprintf("%s/framed=%v", c.name, framed), func(t *testing.T) {
				ct = t
				var got []byte
				var err error
				if c.method == MethodSet {
					err = client.Set(ctx, 7, []byte("key"), []byte("value"), 1, 2)
				} else {
					got, err = client.Get(ctx, 7, []byte("key"))
				}
				checkClient(t, c, got, err)
				if l.recv.Len() != 0 {
					t.Fatalf("client left %d reply bytes unread", l.recv.Len())
				}
			})
		}
	}
}

// TestReplySeqIDs: the same through the generated client's send and receive
// paths with seqids the client's counter does not reach soon.
func TestReplySeqIDs(t *testing.T) {
	cases := []replyCase{
		{name: "set", method: MethodSet},
		{name: "get", method: MethodGet, value: []byte("v")},
		{name: "get/error", method: MethodGet, err: errors.New("boom")},
	}
	for _, seq := range []int32{0, -1, math.MinInt32, math.MaxInt32, 0x01020304} {
		for _, framed := range []bool{false, true} {
			for _, c := range cases {
				roundTrip(t, c, seq, framed)
			}
		}
	}
}

// roundTrip sends c's CALL with seqid seq through TStandardClient.Send with
// the generated args (what the generated client's Call does first), answers
// it with both processors, and receives the reference's reply with
// TStandardClient.Recv into the generated result.
func roundTrip(t testing.TB, c replyCase, seq int32, framed bool) {
	t.Helper()
	ctx := context.Background()
	l := &loopback{serve: func(call []byte) []byte {
		apache := apacheServe(t, fixedHandler{c.value, c.err}, call, framed)
		ref := referenceServe(t, call, framed, c.value, c.err)
		if !bytes.Equal(ref, apache) {
			t.Fatalf("%s seqid %d framed=%v: reference and Apache differ at byte %d (%d and %d bytes)\nreference % x\napache    % x",
				c.name, seq, framed, firstDiff(ref, apache), len(ref), len(apache), head(ref), head(apache))
		}
		return ref
	}}
	p := clientProtocol(l, framed)
	sc := thrift.NewTStandardClient(p, p)
	var got []byte
	var err error
	if c.method == MethodSet {
		args := memcached.MemcachedServiceSetArgs{ReqID: 7, Key: []byte("k"), Value: []byte("v")}
		if err := sc.Send(ctx, p, seq, "Set", &args); err != nil {
			t.Fatal(err)
		}
		var res memcached.MemcachedServiceSetResult
		err = sc.Recv(ctx, p, seq, "Set", &res)
	} else {
		args := memcached.MemcachedServiceGetArgs{ReqID: 7, Key: []byte("k")}
		if err := sc.Send(ctx, p, seq, "Get", &args); err != nil {
			t.Fatal(err)
		}
		var res memcached.MemcachedServiceGetResult
		err = sc.Recv(ctx, p, seq, "Get", &res)
		got = res.GetSuccess()
	}
	checkClient(t, c, got, err)
	if l.recv.Len() != 0 {
		t.Fatalf("client left %d reply bytes unread", l.recv.Len())
	}
}

// FuzzReplyApache compares the reference's reply with Apache's generated
// processor's for any value, seqid and error text, and has the generated
// client receive it. mode: bit 0 framed, bit 1 Set, bit 2 an application
// error, bit 3 a nil (not empty) value when value is empty.
func FuzzReplyApache(f *testing.F) {
	f.Add([]byte(nil), int32(0), "", uint8(0))
	f.Add([]byte("hello"), int32(1), "", uint8(1))
	f.Add([]byte{}, int32(-1), "", uint8(8))
	f.Add(bytes.Repeat([]byte{0xAB}, 64), int32(math.MaxInt32), "", uint8(0))
	f.Add([]byte("x"), int32(math.MinInt32), "not found", uint8(4))
	f.Add([]byte(nil), int32(5), "\xff\x00 bad", uint8(7))
	f.Add([]byte(nil), int32(9), "", uint8(2))
	f.Fuzz(func(t *testing.T, value []byte, seq int32, text string, mode uint8) {
		c := replyCase{name: "fuzz", method: MethodGet, value: value}
		if mode&2 != 0 {
			c.method, c.value = MethodSet, nil
		}
		if mode&4 != 0 {
			c.err = errors.New(text)
		}
		if mode&8 != 0 && len(c.value) == 0 {
			c.value = nil
		} else if c.value == nil && c.method == MethodGet {
			c.value = []byte{}
		}
		roundTrip(t, c, seq, mode&1 != 0)
	})
}

// TestReplyBytes: the replies of docs/abi.md section 11, written out by hand.
func TestReplyBytes(t *testing.T) {
	hexs := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	getHead := []byte{0x80, 1, 0, 2, 0, 0, 0, 3, 'G', 'e', 't', 0, 0, 0, 9}
	setHead := []byte{0x80, 1, 0, 2, 0, 0, 0, 3, 'S', 'e', 't', 0, 0, 0, 9}
	cases := []struct {
		name   string
		method uint8
		value  []byte
		err    error
		framed bool
		want   []byte
	}{
		{"set", MethodSet, nil, nil, false, hexs(setHead, []byte{0})},
		{"set/framed", MethodSet, nil, nil, true, hexs([]byte{0, 0, 0, 16}, setHead, []byte{0})},
		{"get/hi", MethodGet, []byte("hi"), nil, false, hexs(getHead, []byte{11, 0, 0, 0, 0, 0, 2, 'h', 'i', 0})},
		{"get/empty", MethodGet, []byte{}, nil, false, hexs(getHead, []byte{11, 0, 0, 0, 0, 0, 0, 0})},
		{"get/nil", MethodGet, nil, nil, false, hexs(getHead, []byte{0})},
		{"get/framed", MethodGet, []byte("hi"), nil, true, hexs([]byte{0, 0, 0, 25}, getHead, []byte{11, 0, 0, 0, 0, 0, 2, 'h', 'i', 0})},
		{"get/error", MethodGet, nil, errors.New("no"), false, hexs(
			[]byte{0x80, 1, 0, 3, 0, 0, 0, 3, 'G', 'e', 't', 0, 0, 0, 9},
			[]byte{11, 0, 1, 0, 0, 0, 33}, []byte("Internal error processing Get: no"),
			[]byte{8, 0, 2, 0, 0, 0, 6, 0})},
		{"set/error/framed", MethodSet, nil, errors.New(""), true, hexs(
			[]byte{0, 0, 0, 61},
			[]byte{0x80, 1, 0, 3, 0, 0, 0, 3, 'S', 'e', 't', 0, 0, 0, 9},
			[]byte{11, 0, 1, 0, 0, 0, 31}, []byte("Internal error processing Set: "),
			[]byte{8, 0, 2, 0, 0, 0, 6, 0})},
	}
	for _, c := range cases {
		img, err := BuildAppResp(c.method, c.value, c.err)
		if err != nil {
			t.Fatal(err)
		}
		got, res := Reply(ReplyRequest{Method: c.method, SeqID: 9, Framed: c.framed}, img)
		if res != (TxResult{CodeRespOK, uint32(len(c.want))}) || !bytes.Equal(got, c.want) {
			t.Errorf("%s: %v detail %d\n got % x\nwant % x", c.name, res.Code, res.Detail, got, c.want)
		}
	}
	for _, seq := range []int32{0, -7, math.MaxInt32} {
		img, _ := BuildAppResp(MethodSet, nil, nil)
		got, _ := Reply(ReplyRequest{Method: MethodSet, SeqID: seq}, img)
		if want := SetReply(seq); !bytes.Equal(got, want[:]) {
			t.Errorf("seqid %d: Set reply % x, SetReply % x", seq, got, want)
		}
	}
}

// TestAppRespImage: the image's bytes, by hand.
func TestAppRespImage(t *testing.T) {
	line := func(dataLen uint32, status, method byte) []byte {
		l := make([]byte, RespHeaderSize)
		l[0], l[1], l[2], l[3] = byte(dataLen), byte(dataLen>>8), byte(dataLen>>16), byte(dataLen>>24)
		l[4], l[5] = status, method
		return l
	}
	big := bytes.Repeat([]byte{7}, 0x10203)
	cases := []struct {
		name   string
		method uint8
		value  []byte
		err    error
		want   []byte
	}{
		{"set", MethodSet, nil, nil, line(0, 1, 1)},
		{"set/empty", MethodSet, []byte{}, nil, line(0, 1, 1)},
		{"set/error", MethodSet, nil, errors.New("ab"), append(line(2, 3, 1), 'a', 'b')},
		{"get/nil", MethodGet, nil, nil, line(0, 2, 2)},
		{"get/empty", MethodGet, []byte{}, nil, line(0, 1, 2)},
		{"get/big", MethodGet, big, nil, append(line(0x10203, 1, 2), big...)},
		{"get/error", MethodGet, []byte("ignored"), errors.New("x"), append(line(1, 3, 2), 'x')},
	}
	for _, c := range cases {
		got, err := BuildAppResp(c.method, c.value, c.err)
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("%s: %v\n got % x\nwant % x", c.name, err, head(got), head(c.want))
		}
		h, err := ParseAppResp(got)
		if err != nil || h.DataLen != uint32(len(got)-RespDataOffset) || h.Status != c.want[4] || h.Method != c.method {
			t.Errorf("%s: ParseAppResp = %+v, %v", c.name, h, err)
		}
	}
	for _, c := range []struct {
		name   string
		method uint8
		value  []byte
		err    error
	}{
		{"method 0", MethodUnknown, nil, nil},
		{"method 3", 3, nil, errors.New("x")},
		{"set with a value", MethodSet, []byte("v"), nil},
		{"value over 1 MiB", MethodGet, make([]byte, RespDataMax+1), nil},
		{"error over 1 MiB", MethodSet, nil, errors.New(string(make([]byte, RespDataMax+1)))},
	} {
		if img, err := BuildAppResp(c.method, c.value, c.err); err == nil {
			t.Errorf("%s: BuildAppResp made a %d-byte image, want an error", c.name, len(img))
		}
	}
	if _, err := ParseAppResp(make([]byte, 63)); err == nil {
		t.Error("ParseAppResp of 63 bytes: no error")
	}
}

// TestReplyBadImage: every check of ReplyLen, its code and detail, and that
// WriteReply then writes nothing.
func TestReplyBadImage(t *testing.T) {
	img := func(dataLen uint32, status, method byte, size int) []byte {
		b := make([]byte, size)
		AppResp{DataLen: dataLen, Status: status, Method: method}.PutHeader(b)
		return b
	}
	get := ReplyRequest{Method: MethodGet, SeqID: 3}
	set := ReplyRequest{Method: MethodSet, SeqID: 3}
	bad := func(d uint32) TxResult { return TxResult{CodeRespBadImage, d} }
	cases := []struct {
		name string
		req  ReplyRequest
		img  []byte
		want TxResult
	}{
		{"63 bytes", get, make([]byte, 63), TxResult{}},
		{"empty", get, nil, TxResult{}},
		{"over the longest image", get, img(0, 1, 2, RespImageMax+1), TxResult{}},
		{"longest image", get, img(RespDataMax, 1, 2, RespImageMax), TxResult{CodeRespOK, 15 + 7 + RespDataMax + 1}},
		{"never written", get, make([]byte, 64), bad(5)},
		{"method 0", get, img(0, 1, 0, 64), bad(5)},
		{"method 3", get, img(0, 1, 3, 64), bad(5)},
		{"Set image, Get request", get, img(0, 1, 1, 64), bad(5)},
		{"Get image, Set request", set, img(0, 1, 2, 64), bad(5)},
		{"Get image, method 0 request", ReplyRequest{}, img(0, 1, 2, 64), bad(5)},
		{"status 0", get, img(0, 0, 2, 64), bad(4)},
		{"status 4", get, img(0, 4, 2, 64), bad(4)},
		{"status 255", set, img(0, 255, 1, 64), bad(4)},
		{"Set null", set, img(0, 2, 1, 64), bad(4)},
		{"Set value with data", set, img(1, 1, 1, 65), bad(0)},
		{"Get null with data", get, img(1, 2, 2, 65), bad(0)},
		{"data over 1 MiB", get, img(RespDataMax+1, 1, 2, RespImageMax), bad(0)},
		{"error over 1 MiB", set, img(RespDataMax+1, 3, 1, RespImageMax), bad(0)},
		{"data past App.Resp", get, img(2, 1, 2, 65), bad(0)},
		{"data_len 2^32-1", get, img(math.MaxUint32, 1, 2, 64), bad(0)},
		{"data exactly App.Resp", get, img(1, 1, 2, 65), TxResult{CodeRespOK, 24}},
		{"data short of App.Resp", get, img(1, 1, 2, 200), TxResult{CodeRespOK, 24}},
		{"reserved bytes ignored", set, func() []byte { b := img(0, 3, 1, 64); b[6], b[63] = 0xFF, 1; return b }(), TxResult{CodeRespOK, 61}},
	}
	for _, c := range cases {
		n, res := ReplyLen(c.req, c.img)
		if res != c.want || (res.Code == CodeRespOK) != (n == int(res.Detail) && n > 0) || (res.Code != CodeRespOK && n != 0) {
			t.Errorf("%s: ReplyLen = %d, %v detail %d; want %v detail %d", c.name, n, res.Code, res.Detail, c.want.Code, c.want.Detail)
		}
		dst := bytes.Repeat([]byte{fill}, 2*RespImageMax)
		res = WriteReply(dst, c.req, c.img)
		if res != c.want {
			t.Errorf("%s: WriteReply = %v detail %d; want %v detail %d", c.name, res.Code, res.Detail, c.want.Code, c.want.Detail)
		}
		if res.Code != CodeRespOK && written(dst) >= 0 {
			t.Errorf("%s: WriteReply wrote to Net.Resp", c.name)
		}
		if got, res := Reply(c.req, c.img); res != c.want || (res.Code == CodeRespOK) != (got != nil) {
			t.Errorf("%s: Reply = %d bytes, %v detail %d", c.name, len(got), res.Code, res.Detail)
		}
	}
	if err := CheckAppRespLen(64); err != nil {
		t.Error(err)
	}
	if err := CheckAppRespLen(RespImageMax); err != nil {
		t.Error(err)
	}
}

// TestReplyCapacity: the Net.Resp boundary (len - 1 and len) for every
// kind of reply, framed and not, and a zero-capacity buffer.
func TestReplyCapacity(t *testing.T) {
	for _, c := range replyCases() {
		for _, framed := range []bool{false, true} {
			img, err := BuildAppResp(c.method, c.value, c.err)
			if err != nil {
				t.Fatal(err)
			}
			req := ReplyRequest{Method: c.method, SeqID: -2, Framed: framed}
			want, res := Reply(req, img)
			if res.Code != CodeRespOK {
				t.Fatalf("%s: %v", c.name, res.Code)
			}
			checkCapacity(t, req, img, want)
			if res := WriteReply(nil, req, img); res != (TxResult{CodeRespTooLarge, uint32(len(want))}) {
				t.Errorf("%s: capacity 0: %v detail %d", c.name, res.Code, res.Detail)
			}
		}
	}
}

func TestWriteReplyAllocs(t *testing.T) {
	img, _ := BuildAppResp(MethodGet, bytes.Repeat([]byte{1}, 4096), nil)
	dst := make([]byte, 8192)
	req := ReplyRequest{Method: MethodGet, SeqID: 1, Framed: true}
	if n := testing.AllocsPerRun(100, func() { WriteReply(dst, req, img) }); n != 0 {
		t.Errorf("WriteReply allocates %v times per call", n)
	}
}

// written returns the index of the first byte of b that is not fill, or -1.
func written(b []byte) int {
	for i, x := range b {
		if x != fill {
			return i
		}
	}
	return -1
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// head is at most the first 96 bytes of b, for messages.
func head(b []byte) []byte { return b[:min(len(b), 96)] }

// TestReplyParts: every reply is ReplyParts' prefix with the seqid and the
// data's length field filled in, the data, then the suffix: the layout the
// TxEngine's generator builds replies from.
func TestReplyParts(t *testing.T) {
	cases := []struct {
		method, status uint8
		data           []byte
	}{
		{MethodSet, RespStatusValue, nil},
		{MethodGet, RespStatusNull, nil},
		{MethodGet, RespStatusValue, []byte("a value of some bytes")},
		{MethodGet, RespStatusValue, []byte{}},
		{MethodSet, RespStatusAppError, []byte("disk full")},
		{MethodGet, RespStatusAppError, []byte("")},
	}
	for _, c := range cases {
		prefix, suffix, err := ReplyParts(c.method, c.status)
		if err != nil {
			t.Fatalf("ReplyParts(%d, %d): %v", c.method, c.status, err)
		}
		img := make([]byte, RespDataOffset+len(c.data))
		AppResp{DataLen: uint32(len(c.data)), Status: c.status, Method: c.method}.PutHeader(img)
		copy(img[RespDataOffset:], c.data)
		const seqid = -0x12345678
		want, res := Reply(ReplyRequest{Method: c.method, SeqID: seqid}, img)
		if res.Code != CodeRespOK {
			t.Fatalf("Reply(%d, %d): %v", c.method, c.status, res)
		}
		got := append([]byte(nil), prefix...)
		binary.BigEndian.PutUint32(got[ReplySeqIDOffset:], uint32(seqid+1<<32))
		if c.data != nil {
			binary.BigEndian.PutUint32(got[ReplyDataLenOffset:], uint32(len(prefix)-ReplyDataLenOffset-4+len(c.data)))
		}
		got = append(append(got, c.data...), suffix...)
		if !bytes.Equal(got, want) {
			t.Errorf("method %d status %d: parts give\n% x\nwant\n% x", c.method, c.status, got, want)
		}
	}
	if _, _, err := ReplyParts(MethodSet, RespStatusNull); err == nil {
		t.Error("ReplyParts(Set, NULL): no error")
	}
}

// TestAppRespForReply: the image recovered from a reply writes that reply
// again, for every shape; a reply the TxEngine does not write is refused.
func TestAppRespForReply(t *testing.T) {
	for _, c := range []struct {
		method uint8
		value  []byte
		err    error
	}{
		{MethodSet, nil, nil}, {MethodGet, nil, nil}, {MethodGet, []byte{}, nil},
		{MethodGet, []byte("value"), nil}, {MethodGet, nil, errors.New("miss")}, {MethodSet, nil, errors.New("")},
	} {
		img, err := BuildAppResp(c.method, c.value, c.err)
		if err != nil {
			t.Fatal(err)
		}
		reply, _ := Reply(ReplyRequest{Method: c.method, SeqID: 77}, img)
		got, err := AppRespForReply(c.method, reply)
		if err != nil || !bytes.Equal(got, img) {
			t.Errorf("method %d value %q err %v: image % x, %v; want % x", c.method, c.value, c.err, got, err, img)
		}
		if c.err == nil && c.method == MethodGet && c.value != nil {
			if _, err := AppRespForReply(c.method, append(bytes.Clone(reply), 0)); err == nil {
				t.Errorf("a reply with a trailing byte: no error")
			}
		}
	}
	if _, err := AppRespForReply(MethodGet, []byte{0x80, 1, 0, 2}); err == nil {
		t.Error("a 4-byte reply: no error")
	}
}
