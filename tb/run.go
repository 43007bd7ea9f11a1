package tb

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
)

// RunOptions say how vectors are placed and what a failure leaves behind.
type RunOptions struct {
	Offset   int    // start offset within the line; -1: the vector's index mod 64
	CapLines int    // App.Recv capacity (0: DefaultCapLines)
	NetBase  uint64 // Net.Recv's line-aligned base (0: NetRecvBase)
	AppBase  uint64 // App.Recv's line-aligned base (0: AppRecvBase)
	WaveDir  string // if set, a failing vector is replayed alone into WaveDir/WaveName
	WaveName string // the waveform's file name in WaveDir; "": vector-N.fst
	// RecordedReply, if set, is the SHA-256 of the reply a server sent for
	// the message (vectors.MetaReplySHA256): a reply the engine writes must
	// be those bytes too.
	RecordedReply []byte
	// The reply's business logic, framing and Net.Resp capacity (Request's).
	App     Application
	Framed  bool
	RespCap int
}

// Run is one vector's full record: what went in, what the RTL did, the verdict.
type Run struct {
	Index   int
	Source  string
	Msg     []byte
	Offset  int
	Outcome Outcome
	Verdict Verdict
	Err     error  // the simulation could not finish the request (a hang)
	Wave    string // waveform of the replay, if one was written
}

// OK reports whether the RTL and the reference agreed on everything.
func (r *Run) OK() bool { return r.Err == nil && r.Verdict.Match }

// RunVector sends one message through the engine and scores it. The memory's
// random choices are reseeded from the index, so a replay is exact.
func (a *Accel) RunVector(index int, source string, msg []byte, opt RunOptions) Run {
	r := Run{Index: index, Source: source, Msg: msg, Offset: opt.Offset}
	if r.Offset < 0 {
		r.Offset = index % LineSize
	}
	req := Request{Msg: msg, Offset: r.Offset, CapLines: opt.CapLines, NetBase: opt.NetBase, AppBase: opt.AppBase,
		App: opt.App, Framed: opt.Framed, RespCap: opt.RespCap}
	a.Mem.Reseed(a.Mem.cfg.Seed + int64(index))
	r.Outcome, r.Err = a.Receive(req)
	if r.Err == nil {
		r.Verdict = Score(msg, r.Outcome)
		if reply := r.Outcome.WrittenReply(); reply != nil {
			r.Verdict.ReplySHA256 = sha256.Sum256(reply)
			if opt.RecordedReply != nil && !bytes.Equal(r.Verdict.ReplySHA256[:], opt.RecordedReply) {
				r.Verdict.Diffs = append(r.Verdict.Diffs, fmt.Sprintf("Net.Resp reply % x (SHA-256 %x) is not the recorded reply (SHA-256 %x)", reply, r.Verdict.ReplySHA256, opt.RecordedReply))
				r.Verdict.Match, r.Verdict.ReplyMatch = false, false
			}
		}
	}
	if !r.OK() && opt.WaveDir != "" {
		// The replay's snapshots would take the buffers of these.
		r.Outcome.Before, r.Outcome.Image, r.Outcome.Reply = bytes.Clone(r.Outcome.Before), bytes.Clone(r.Outcome.Image), bytes.Clone(r.Outcome.Reply)
		name := opt.WaveName
		if name == "" {
			name = fmt.Sprintf("vector-%d.fst", index)
		}
		r.Wave = filepath.Join(opt.WaveDir, name)
		if err := a.replay(index, req, r.Wave); err != nil {
			r.Wave = ""
			r.Verdict.Diffs = append(r.Verdict.Diffs, "waveform replay failed: "+err.Error())
		}
	}
	if r.Err != nil {
		// A hung engine is reset so the next vector starts clean.
		if err := a.Restart(); err != nil {
			r.Err = fmt.Errorf("%w; reset after it failed: %v", r.Err, err)
		}
	}
	return r
}

// replay resets the engine and runs req again with an FST waveform on.
func (a *Accel) replay(index int, req Request, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := a.Restart(); err != nil {
		return err
	}
	if err := a.TraceOn(path); err != nil {
		return err
	}
	a.Mem.Reseed(a.Mem.cfg.Seed + int64(index))
	_, rerr := a.Receive(req)
	if err := a.TraceOff(); err != nil {
		return err
	}
	if rerr != nil {
		return a.Restart()
	}
	return nil
}
