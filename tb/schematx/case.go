package schematx

import "arcalis/tb/schemacase"

// Service is one service of idl/ or, with its IDL in testdata/,
// AllTypesService: the wire types, kinds and limits idl/ lacks.
type Service = schemacase.Service

// Services are the services of idl/ and the testdata service.
var Services = []Service{
	{Name: "MemcachedService", IDL: "idl/memcached.thrift"},
	{Name: "UniqueIdService", IDL: "idl/unique_id.thrift"},
	{Name: "UrlShortenService", IDL: "idl/url_shorten.thrift"},
	{Name: "PostStorageService", IDL: "idl/post_storage.thrift"},
	{Name: "UserTimelineService", IDL: "idl/user_timeline.thrift"},
	{Name: "AllTypesService", IDL: "tb/schematx/testdata/alltypes.thrift"},
}

// Widths are the module's Width parameter values (output bytes a beat).
var Widths = schemacase.Widths

// Case is one model: a service's tables in a resp_schema of one width,
// built by make schematx-model into build/schematx-<stem>[-w<N>] (the
// testdata service: build/schematx/<snake>[-w<N>]).
type Case = schemacase.Case

// Module is resp_schema's make plumbing in mk/schema.mk.
var Module = schemacase.Module{Target: "schematx", Vars: "SCHEMATX", TestDir: "schematx"}

// ParseCase reads "<service>:<width>", the form of SCHEMATX_CASE.
func ParseCase(s string) (Case, error) { return Module.ParseCase(s, Services) }

// The module under test and the package it imports besides the schema's,
// relative to the repository root.
const (
	RTLSource  = "rtl/generic/resp_schema.sv"
	RTLPackage = "rtl/arcalis_pkg.sv"
)
