package schemarx

import "arcalis/tb/schemacase"

// Service is a service with its committed default vectors.
type Service = schemacase.Service

// Services are the services the testbench checks: those of idl/, and
// RequiredService, whose required fields make REQUIRED_MISSING reachable.
var Services = []Service{
	{Name: "MemcachedService", IDL: "idl/memcached.thrift", Vectors: "vectors/default.vec"},
	{Name: "UniqueIdService", IDL: "idl/unique_id.thrift", Vectors: "vectors/default-unique_id.vec"},
	{Name: "UrlShortenService", IDL: "idl/url_shorten.thrift", Vectors: "vectors/default-url_shorten.vec"},
	{Name: "PostStorageService", IDL: "idl/post_storage.thrift", Vectors: "vectors/default-post_storage.vec"},
	{Name: "UserTimelineService", IDL: "idl/user_timeline.thrift", Vectors: "vectors/default-user_timeline.vec"},
	{Name: "RequiredService", IDL: "tb/schemarx/testdata/required.thrift"},
}

// Widths are the module's Width parameter values (bytes per cycle).
var Widths = schemacase.Widths

// Case is one model: a service's table in a recv_schema of one width,
// built by make schema-model into build/schema-<stem>[-w<N>] (a testdata
// service: build/schemarx/<snake>[-w<N>]).
type Case = schemacase.Case

// Module is recv_schema's make plumbing in mk/schema.mk.
var Module = schemacase.Module{Target: "schema", Vars: "SCHEMA", TestDir: "schemarx"}

// ParseCase reads "<service>:<width>", the form of SCHEMARX_CASE.
func ParseCase(s string) (Case, error) { return Module.ParseCase(s, Services) }

// RTLSource is the module under test, and RTLPackage the package it
// imports besides the schema's, relative to the repository root.
const (
	RTLSource  = "rtl/generic/recv_schema.sv"
	RTLPackage = "rtl/arcalis_pkg.sv"
)

// RecvModule is schema_rx's make plumbing in mk/schema.mk (make
// schema-rx-model: schema_rx alone, for TestRecvOne).
var RecvModule = schemacase.Module{Target: "schema-rx", Vars: "SCHEMARXSEQ", TestDir: "schema-rx"}

// RecvTop is schema_rx's hierarchical name in a model of it alone.
const RecvTop = "schema_rx."

// OpenRecv opens a model of schema_rx alone (make schema-rx-model, or make
// schema-rx-gatesim's netlist). The Model belongs to the calling
// goroutine's OS thread (see vpi.Open); Close it there.
func OpenRecv(lib string, width int) (*RecvModel, error) {
	sim, err := schemacase.Open(lib, RecvTop+"clk_i", width)
	if err != nil {
		return nil, err
	}
	m, err := OnSimRecv(sim, RecvTop, "")
	if err != nil {
		sim.Close()
		return nil, err
	}
	return m, nil
}
