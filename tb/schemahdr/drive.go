package schemahdr

import (
	"arcalis/golden/schemagold"
	"arcalis/thriftidl/schema"
)

// Driven is what the module did with one message (tb/schemarx.DriveRecv
// drives it inside schema_rx).
type Driven struct {
	Result schemagold.Result // code_o, offset_o, msg_type_o, method_o, seqid_o at done_o
	Cycles int               // from start_i to done_o
	Taken  int               // message bytes the module took
}

// Compare compares what the module did with msg, dr, with
// schemagold.CheckHeader's result: the same result and, on OK, exactly the
// header taken. A difference is a *Mismatch, "recv_header: " and the ports
// that differ (ResultDiff).
func Compare(dr Driven, t *schema.Table, msg []byte) error {
	want := schemagold.CheckHeader(t, msg)
	if diff := ResultDiff(dr.Result, want); diff != "" {
		return mismatchf("recv_header: %s", diff)
	}
	if want.Code == schemagold.CodeOK && dr.Taken != int(want.Offset) {
		return mismatchf("recv_header took %d bytes, want exactly the header's %d", dr.Taken, want.Offset)
	}
	return nil
}
