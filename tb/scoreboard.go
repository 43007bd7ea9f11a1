package tb

import (
	"bytes"
	"fmt"
	"sync"

	"arcalis/golden"
)

// Verdict is the scoreboard's judgement of one request.
type Verdict struct {
	Match bool
	Ref   golden.Result // what the reference says
	RTL   golden.Result // the header line the RTL wrote (zero if unreadable)
	Diffs []string      // every disagreement, most important first
	// For a reply the engine wrote (Outcome.WrittenReply): its SHA-256, and
	// whether it is the reply expected (the reference's, and the recorded
	// one when RunOptions.RecordedReply gives it).
	ReplySHA256 [32]byte
	ReplyMatch  bool
}

// headerFields names the App.Recv header bytes, for diff messages.
var headerFields = []struct {
	name      string
	off, size int
}{
	{"req_id", 0, 8}, {"flags", 8, 4}, {"exptime", 12, 4}, {"key_len", 16, 4},
	{"value_len", 20, 4}, {"seqid", 24, 4}, {"result", 28, 1}, {"msg_type", 29, 1},
	{"present", 30, 1}, {"method", 31, 1}, {"offset", 32, 4}, {"reserved", 36, 28},
}

// place names an App.Recv offset: a header field, or the key or value region.
func place(off int) string {
	switch {
	case off < golden.HeaderSize:
		for _, f := range headerFields {
			if off >= f.off && off < f.off+f.size {
				return fmt.Sprintf("header.%s byte %d", f.name, off-f.off)
			}
		}
	case off < golden.ValueOffset:
		return fmt.Sprintf("key[%d]", off-golden.KeyOffset)
	}
	return fmt.Sprintf("value[%d]", off-golden.ValueOffset)
}

// refImages holds the reference's App.Recv images between Score calls: a
// 64 KiB value would otherwise allocate, zero and then fill one per request.
var refImages = sync.Pool{New: func() any { return new([]byte) }}

// Score compares what the RTL did with msg against the reference: status,
// result detail, every byte of App.Recv, the reply, and the memory checks.
func Score(msg []byte, o Outcome) Verdict {
	var v Verdict
	buf := refImages.Get().(*[]byte)
	defer refImages.Put(buf)
	if cap(*buf) < len(o.Before) {
		*buf = make([]byte, len(o.Before))
	}
	img := (*buf)[:len(o.Before)]
	copy(img, o.Before)
	v.Ref = golden.Deserialize(msg, img)
	diff := func(format string, args ...any) { v.Diffs = append(v.Diffs, fmt.Sprintf(format, args...)) }

	v.Diffs = append(v.Diffs, o.Violations...)
	if len(o.Image) != len(img) {
		diff("App.Recv image is %d bytes, reference %d", len(o.Image), len(img))
		return v
	}
	if got := golden.Code(o.Status.Result()); got != v.Ref.Code {
		diff("status result %s, reference %s", got, v.Ref.Code)
	}
	if o.Status.Detail() != v.Ref.Offset {
		diff("status detail %d, reference offset %d", o.Status.Detail(), v.Ref.Offset)
	}
	if o.Status.CmdErr() != CmdErrNone {
		diff("status reports command error %d", o.Status.CmdErr())
	}
	if rtl, err := golden.ParseHeader(o.Image); err != nil {
		diff("App.Recv header line: %v", err)
	} else {
		v.RTL = rtl
	}
	n := 0
	if !bytes.Equal(o.Image, img) {
		for i := range img {
			if o.Image[i] != img[i] {
				if n < 8 {
					diff("App.Recv[%d] (%s) = %#02x, reference %#02x", i, place(i), o.Image[i], img[i])
				}
				n++
			}
		}
	}
	if n > 8 {
		diff("... %d App.Recv bytes differ in all", n)
	}

	// A Set or Get CALL the engine took waits for its reply, which the
	// reference writes from the same App.Resp image.
	wantReply := v.Ref.Code == golden.CodeOK && v.Ref.MsgType == golden.MsgCall
	switch {
	case wantReply != o.Replied:
		diff("engine waited for a reply: %v, reference expects one: %v", o.Replied, wantReply)
	case wantReply:
		before := len(v.Diffs)
		scoreReply(golden.ReplyRequest{Method: v.Ref.Method, SeqID: v.Ref.SeqID, Framed: o.Framed}, o, diff)
		v.ReplyMatch = len(v.Diffs) == before
	}
	v.Match = len(v.Diffs) == 0
	return v
}

// refReplies holds the reference's replies between scoreReply calls.
var refReplies = sync.Pool{New: func() any { return new([]byte) }}

// scoreReply compares the reply status and Net.Resp with what the reference
// writes for req from the App.Resp image the application gave.
func scoreReply(req golden.ReplyRequest, o Outcome, diff func(string, ...any)) {
	n, want := golden.ReplyLen(req, o.AppResp)
	if want.Code == golden.CodeRespOK && n > o.RespCap {
		want = golden.TxResult{Code: golden.CodeRespTooLarge, Detail: uint32(n)}
	}
	if o.RespFaulted {
		// Part of the reply may be written, never a byte past it.
		if got := golden.Code(o.ReplyStatus.Result()); got != golden.CodeRespLoadFault || o.ReplyStatus.Detail() != 0 {
			diff("reply status %s detail %d after a load fault in App.Resp, want RESP_LOAD_FAULT detail 0", got, o.ReplyStatus.Detail())
		}
		if want.Code != golden.CodeRespOK {
			n = 0
		}
		for i := n; i < len(o.Reply); i++ {
			if o.Reply[i] != Filler {
				diff("Net.Resp[%d] written past the %d-byte reply after a load fault", i, n)
				break
			}
		}
		return
	}
	if got := (golden.TxResult{Code: golden.Code(o.ReplyStatus.Result()), Detail: o.ReplyStatus.Detail()}); got != want {
		diff("reply status %s detail %d, reference %s detail %d", got.Code, got.Detail, want.Code, want.Detail)
	}
	written := 0
	if want.Code == golden.CodeRespOK {
		buf := refReplies.Get().(*[]byte)
		defer refReplies.Put(buf)
		if cap(*buf) < n {
			*buf = make([]byte, n)
		}
		ref := (*buf)[:n]
		golden.WriteReply(ref, req, o.AppResp)
		if len(o.Reply) < n {
			diff("Net.Resp holds %d bytes, the reply is %d", len(o.Reply), n)
			return
		}
		if i := firstDiff(o.Reply[:n], ref); i >= 0 {
			diff("Net.Resp[%d] = %#02x, reference reply %#02x (reply of %d bytes, its first %d: % x)", i, o.Reply[i], ref[i], n, min(n, 32), bytes.Clone(o.Reply[:min(n, 32)]))
		}
		written = n
	}
	for i := written; i < len(o.Reply); i++ {
		if o.Reply[i] != Filler {
			diff("Net.Resp[%d] written past the %d-byte reply", i, written)
			break
		}
	}
}

// firstDiff is the first index where a and b (of one length) differ, or -1.
func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}
