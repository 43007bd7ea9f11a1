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
	// Header is what recv_header did under CheckMessage; nil under
	// CheckDrive, whose header step is the reference's.
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

// CheckMessage is CheckDrive with the header's step in RTL too: hd, the
// recv_header beside d (schema_pair), checks msg's header against
// schemagold.CheckHeader (schemahdr.Check); on OK d walks the args from
// hd's offset for hd's method.
func CheckMessage(hd schemahdr.DUT, d DUT, t *schema.Table, msg, rtl, ref []byte) Checked {
	c := reference(t, msg, rtl, ref)
	if c.Err != nil {
		return c
	}
	hdr, err := schemahdr.Check(hd, t, msg)
	c.Header = &hdr
	switch {
	case err != nil:
		c.Err = err
		return c
	case hdr.Result.Code != schemagold.CodeOK:
		c.HeaderOnly = true
		return c
	}
	h := hdr.Result
	return c.args(d, t, msg, rtl, ref, Request{Start: int(h.Offset), Method: int(h.Method) - 1, SeqID: h.SeqID, MsgType: h.MsgType})
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
	// Drive leaves unstored bytes as they were: garbage where the
	// reference wrote shows an area byte the module should have written.
	fill(rtl[schemagold.AreaStart:max(schemagold.AreaStart, int(c.Ref.AreaEnd))], garbage)
	r.Msg = msg
	c.Driven, c.Err = Drive(d, rtl, r)
	if c.Err != nil {
		return c
	}
	c.Err = Compare(t, c.Ref, c.Driven.Result, ref, rtl)
	if c.Err == nil && c.Ref.Code == schemagold.CodeOK && c.Driven.Head != int(c.Ref.Offset) {
		// The bytes after the args' STOP are not the module's to take.
		c.Err = mismatchf("took the message up to byte %d, want up to the args' end %d", c.Driven.Head, c.Ref.Offset)
	}
	return c
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
