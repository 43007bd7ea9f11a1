// Package poststorage holds FuzzRecvSchemaPostStorage, the fuzz target of
// rtl/generic/recv_schema.sv for PostStorageService against golden/schemagold
// (tb/schemarx.Fuzz). It is a package of its own because VPI holds one
// model per process.
package poststorage
