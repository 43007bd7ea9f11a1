// Package schematx checks rtl/generic/resp_schema.sv, the generic,
// schema-driven respFunction, against its reference
// golden/schemagold.Serialize. For each service it builds a Verilated model
// of the module with the service's generated schema package (make
// schematx-model, into build/schematx-<stem>[-w<N>]) and runs App.Resp
// images through it: images from schemagold.BuildResp for every method
// with a reply (success, each declared exception, the empty result: a void
// method's success, another's nil result) with random values, strings and containers of three size
// scales, and as many of them corrupted (the result's presence word, a bit,
// a descriptor's offset or length half, a byte, the area end). Each runs
// with a random read latency (1, 1 to 3, or 1 to 9 cycles, answers in
// order) and random output stalls. It compares the module's bytes with the
// reply Serialize writes after its message header (version, name, seqid:
// the caller's), and its code and offset; it fails on a read outside
// [64, area end) or unaligned, a beat the cycle after a stall, a beat or
// read with done_o or after it, a read left unanswered, and a hang.
//
// The cases are the services of idl/ at 16 bytes a beat, PostStorageService
// at 8 and 64 too, and AllTypesService (testdata/alltypes.thrift) at 16:
// the wire types, kinds and limits idl/ lacks (BOOL, BYTE, I16, DOUBLE,
// sets, a union, optional fields, results nested past 8 levels, UUIDs).
// Run them with
//
//	go test ./tb/schematx
//
// TestRespSchema runs each case in a child process (VPI holds one model per
// process), two at a time, running TestRespSchemaOne with
// SCHEMATX_CASE=<service>:<width>. To run one case, or one image of it from
// reset with an FST trace into the case's build directory, img-<n>.fst
// (each failure prints this line):
//
//	SCHEMATX_CASE=PostStorageService:16 go test ./tb/schematx -run '^TestRespSchemaOne$' -count=1 -v
//	SCHEMATX_CASE=PostStorageService:16 SCHEMATX_IMG=123 go test ./tb/schematx -run '^TestRespSchemaOne$' -count=1 -v
//
// A failure also leaves the image (fail-<n>.img) and its trace
// (fail-<n>.fst) in the case's build directory. SCHEMATX_MODEL=<library>
// runs a case on that model instead of building one.
package schematx
