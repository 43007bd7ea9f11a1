package urlshorten

import (
	"testing"

	"arcalis/tb/schemarx"
)

// FuzzRecvSchemaUrlShorten runs UrlShortenService's args through the
// Verilated recv_schema and schemagold.Deserialize (tb/schemarx.Fuzz):
//
//	go test ./tb/schemafuzz/urlshorten -run '^$' -fuzz '^FuzzRecvSchemaUrlShorten$' -fuzztime 60s -fuzzminimizetime 5s -parallel 1
func FuzzRecvSchemaUrlShorten(f *testing.F) { schemarx.Fuzz(f, "UrlShortenService") }
