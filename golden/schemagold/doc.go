// Package schemagold is the schema-driven reference of the generic
// recvFunction (issue 17 item 3): Deserialize walks one Thrift binary-protocol
// CALL with a service's schema tables (package thriftidl/schema) and writes
// the App.Recv image of a generated service (docs/abi.md section 12);
// ReadBack decodes such an image back into Go values.
//
// It follows Apache Thrift's Go library 0.17.0 and the code its compiler
// generates: unknown fields of every type are skipped as
// thrift.SkipDefaultDepth skips them, a known field of another wire type is
// skipped, a repeated field's last occurrence wins, a container's element
// types on the wire are not compared with the schema's. Where it does not,
// the difference is a limit with its own result code (Code).
package schemagold
