package usertimeline

import (
	"testing"

	"arcalis/tb/schemarx"
)

// FuzzRecvSchemaUserTimeline runs UserTimelineService's args through the
// Verilated recv_schema and schemagold.Deserialize (tb/schemarx.Fuzz):
//
//	go test ./tb/schemafuzz/usertimeline -run '^$' -fuzz '^FuzzRecvSchemaUserTimeline$' -fuzztime 60s -fuzzminimizetime 5s -parallel 1
func FuzzRecvSchemaUserTimeline(f *testing.F) { schemarx.Fuzz(f, "UserTimelineService") }
