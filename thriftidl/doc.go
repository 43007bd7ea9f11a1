// Package thriftidl reads Apache Thrift IDL files: it lexes, parses, follows
// includes and resolves every name, with errors as "file:line:col: message".
//
// The subset (docs/idl.md): comments //, # and /* */; namespace, include,
// cpp_include, const, typedef, enum, struct, union, exception and service
// (extends, oneway, throws); explicit field ids 1 to 32767; required and
// optional; default values; annotations in parentheses, parsed and ignored;
// the base types bool byte i8 i16 i32 i64 double string binary uuid and
// list, set and map nested to any depth; "," or ";" between items.
package thriftidl
