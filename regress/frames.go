package regress

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Job frames (coordinator to worker) and result lines (worker to coordinator).

// workerJob is one vector sent to a worker, with the record's message: a
// worker that read the files itself would repeat, in each process, the
// coordinator's reading of every record.
type workerJob struct {
	Index, Record int
	File, Source  string
	Msg           []byte
	Reply         []byte // the record's reply hash, or empty
	ReplyMsg      []byte // the recorded reply, or empty
}

// appendJob appends j's frame on a worker's stdin: a little-endian uint32
// of the length of what follows, then uint32 Index and Record, then File,
// Source, Msg, Reply and ReplyMsg, each after its uint32 length. (JSON took longer to read
// than a small vector takes to simulate.)
func appendJob(b []byte, j workerJob) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(b, uint32(frameLen(j)))
	b = le.AppendUint32(b, uint32(j.Index))
	b = le.AppendUint32(b, uint32(j.Record))
	for _, f := range [][]byte{[]byte(j.File), []byte(j.Source), j.Msg, j.Reply, j.ReplyMsg} {
		b = le.AppendUint32(b, uint32(len(f)))
		b = append(b, f...)
	}
	return b
}

// frameLen is the length of j's frame after its own length.
func frameLen(j workerJob) int {
	return 7*4 + len(j.File) + len(j.Source) + len(j.Msg) + len(j.Reply) + len(j.ReplyMsg)
}

// maxFrame bounds a job's frame: a longer one is corrupt input, not a
// reason to allocate gigabytes.
const maxFrame = 1 << 30

// readJob reads the next frame appendJob wrote; io.EOF at the end of the
// input.
func readJob(r *bufio.Reader) (workerJob, error) {
	var j workerJob
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return j, errors.New("worker: input ends inside a job's length")
		}
		return j, err
	}
	n := binary.LittleEndian.Uint32(head[:])
	if n > maxFrame {
		return j, fmt.Errorf("worker: a job of %d bytes, more than the %d a job may have", n, maxFrame)
	}
	frame := make([]byte, n)
	if _, err := io.ReadFull(r, frame); err != nil {
		return j, fmt.Errorf("worker: input ends inside a job of %d bytes", len(frame))
	}
	le := binary.LittleEndian
	bad := fmt.Errorf("worker: malformed job of %d bytes", len(frame))
	if len(frame) < 8 {
		return j, bad
	}
	j.Index, j.Record = int(le.Uint32(frame)), int(le.Uint32(frame[4:]))
	rest := frame[8:]
	var fields [5][]byte
	for i := range fields {
		if len(rest) < 4 || uint64(le.Uint32(rest)) > uint64(len(rest)-4) {
			return j, bad
		}
		n := le.Uint32(rest)
		fields[i], rest = rest[4:4+n], rest[4+n:]
	}
	if len(rest) != 0 {
		return j, bad
	}
	j.File, j.Source, j.Msg = string(fields[0]), string(fields[1]), fields[2]
	if len(fields[3]) > 0 {
		j.Reply = fields[3]
	}
	if len(fields[4]) > 0 {
		j.ReplyMsg = fields[4]
	}
	return j, nil
}

// workerReply is a worker's answer to one job: a line "R INDEX MATCH
// CYCLES SECONDS JSON" on its stdout, JSON being the vector's line of
// arcalis run --json, MATCH 1 or 0 as its "match", and CYCLES the cycles
// simulated for it, commands included; or "E INDEX MESSAGE", MESSAGE a Go
// quoted string, when its engine failed on the vector (the worker then
// ends). Before any, a worker writes "READY" once its model is open.
type workerReply struct {
	Result  *Result
	Line    []byte // JSON, as the worker wrote it
	Cycles  uint64
	Seconds float64
	Fail    string // the engine's error ("E"), with only Result.Index
}

// parseReply reads a reply line. The JSON is decoded only if full or the
// vector failed: the summary needs nothing else of a vector that passed.
func parseReply(line []byte, full bool) (workerReply, error) {
	var rep workerReply
	line = bytes.TrimRight(line, "\n")
	if f := bytes.SplitN(line, []byte(" "), 3); len(f) == 3 && string(f[0]) == "E" {
		index, err1 := strconv.Atoi(string(f[1]))
		msg, err2 := strconv.Unquote(string(f[2]))
		if err1 != nil || err2 != nil || msg == "" {
			return rep, errors.New("bad index or message")
		}
		rep.Result, rep.Fail = &Result{Index: index}, msg
		return rep, nil
	}
	f := bytes.SplitN(line, []byte(" "), 6)
	if len(f) != 6 || string(f[0]) != "R" {
		return rep, errors.New("not a result line")
	}
	index, err1 := strconv.Atoi(string(f[1]))
	match := string(f[2]) == "1"
	var err2, err3 error
	rep.Cycles, err2 = strconv.ParseUint(string(f[3]), 10, 64)
	rep.Seconds, err3 = strconv.ParseFloat(string(f[4]), 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return rep, errors.New("bad index, cycles or seconds")
	}
	rep.Line = f[5]
	res := &Result{Index: index, Match: match, Status: "ok"}
	if full || !match {
		r, err := ParseResult(rep.Line)
		if err != nil {
			return rep, err
		}
		*res = r
	} else if i := bytes.Index(rep.Line, []byte(`"status":"`)); i >= 0 {
		st := rep.Line[i+10:]
		if j := bytes.IndexByte(st, '"'); j >= 0 {
			res.Status = string(st[:j])
		}
	}
	rep.Result = res
	return rep, nil
}
