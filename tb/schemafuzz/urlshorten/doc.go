// Package urlshorten holds FuzzRecvSchemaUrlShorten, the fuzz target of
// rtl/generic/recv_schema.sv for UrlShortenService against golden/schemagold
// (tb/schemarx.Fuzz). It is a package of its own because VPI holds one
// model per process.
package urlshorten
