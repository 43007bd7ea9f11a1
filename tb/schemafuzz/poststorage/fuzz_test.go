package poststorage

import (
	"testing"

	"arcalis/tb/schemarx"
)

// FuzzRecvSchemaPostStorage runs PostStorageService's args through the
// Verilated recv_schema and schemagold.Deserialize (tb/schemarx.Fuzz):
//
//	go test ./tb/schemafuzz/poststorage -run '^$' -fuzz '^FuzzRecvSchemaPostStorage$' -fuzztime 60s -fuzzminimizetime 5s -parallel 1
func FuzzRecvSchemaPostStorage(f *testing.F) { schemarx.Fuzz(f, "PostStorageService") }
