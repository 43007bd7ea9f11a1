package schemahdr

import "arcalis/tb/schemacase"

// Service is a service of idl/ with its committed default vectors.
type Service = schemacase.Service

// Services are the services of idl/: the header's rules depend only on
// their method names.
var Services = []Service{
	{Name: "MemcachedService", IDL: "idl/memcached.thrift", Vectors: "vectors/default.vec"},
	{Name: "UniqueIdService", IDL: "idl/unique_id.thrift", Vectors: "vectors/default-unique_id.vec"},
	{Name: "UrlShortenService", IDL: "idl/url_shorten.thrift", Vectors: "vectors/default-url_shorten.vec"},
	{Name: "PostStorageService", IDL: "idl/post_storage.thrift", Vectors: "vectors/default-post_storage.vec"},
	{Name: "UserTimelineService", IDL: "idl/user_timeline.thrift", Vectors: "vectors/default-user_timeline.vec"},
}

// Widths are the module's Width parameter values (window bytes).
var Widths = schemacase.Widths

// Case is one model: a service's method names in a recv_header of one
// width, inside schema_pair (make schema-pair-model, into
// build/schema-pair-<stem>[-w<N>]), the model `arcalis run --service` and
// `serve --service` run: the other units sit idle.
type Case = schemacase.Case

// Module is the make plumbing of the cases' models: schema_pair's.
var Module = schemacase.Pair

// ParseCase reads "<service>:<width>", the form of SCHEMAHDR_CASE.
func ParseCase(s string) (Case, error) { return Module.ParseCase(s, Services) }

// The module under test, the package it imports besides the schema's and
// the model's other sources, relative to the repository root.
const (
	RTLSource  = "rtl/generic/recv_header.sv"
	RTLPackage = "rtl/arcalis_pkg.sv"
)

var pairSources = []string{"rtl/generic/schema_pair.sv", "rtl/generic/schema_rx.sv", "rtl/generic/recv_schema.sv", "rtl/generic/resp_schema.sv"}
