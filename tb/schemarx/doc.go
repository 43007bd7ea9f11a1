// Package schemarx checks rtl/generic/recv_schema.sv, the generic,
// schema-driven recvFunction, against its reference
// golden/schemagold.Deserialize. For each service it generates the
// service's SystemVerilog schema package (thriftidl/gen.SV), builds a
// Verilated model of the module with it (make schema-model, into
// build/schema-<stem>[-w<N>]) and feeds it, window by window with
// random stalls and slow arrivals, every record of the service's default
// vectors and args generated from its table, each at several capacities,
// cut at many points and with single-byte mutations, and messages crafted
// for each limit of docs/idl.md (depth, element counts, bad types,
// required fields, an area filled to its last byte). It compares the
// header line field by field and, on OK, the area, what schemagold.ReadBack
// finds in it and the bytes taken; it fails on any store outside
// [64, capacity), on a take beyond the window, on activity the cycle
// after a stall (stall_i is a cycle ahead) or after done_o, and on a hang.
//
// The cases are the services of idl/ at 16 bytes per cycle,
// PostStorageService at 8 and 64 too, and RequiredService
// (testdata/required.thrift: the only one with required fields in its
// args) at 32. Run them with
//
//	go test ./tb/schemarx
//
// The first run builds the eight models (under two minutes on two cores);
// later runs take seconds. VPI holds one model per process, so
// TestRecvSchema runs each case in a child process, two at a time, running
// TestRecvSchemaOne with SCHEMARX_CASE=<service>:<width>. To run one case,
// or one message of it from reset with an FST trace into
// the case's build directory, msg-<n>.fst (each failure prints this line):
//
//	SCHEMARX_CASE=PostStorageService:16 go test ./tb/schemarx -run '^TestRecvSchemaOne$' -count=1 -v
//	SCHEMARX_CASE=PostStorageService:16 SCHEMARX_MSG=123 go test ./tb/schemarx -run '^TestRecvSchemaOne$' -count=1 -v
//
// SCHEMARX_MODEL=<library> runs a case on that model instead of building
// one: make schema-gatesim SERVICE=<stem> runs it on the synthesized
// netlist.
//
// A failure also leaves the message (fail-<n>.msg) and its trace
// (fail-<n>.fst) in the case's build directory. TestHarnessFake and
// TestHarnessCatches check the harness itself, without a model, on a
// stand-in for the module, correct and with one bug each.
//
// Fuzz is the body of one fuzz target per service of idl/,
// FuzzRecvSchema<Service> in tb/schemafuzz/<stem> (the IDL stem without
// underscores; a package each: one model per process): an input is the args of a CALL, a method, a
// capacity byte and a stall seed, run through the model at Width 16 and
// checked as above. go test ./tb/schemafuzz/... runs their seeds (the
// default vectors' args, generated and crafted ones); to fuzz one, with
// SCHEMAFUZZ_TRACE=1 to trace a failing input into the case's build
// directory (fuzz-fail.fst):
//
//	go test ./tb/schemafuzz/poststorage -run '^$' -fuzz '^FuzzRecvSchemaPostStorage$' -fuzztime 60s
//
// In a run that short, -fuzzminimizetime 5s leaves more of it to new
// inputs: go test minimizes each new interesting input for up to 60 s by
// default, and a kilobyte of args takes that long.
package schemarx
