package memcached

import (
	"testing"

	"arcalis/tb/schemarx"
)

// FuzzRecvSchemaMemcached runs MemcachedService's args through the
// Verilated recv_schema and schemagold.Deserialize (tb/schemarx.Fuzz):
//
//	go test ./tb/schemafuzz/memcached -run '^$' -fuzz '^FuzzRecvSchemaMemcached$' -fuzztime 60s -fuzzminimizetime 5s -parallel 1
func FuzzRecvSchemaMemcached(f *testing.F) { schemarx.Fuzz(f, "MemcachedService") }
