package schemarx

import (
	"strings"
	"testing"

	"arcalis/golden/schemagold"
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
