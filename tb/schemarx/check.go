package schemarx

import (
	"fmt"

	"arcalis/golden/schemagold"
	"arcalis/tb/schemahdr"
	"arcalis/thriftidl/schema"
)

// Checked is one message run through the module with Drive and compared
// with schemagold.Deserialize as Harness compares (Compare).
type Checked struct {
	// HeaderOnly: the header failed (the reference's, or with
	// CheckMessage the module's and the reference's: Header.Result), or the
	// message ends before the args, so the module had nothing to walk and
	// Driven is zero.
	HeaderOnly bool
	Ref        schemagold.Result // the reference's header line
	// Header is what schema_rx's recv_header did under CheckMessage; nil
	// under CheckDrive, whose header step is the reference's.
	Header *schemahdr.Driven
	Driven Driven // what the module did; its header line is Driven.Result
	// Err is a *Mismatch when the module differs from the reference or
	// broke the protocol (then reset it); any other error is the
	// simulator's or the reference's.
	Err error
}

// CheckDrive runs msg through the reference into ref and, unless the
// reference refused the header, its args through d with Drive into rtl, and
// compares the two as Harness.Check does, minus its stalls and slow
// arrivals: header line, on OK the area, what ReadBack reads from each, and
// that the module took the message exactly up to the args' end. rtl and ref
// are the images, whose common length is the App.Recv capacity.
func CheckDrive(d DUT, t *schema.Table, msg, rtl, ref []byte) Checked {
	c := reference(t, msg, rtl, ref)
	if c.Err != nil {
		return c
	}
	start, ok := argsStart(msg)
	if c.Ref.Method == 0 || !ok {
		c.HeaderOnly = true
		return c
	}
	return c.args(d, t, msg, rtl, ref, Request{Start: start, Method: int(c.Ref.Method) - 1, SeqID: c.Ref.SeqID, MsgType: c.Ref.MsgType})
}

// CheckMessage is CheckDrive with the header's step in hardware too: d,
// schema_rx, receives msg (DriveRecv): recv_header's result must be
// schemagold.CheckHeader's (schemahdr.Compare) and, when it is OK, the
// walk that follows is compared as CheckDrive compares it. Driven.Cycles
// then run from schema_rx's start_i to its done_o, the whole receive.
func CheckMessage(d RecvDUT, t *schema.Table, msg, rtl, ref []byte) Checked {
	c := reference(t, msg, rtl, ref)
	if c.Err != nil {
		return c
	}
	c.prepare(rtl)
	hdr, dr, err := DriveRecv(d, t, rtl, msg)
	c.Header = &hdr
	if hdr.Cycles > 0 && hdr.Result.Code == schemagold.CodeOK {
		c.Driven = dr // the walk ran, to its end or to err
	}
	if err == nil {
		err = schemahdr.Compare(hdr, t, msg)
	}
	switch {
	case err != nil:
		c.Err = err
	case hdr.Result.Code != schemagold.CodeOK:
		c.HeaderOnly = true
	default:
		c.Err = c.compare(t, ref, rtl)
	}
	return c
}

// reference checks the images and runs the reference into ref.
func reference(t *schema.Table, msg, rtl, ref []byte) Checked {
	var c Checked
	if len(rtl) != len(ref) {
		c.Err = fmt.Errorf("schemarx: images of %d and %d bytes: want one capacity", len(rtl), len(ref))
		return c
	}
	if c.Err = schemagold.CheckCapacity(len(rtl)); c.Err != nil {
		return c
	}
	c.Ref = schemagold.Deserialize(t, msg, ref)
	return c
}

// args walks r's args through d into rtl and compares them with the
// reference's in ref.
func (c Checked) args(d DUT, t *schema.Table, msg, rtl, ref []byte, r Request) Checked {
	c.prepare(rtl)
	r.Msg = msg
	c.Driven, c.Err = Drive(d, rtl, r)
	if c.Err == nil {
		c.Err = c.compare(t, ref, rtl)
	}
	return c
}

// prepare fills the area the reference wrote with garbage: the drivers
// leave unstored bytes as they were, so garbage there shows an area byte
// the module should have written.
func (c Checked) prepare(rtl []byte) {
	fill(rtl[schemagold.AreaStart:max(schemagold.AreaStart, int(c.Ref.AreaEnd))], garbage)
}

// compare compares the walk (c.Driven, its image rtl) with the
// reference's (c.Ref, ref), and checks that it took the message exactly
// up to the args' end.
func (c Checked) compare(t *schema.Table, ref, rtl []byte) error {
	if err := Compare(t, c.Ref, c.Driven.Result, ref, rtl); err != nil {
		return err
	}
	if c.Ref.Code == schemagold.CodeOK && c.Driven.Head != int(c.Ref.Offset) {
		// The bytes after the args' STOP are not the module's to take.
		return mismatchf("took the message up to byte %d, want up to the args' end %d", c.Driven.Head, c.Ref.Offset)
	}
	return nil
}

// ArgsDiff names the first argument where the args read back from image
// rtl differ from those read back from image ref ("args.post.text: ..."),
// or says which does not read back; "" if they are equal. It names the
// field behind an image byte Compare reports.
func ArgsDiff(t *schema.Table, rtl, ref []byte) string {
	gm, gerr := schemagold.ReadBack(t, rtl)
	rm, rerr := schemagold.ReadBack(t, ref)
	switch {
	case rerr != nil:
		return "the reference's image does not read back: " + rerr.Error()
	case gerr != nil:
		return "the image does not read back: " + gerr.Error()
	}
	return valueDiff("args", gm.Args, rm.Args)
}
