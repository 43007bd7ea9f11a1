package uniqueid

import (
	"testing"

	"arcalis/tb/schemarx"
)

// FuzzRecvSchemaUniqueId runs UniqueIdService's args through the
// Verilated recv_schema and schemagold.Deserialize (tb/schemarx.Fuzz):
//
//	go test ./tb/schemafuzz/uniqueid -run '^$' -fuzz '^FuzzRecvSchemaUniqueId$' -fuzztime 60s -fuzzminimizetime 5s -parallel 1
func FuzzRecvSchemaUniqueId(f *testing.F) { schemarx.Fuzz(f, "UniqueIdService") }
