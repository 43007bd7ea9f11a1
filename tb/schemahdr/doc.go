// Package schemahdr checks rtl/generic/recv_header.sv, the generic
// recvFunction's message-header check (version, message type, method
// name, seqid), against its reference golden/schemagold.CheckHeader. For
// each service of idl/ it builds the Verilated model `arcalis run
// --service` and `serve --service` run, schema_pair with the service's
// schema package (make schema-pair-model, into
// build/schema-pair-<stem>[-w<N>]), and feeds the recv_header of its
// schema_rx (OpenPair: after a header it accepted the model is reset, as
// the args' walk that follows is tb/schemarx's), window by window with
// random stalls and slow arrivals, the messages of the service's default
// vectors and headers generated around the rules of docs/abi.md section 5:
// every prefix of a good header, each name byte changed, names cut,
// extended and fitted from the other methods' (ReadPost, ReadPosts),
// name lengths off by one, 0, negative, huge or right in their low bits
// only, versions with each of bytes 0 to 2 wrong, message types (all 256
// for the first method), and messages longer than MaxMessage (big_i). It
// compares code_o, offset_o, msg_type_o, method_o and seqid_o with
// CheckHeader's and, on OK, that the module took exactly the header
// (12 + name length bytes); it fails on a take beyond avail_i, a take the
// cycle after stall_i, a take with done_o, a result that does not hold a
// cycle after done_o, and a hang. big_i is driven with start_i only: on
// other cycles it is random (don't-care), as are window bytes at or above
// avail_i.
//
// The cases are the services of idl/ at 16 bytes a window (other widths
// on demand, with SCHEMAHDR_CASE below). Run them with
//
//	go test ./tb/schemahdr
//
// TestRecvHeader runs each case in a child process (VPI holds one model
// per process), two at a time, running TestRecvHeaderOne with
// SCHEMAHDR_CASE=<service>:<width>. To run one case, or one message of it
// from reset with an FST trace into the case's build directory,
// msg-<n>.fst (each failure prints this line):
//
//	SCHEMAHDR_CASE=PostStorageService:16 go test ./tb/schemahdr -run '^TestRecvHeaderOne$' -count=1 -v
//	SCHEMAHDR_CASE=PostStorageService:16 SCHEMAHDR_MSG=123 go test ./tb/schemahdr -run '^TestRecvHeaderOne$' -count=1 -v
//
// A failure also leaves the message (fail-<n>.msg; a big message's first
// bytes) and its trace (fail-<n>.fst) in the case's build directory.
// SCHEMAHDR_MODEL=<library> runs a case on a model of recv_header alone
// instead (make schemahdr-model's, or the netlist's of make
// schemahdr-gatesim). TestHarnessFake and TestHarnessCatches check the harness
// itself, without a model, on a stand-in for the module built on
// CheckHeader, correct and with one bug each.
package schemahdr
