package schematx

import (
	"encoding/binary"
	"fmt"

	"arcalis/golden/schemagold"
)

// Timed is what the module did with one image under Drive.
type Timed struct {
	Cycles      int             // from start_i to done_o
	Reads       int             // image reads it made
	Outstanding int             // the most reads it had waiting for an answer at once
	Out         []byte          // its bytes
	Code        schemagold.Code // code_o
	Offset      int             // offset_o
}

// Drive runs im through d with a fixed memory latency, for measuring
// rather than checking (Harness checks, with random latencies and stalls):
// every read the module makes at an edge t is answered at edge
// t+1+latency, in order, however many are outstanding (tb.Memory's
// latency: 0 is the soonest the read port allows, the next cycle), and the
// output is never stalled. It checks the protocol as Harness does (reads
// inside the area and aligned, beats of 1 to Width bytes, nothing with
// done_o, no read left unanswered) but not the bytes: compare Timed.Out
// with schemagold.Serialize's reply. An error is the simulator's or a
// *Mismatch; budget 0 is about Harness's budget for the image, plus the
// latency of a read of each of its words.
func Drive(d DUT, im Image, latency, budget int) (Timed, error) {
	var o Timed
	if len(im.Img) < schemagold.AreaStart {
		return o, fmt.Errorf("schematx: image of %d bytes, shorter than its header", len(im.Img))
	}
	end := int(binary.LittleEndian.Uint32(im.Img[8:]))
	if end > len(im.Img) {
		return o, fmt.Errorf("schematx: area end %d past the %d-byte image", end, len(im.Img))
	}
	w := d.Width()
	if budget <= 0 {
		budget = 4000 + (64+latency)*end // a read per 8 bytes at most, each waiting latency cycles
	}
	in := &Inputs{Method: uint8(im.Method), AreaEnd: uint32(end)}
	var queue []read
	for cyc := 0; ; cyc++ {
		if cyc == budget {
			return o, mismatchf("hang: done_o not set after %d cycles (%d bytes out, %d reads)", cyc, len(o.Out), o.Reads)
		}
		in.Start = cyc == 0
		in.RdValid = len(queue) > 0 && queue[0].ready <= cyc
		in.RdData = 0
		if in.RdValid {
			in.RdData = binary.LittleEndian.Uint64(im.Img[queue[0].addr:])
			queue = queue[1:]
		}
		out, err := d.Cycle(in)
		if err != nil {
			return o, err
		}
		if cyc == 0 {
			continue // the outputs still show the previous image's end
		}
		if out.RdReq {
			a := int(out.RdAddr)
			if a%schemagold.SlotSize != 0 || a < schemagold.AreaStart || a+schemagold.SlotSize > end {
				return o, mismatchf("cycle %d: read at %#x, outside the area [%#x, %#x) or unaligned", cyc, a, schemagold.AreaStart, end)
			}
			queue = append(queue, read{a, cyc + 1 + latency})
			o.Reads++
			o.Outstanding = max(o.Outstanding, len(queue))
		}
		if out.OutValid {
			if out.OutLen < 1 || out.OutLen > w {
				return o, mismatchf("cycle %d: out_len_o %d, not in [1, %d]", cyc, out.OutLen, w)
			}
			o.Out = append(o.Out, out.OutData[:out.OutLen]...)
		}
		if !out.Done {
			continue
		}
		o.Cycles, o.Code, o.Offset = cyc, schemagold.Code(out.Code), int(out.Offset)
		switch {
		case out.OutValid || out.RdReq:
			return o, mismatchf("cycle %d: done_o with out_valid_o %v, rd_req_o %v", cyc, out.OutValid, out.RdReq)
		case len(queue) != 0:
			return o, mismatchf("cycle %d: done_o with %d reads unanswered", cyc, len(queue))
		}
		return o, nil
	}
}
