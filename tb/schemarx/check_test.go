package schemarx

import (
	"strings"
	"testing"

	"arcalis/golden/schemagold"
	"arcalis/tb/schemahdr"
	"arcalis/thriftidl/schema"
)

// TestCheckDriveFake runs messages through the correct stand-in of
// fake_test.go with CheckDrive: no difference; and headers the reference
// refuses are not driven.
func TestCheckDriveFake(t *testing.T) {
	c, _, table, msgs := loadCase(t, "PostStorageService:16")
	f := newFake(table, c.Width)
	walked, ok := 0, 0
	for _, m := range driveSample(msgs, 5) {
		f.msg = m.Msg
		rtl, ref := make([]byte, m.Cap), make([]byte, m.Cap)
		ck := CheckDrive(f, table, m.Msg, rtl, ref)
		if ck.Err != nil {
			t.Fatalf("message %d (%s): %v", m.N, m.Source, ck.Err)
		}
		if ck.HeaderOnly {
			continue
		}
		walked++
		if ck.Driven.Result.Code == schemagold.CodeOK {
			ok++
		}
	}
	if ok == 0 || walked == ok {
		t.Errorf("%d messages walked (%d OK): want OK and other codes", walked, ok)
	}
	// Headers the reference refuses: nothing for the module to walk.
	for _, h := range []struct {
		msg  []byte
		code schemagold.Code
	}{
		{[]byte("\x80\x01\x00\x01\x00\x00\x00\x03Foo\x00\x00\x00\x01\x00"), schemagold.CodeUnknownMethod},
		{[]byte("\x80\x01\x00\x02\x00\x00\x00\x08ReadPost\x00\x00\x00\x01\x00"), schemagold.CodeBadMsgType},
		{nil, schemagold.CodeTruncated},
	} {
		ck := CheckDrive(f, table, h.msg, make([]byte, 128), make([]byte, 128))
		if ck.Err != nil || !ck.HeaderOnly || ck.Ref.Code != h.code || ck.Driven != (Driven{}) {
			t.Errorf("% x: err %v, header-only %v, code %v, driven %+v; want no error, header-only, %v, nothing driven",
				h.msg, ck.Err, ck.HeaderOnly, ck.Ref.Code, ck.Driven, h.code)
		}
	}
}

// TestCheckDriveCatches gives CheckDrive stand-ins with one bug each: it
// must report each as a mismatch, and ArgsDiff must name the argument
// behind a wrong image byte.
func TestCheckDriveCatches(t *testing.T) {
	c, _, table, msgs := loadCase(t, "UniqueIdService:8")
	for _, tc := range []struct {
		name string
		set  func(f *fake)
		want string
	}{
		{"image byte", func(f *fake) {
			f.bug = func(f *fake) {
				if f.res.Code == schemagold.CodeOK {
					f.img[schemagold.AreaStart+8] ^= 1 // the first fixed slot: req_id
				}
			}
		}, "image byte 0x48"},
		{"code", func(f *fake) {
			f.bug = func(f *fake) {
				if f.res.Code == schemagold.CodeTruncated {
					f.res.Code = schemagold.CodeBadLength
				}
			}
		}, "Code BAD_LENGTH, want TRUNCATED"},
		{"hang", func(f *fake) { f.hang = true }, "hang"},
		{"past the args", func(f *fake) { f.greedy = true }, "took the message up to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(table, c.Width)
			tc.set(f)
			for _, m := range msgs {
				if m.Cap > 65536 { // the hang's budget grows with the capacity
					continue
				}
				f.msg = m.Msg
				rtl, ref := make([]byte, m.Cap), make([]byte, m.Cap)
				ck := CheckDrive(f, table, m.Msg, rtl, ref)
				if ck.Err == nil {
					continue
				}
				if !IsMismatch(ck.Err) || !strings.Contains(ck.Err.Error(), tc.want) {
					t.Fatalf("message %d: %v; want a mismatch saying %q", m.N, ck.Err, tc.want)
				}
				if tc.name == "image byte" {
					if d := ArgsDiff(table, rtl, ref); !strings.HasPrefix(d, "args.req_id: ") {
						t.Errorf("ArgsDiff = %q; want the difference in args.req_id", d)
					}
				}
				return
			}
			t.Errorf("no message showed the bug")
		})
	}
}

// hdrFake stands in for recv_header in rxFake: CheckHeader on msg
// (which the test sets), the header taken as the windows show it, then
// the result, changed by bug if set.
type hdrFake struct {
	t     *schema.Table
	width int
	msg   []byte
	bug   func(*schemagold.Result)

	res        schemagold.Result
	left       int // header bytes still to take
	busy, done bool
}

func (f *hdrFake) Width() int           { return f.width }
func (f *hdrFake) Reset() error         { f.busy, f.done = false, false; return nil }
func (f *hdrFake) TraceOn(string) error { return nil }
func (f *hdrFake) TraceOff() error      { return nil }

func (f *hdrFake) Cycle(in *schemahdr.Inputs) (*schemahdr.Outputs, error) {
	switch {
	case in.Start:
		f.res, f.busy, f.done, f.left = schemagold.CheckHeader(f.t, f.msg), true, false, 0
		if f.res.Code == schemagold.CodeOK {
			f.left = int(f.res.Offset)
		}
		if f.bug != nil {
			f.bug(&f.res)
		}
	case f.busy && f.left > 0:
		k := min(in.Avail, f.left)
		f.left -= k
		return &schemahdr.Outputs{Take: k}, nil
	case f.busy:
		f.busy, f.done = false, true
	}
	r := f.res
	return &schemahdr.Outputs{Done: f.done, Code: uint8(r.Code), Offset: r.Offset, MsgType: r.MsgType, Method: r.Method, SeqID: uint32(r.SeqID)}, nil
}

// rxFake stands in for schema_rx: the stand-ins of its two units,
// sequenced as its registers do (the walk starts two edges after
// recv_header's done_o shows OK, with the method it names; done_o is the
// header's fault a cycle after its done_o, or the walk's end).
type rxFake struct {
	hd   *hdrFake
	walk *fake

	prev                   schemahdr.Outputs // recv_header's, at the last edge
	hdr, start, args, fail bool
	midx                   uint8
}

func (f *rxFake) Width() int           { return f.walk.Width() }
func (f *rxFake) TraceOn(string) error { return nil }
func (f *rxFake) TraceOff() error      { return nil }
func (f *rxFake) Reset() error {
	*f = rxFake{hd: f.hd, walk: f.walk}
	f.hd.Reset()
	return f.walk.Reset()
}

func (f *rxFake) Cycle(in *RecvInputs) (*RecvOutputs, error) {
	ho, err := f.hd.Cycle(&schemahdr.Inputs{Start: in.Start, Big: in.Big, Stall: in.Stall, Win: in.Win, Avail: in.Avail, Rem: in.Rem})
	if err != nil {
		return nil, err
	}
	wo, err := f.walk.Cycle(&Inputs{Start: f.start, Method: f.midx, Stall: in.Stall, Cap: in.Cap, Win: in.Win, Avail: in.Avail, Rem: in.Rem, Pos: in.Pos})
	if err != nil {
		return nil, err
	}
	// (The walk's stand-in shows its old done_o at its start edge, where
	// the module's is already 0: the args flag is the one from before.)
	p, walking := f.prev, f.args
	ok := p.Code == uint8(schemagold.CodeOK)
	f.hdr, f.start, f.args, f.fail, f.midx =
		in.Start || (f.hdr && !p.Done), !in.Start && f.hdr && p.Done && ok,
		!in.Start && (f.args || f.start), !in.Start && (f.fail || (f.hdr && p.Done && !ok)), p.Method-1
	f.prev = *ho
	out := &RecvOutputs{Outputs: *wo, Header: *ho}
	out.Done = f.fail || (walking && wo.Done)
	return out, nil
}

// TestCheckMessageFake runs messages through the stand-in of schema_rx
// with CheckMessage: as CheckDrive for a correct one, with the header's
// result from the header's stand-in; a wrong header result is a mismatch
// naming recv_header's port.
func TestCheckMessageFake(t *testing.T) {
	c, _, table, msgs := loadCase(t, "PostStorageService:16")
	f := newFake(table, c.Width)
	hd := &hdrFake{t: table, width: c.Width}
	rx := &rxFake{hd: hd, walk: f}
	for _, m := range driveSample(msgs, 5) {
		f.msg, hd.msg = m.Msg, m.Msg
		rtl, ref := make([]byte, m.Cap), make([]byte, m.Cap)
		ck := CheckMessage(rx, table, m.Msg, rtl, ref)
		plain := CheckDrive(f, table, m.Msg, make([]byte, m.Cap), make([]byte, m.Cap))
		switch {
		case ck.Err != nil:
			t.Fatalf("message %d (%s): %v", m.N, m.Source, ck.Err)
		case ck.Header == nil || ck.HeaderOnly != plain.HeaderOnly || ck.Driven.Result != plain.Driven.Result:
			t.Fatalf("message %d (%s): header %+v, header-only %v, result %+v; CheckDrive: header-only %v, result %+v",
				m.N, m.Source, ck.Header, ck.HeaderOnly, ck.Driven.Result, plain.HeaderOnly, plain.Driven.Result)
		}
	}
	// Headers both refuse: recv_header's code, nothing walked.
	for _, h := range []struct {
		msg  []byte
		code schemagold.Code
	}{
		{[]byte("\x80\x01\x00\x01\x00\x00\x00\x03Foo\x00\x00\x00\x01\x00"), schemagold.CodeUnknownMethod},
		{[]byte("\x80\x01\x00\x01\x00\x00\x00\x08ReadPost\x00\x00"), schemagold.CodeTruncated},
	} {
		hd.msg = h.msg
		ck := CheckMessage(rx, table, h.msg, make([]byte, 128), make([]byte, 128))
		if ck.Err != nil || !ck.HeaderOnly || ck.Header == nil || ck.Header.Result.Code != h.code || ck.Driven != (Driven{}) {
			t.Errorf("% x: err %v, header-only %v, header %+v, driven %+v; want no error, header-only, %v, nothing driven",
				h.msg, ck.Err, ck.HeaderOnly, ck.Header, ck.Driven, h.code)
		}
	}
	m := msgs[0]
	f.msg, hd.msg = m.Msg, m.Msg
	hd.bug = func(r *schemagold.Result) { r.SeqID++ }
	ck := CheckMessage(rx, table, m.Msg, make([]byte, m.Cap), make([]byte, m.Cap))
	if !IsMismatch(ck.Err) || !strings.Contains(ck.Err.Error(), "recv_header: seqid_o") {
		t.Errorf("a wrong seqid from recv_header: %v; want a mismatch naming seqid_o", ck.Err)
	}
}
