package main

import (
	"fmt"

	"arcalis/bench/workload"
	"arcalis/tb"
)

// The step costs of the registered datapath at memory latency 0, in cycles
// (docs/abi.md section 10 explains each). They come from the RTL's state
// machines: one register stage per decision, so each read is a fixed run of
// states. Section 1's targets hold the RTL to the schedule they add up to.
const (
	costCommand   = 1  // the UC store of CMD_SEND_NET_LEN to the control FSM's state
	costStart     = 6  // RxEngine start: init, carry, start, offset, offset wait
	costFirstLine = 4  // the first line's load, answer and the byte selector's two stages
	costItem      = 5  // a header item, field header or fixed value: go, read, wait, check, next
	costLength    = 6  // a binary length: one more check cycle
	costBody      = 6  // a binary body of one chunk: count, bulk (3 of setup), the chunk, tail wait
	costAfterBody = 1  // the item after a body waits for its last chunk to leave
	costEnd       = 10 // STOP to ready, besides the header line's chunks: see setSchedule
)

// setSchedule is the cycles (CMD_SEND_NET_LEN edge to the edge whose status
// load sees ready, tb.Outcome.Cycles) that the step costs give a Set of
// workload.SetOfSize(size) starting at offset, at memory latency 0 and
// width bytes per cycle. Every later line has arrived when it is needed.
func setSchedule(size, offset, width int) int {
	const key = 8                       // SetOfSize's key
	value := size - workload.MinSetSize // its value fills the rest
	off := offset % tb.LineSize
	c := costCommand + costStart + costFirstLine
	if off > tb.LineSize-4 { // the 4-byte version word needs the second line too
		c++
	}
	c += 4 * costItem // version, name length, name, seqid
	// Fields in SetOfSize's order; pos is the message offset of the next.
	pos := 15
	c += 2 * costItem // req_id: header, i64
	pos += 3 + 8
	for _, n := range []int{key, value} { // key, value: header, length, body
		c += costItem + costLength
		pos += 3 + 4
		if n > 0 {
			c += bodyCycles(off+pos, n, width) + costAfterBody
		} else {
			c-- // no body, and the next header is ready as the length ends
		}
		pos += n
	}
	c += 4 * costItem // flags and exptime: header, i32
	c += costItem     // STOP
	return c + costEnd + tb.LineSize/width
}

// bodyCycles is a body of n > 0 bytes starting at byte start of Net.Recv (from
// a line boundary): one chunk of width bytes a cycle, and one cycle more each
// time a chunk's first byte is in a later line than the chunk before it.
func bodyCycles(start, n, width int) int {
	chunks := (n + width - 1) / width
	crossings := (start%tb.LineSize + (chunks-1)*width) / tb.LineSize
	return costBody + chunks - 1 + crossings
}

// scheduleSteps is the step table of the report, from the constants above.
func scheduleSteps(width int) [][2]string {
	n := fmt.Sprint
	return [][2]string{
		{"`CMD_SEND_NET_LEN`'s store reaches the control FSM", n(costCommand)},
		{"RxEngine start (init, carry, start, offset, offset wait)", n(costStart)},
		{"the first line: load, answer, the byte selector's two stages (one more if the 4-byte version word spans two lines)", n(costFirstLine)},
		{"a header item, field header or fixed value: go, read, wait, check, next", n(costItem)},
		{"a binary length (a second check cycle; a length of 0 has no body and costs one less)", n(costLength)},
		{fmt.Sprintf("a binary body: %d for its first chunk of %d bytes, 1 per further chunk, 1 more each time a chunk starts in a later line", costBody, width), n(costBody) + " + ..."},
		{"the item after a body (it waits for the last chunk to leave)", "+" + n(costAfterBody)},
		{fmt.Sprintf("STOP to ready: the header line's %d chunks, the output buffer, the store queue, the store's acknowledgement, DRAIN, DONE, the status load", tb.LineSize/width), n(costEnd + tb.LineSize/width)},
	}
}
