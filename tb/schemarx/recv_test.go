package schemarx

import (
	"os"
	"testing"
	"time"

	"arcalis/golden/schemagold"
	"arcalis/tb/schemacase"
	"arcalis/tb/schemahdr"
)

// TestRecvOne's environment: the case, and the model instead of the one
// make schema-rx-model builds.
const (
	envRecvCase  = "SCHEMARECV_CASE"  // <service>:<width>
	envRecvModel = "SCHEMARECV_MODEL" // a model of schema_rx alone
)

// TestRecvOne receives every message of the case SCHEMARECV_CASE names
// with schema_rx alone (make schema-rx-model, or SCHEMARECV_MODEL: make
// schema-rx-gatesim runs it on the synthesized netlist) and compares each
// with the reference as CheckMessage does. go test ./... runs schema_rx
// inside schema_pair instead, through run --service, serve --service and
// tb/schemahdr, so it runs this only when selected.
func TestRecvOne(t *testing.T) {
	sel := os.Getenv(envRecvCase)
	if sel == "" {
		t.Skipf("not selected: make schema-rx-gatesim runs it, with %s=<service>:<width>", envRecvCase)
	}
	c, err := RecvModule.ParseCase(sel, Services)
	if err != nil {
		t.Fatal(err)
	}
	_, root, table, msgs := loadCase(t, sel)
	// And tb/schemahdr's headers (those of a message at most MaxMessage
	// long), at the largest capacity.
	recs, err := c.Records(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range schemahdr.Messages(c.Vectors, table, recs) {
		if !h.Big {
			msgs = append(msgs, Message{N: len(msgs), Source: "tb/schemahdr: " + h.Source, Msg: h.Msg, Cap: MaxCap})
		}
	}
	model, built := schemacase.OpenChildModel(t, c, root, envRecvModel, envJobs, OpenRecv)
	t1 := time.Now()
	var headerOnly, ok, compared, cycles int
	big := [2][]byte{make([]byte, MaxCap), make([]byte, MaxCap)}
	for _, m := range msgs {
		rtl, ref := make([]byte, m.Cap), make([]byte, m.Cap)
		if m.Cap == MaxCap {
			rtl, ref = big[0], big[1]
		}
		ck := CheckMessage(model, table, m.Msg, rtl, ref)
		if ck.Err != nil {
			t.Errorf("%s: message %d (%s), %d bytes, capacity %d: %v\n\treplay: %s=%s go test ./tb/schemarx -run '^TestRecvOne$' -count=1 -v",
				c, m.N, m.Source, len(m.Msg), m.Cap, ck.Err, envRecvCase, c)
			if err := model.Reset(); err != nil {
				t.Fatal(err)
			}
			continue
		}
		switch {
		case ck.HeaderOnly:
			headerOnly++
		default:
			compared++
			cycles += ck.Driven.Cycles
			if ck.Ref.Code == schemagold.CodeOK {
				ok++
			}
		}
	}
	t.Logf("%s: model built in %v; %d messages in %v: %d received and compared (%d OK), %d refused at the header; %d cycles",
		c, built.Round(time.Millisecond), len(msgs), time.Since(t1).Round(time.Millisecond), compared, ok, headerOnly, cycles)
	if ok == 0 || compared == ok || headerOnly == 0 {
		t.Errorf("%s: %d received (%d OK), %d refused at the header: want some of each", c, compared, ok, headerOnly)
	}
}
