package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"arcalis/golden/schemagold"
	"arcalis/tb/schemacase"
	"arcalis/tb/schemarx"
	"arcalis/tb/schematx"
	"arcalis/thriftidl/schema"
	"arcalis/vectors"
)

// oneway is the message type of a ONEWAY call: no reply.
const oneway = 4

// childMain measures one unit of one service on the model -lib and prints
// a unitRun as JSON. The model belongs to this goroutine's OS thread.
func childMain(o options, root string) error {
	var svc schemacase.Service
	for _, s := range services() {
		if s.Name == o.service {
			svc = s
		}
	}
	if svc.Name == "" {
		return fmt.Errorf("-service %q: not a service of idl/ with default vectors", o.service)
	}
	c := schemarx.Module.Case(svc, o.width)
	table, err := c.Table(root)
	if err != nil {
		return err
	}
	recs, err := c.Records(root)
	if err != nil {
		return err
	}
	ur := unitRun{Unit: o.child, Service: svc.Name}
	switch o.child {
	case "recv":
		ur.Requests, err = measureRecv(o, table, recs)
	case "resp":
		ur.Requests, err = measureResp(o, table, recs)
	default:
		err = fmt.Errorf("-child %q: want recv or resp", o.child)
	}
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(ur)
}

// measureRecv receives each record once per latency as the RxEngine
// would, with schema_rx on schema_pair's model: one stream of the message
// from byte 0, fed as a load queue would (schemarx.RecvStream), through
// recv_header's check, then recv_schema's walk of the args, its stores
// accepted at once, checked against the reference (schemarx.CheckMessage).
// Its cycles run from schema_rx's start_i to its done_o.
func measureRecv(o options, t *schema.Table, recs []vectors.Record) ([]reqResult, error) {
	sim, err := schemacase.Open(o.lib, schemacase.PairTop+"clk_i", o.width)
	if err != nil {
		return nil, err
	}
	defer sim.Close()
	m, err := schemarx.OnSimRecv(sim, schemacase.PairTop, schemacase.PairRx)
	if err != nil {
		return nil, err
	}
	stop, err := traceFrom(sim, o.fst)
	if err != nil {
		return nil, err
	}
	defer stop() // on an error path: its error is the one returned
	if err := m.Reset(); err != nil {
		return nil, err
	}
	rtl, ref := make([]byte, schemarx.MaxCap), make([]byte, schemarx.MaxCap)
	out := make([]reqResult, 0, len(recs))
	for _, rec := range recs {
		rr := reqResult{Index: rec.Index, Bytes: len(rec.Msg)}
		for _, lat := range o.latencies {
			ck := schemarx.CheckMessage(&schemarx.RecvStream{RecvDUT: m, Latency: lat}, t, rec.Msg, rtl, ref)
			err := ck.Err
			switch {
			case err != nil:
			case ck.HeaderOnly:
				rr.Skip = "header refused: " + ck.Header.Result.Code.String()
			case ck.Ref.Code != schemagold.CodeOK:
				rr.Skip = "refused: " + ck.Ref.Code.String()
			}
			if ck.Header != nil && ck.Header.Result.Method > 0 {
				rr.Method = t.Methods[ck.Header.Result.Method-1].Name
			}
			if err != nil {
				if !schemarx.IsMismatch(err) {
					return nil, fmt.Errorf("record %d: %w", rec.Index, err)
				}
				rr.Err = fmt.Sprintf("latency %d: %v", lat, err)
				if err := m.Reset(); err != nil {
					return nil, err
				}
			}
			if rr.Skip != "" || rr.Err != "" {
				break
			}
			rr.Header = append(rr.Header, ck.Header.Cycles)
			rr.Cycles = append(rr.Cycles, ck.Driven.Cycles)
		}
		if rr.Skip != "" || rr.Err != "" {
			rr.Cycles, rr.Header = nil, nil
		}
		out = append(out, rr)
	}
	return out, stop()
}

// measureResp answers each record the reference accepts with a result
// (results), builds its App.Resp image with schemagold.BuildResp and runs
// it through resp_schema once per latency (schematx.Drive), checking the
// bytes against schemagold.Serialize.
func measureResp(o options, t *schema.Table, recs []vectors.Record) ([]reqResult, error) {
	ref := make([]byte, schemarx.MaxCap)
	type accepted struct {
		pos int // in recs and out
		rec vectors.Record
		res schemagold.Result
		c   call
	}
	var acc []accepted
	var calls []call
	out := make([]reqResult, len(recs))
	for i, rec := range recs {
		out[i] = reqResult{Index: rec.Index}
		res := schemagold.Deserialize(t, rec.Msg, ref)
		if res.Method == 0 {
			out[i].Skip = "header names no method of the service"
			continue
		}
		out[i].Method = t.Methods[res.Method-1].Name
		if res.Code != schemagold.CodeOK {
			out[i].Skip = "refused: " + res.Code.String()
			continue
		}
		msg, err := schemagold.ReadBack(t, ref)
		if err != nil {
			return nil, fmt.Errorf("record %d: the reference's image does not read back: %v", rec.Index, err)
		}
		c := call{method: msg.Method, args: msg.Args}
		acc = append(acc, accepted{i, rec, res, c})
		calls = append(calls, c)
	}
	m, err := schematx.OpenModel(o.lib, o.width)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	stop, err := traceFrom(m.Sim, o.fst)
	if err != nil {
		return nil, err
	}
	defer stop() // on an error path: its error is the one returned
	if err := m.Reset(); err != nil {
		return nil, err
	}
	st := newResults(calls)
	for i, a := range acc {
		rr := &out[a.pos]
		mi := int(a.res.Method) - 1
		result, err := st.result(a.c)
		if err != nil {
			return nil, err
		}
		if t.Methods[mi].Oneway || a.res.MsgType == oneway {
			rr.Skip = "no reply (oneway)"
			continue
		}
		img, err := schemagold.BuildResp(t, mi, a.res.SeqID, result)
		if err != nil {
			return nil, fmt.Errorf("record %d (%s): BuildResp: %v", a.rec.Index, a.c.method, err)
		}
		reply, code, off := schemagold.Serialize(t, img, mi, a.res.SeqID)
		if code != schemagold.CodeRespOK {
			return nil, fmt.Errorf("record %d (%s): the reference refuses its own image: %v at %d", a.rec.Index, a.c.method, code, off)
		}
		want := reply[12+len(t.Methods[mi].Name):] // after version, name, seqid
		rr.Bytes = len(want)
		for _, lat := range o.latencies {
			tm, err := schematx.Drive(m, schematx.Image{N: i, Method: mi, SeqID: a.res.SeqID, Img: img}, lat, 0)
			if err == nil {
				switch {
				case tm.Code != schemagold.CodeRespOK:
					err = fmt.Errorf("code %v at %d, want RESP_OK", tm.Code, tm.Offset)
				case !bytes.Equal(tm.Out, want) || tm.Offset != len(want):
					err = fmt.Errorf("the reply differs from Serialize's: %d bytes (offset_o %d), want %d", len(tm.Out), tm.Offset, len(want))
				}
			} else if !schematx.IsMismatch(err) {
				return nil, fmt.Errorf("record %d: %w", a.rec.Index, err)
			}
			if err != nil {
				rr.Err, rr.Cycles = fmt.Sprintf("latency %d: %v", lat, err), nil
				if err := m.Reset(); err != nil {
					return nil, err
				}
				break
			}
			rr.Cycles = append(rr.Cycles, tm.Cycles)
			rr.Reads, rr.Most = tm.Reads, tm.Outstanding
		}
	}
	return out, stop()
}

// traceFrom starts an FST trace of sim into path (none if path is ""),
// for the activity the power estimate counts; stop ends it (once: later
// calls return nil), and its error is the trace's. The reset that follows
// is in it, as in make report's trace of the engine.
func traceFrom(sim schemacase.Sim, path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	if err := sim.TraceOn(path); err != nil {
		return nil, err
	}
	done := false
	return func() error {
		if done {
			return nil
		}
		done = true
		return sim.TraceOff()
	}, nil
}
