package pcap

import (
	"encoding/binary"
	"io"
)

// ngWalker passes a pcapng file through and follows its block structure
// (type, total length) so that the end of the file can be told to fall on
// a block boundary or inside a block: gopacket's NgReader reports io.EOF
// for both.
type ngWalker struct {
	r    io.Reader
	hdr  [12]byte
	nhdr int    // header bytes of the next block collected so far
	left uint32 // bytes of the current block still to come
	big  bool   // the section is big-endian
	lost bool   // the structure could not be followed: no judgement
}

func (w *ngWalker) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	w.feed(p[:n])
	return n, err
}

const ngSectionHeader = 0x0A0D0D0A

func (w *ngWalker) feed(b []byte) {
	for len(b) > 0 && !w.lost {
		if w.left > 0 {
			k := min(int(min(w.left, uint32(len(b)))), len(b))
			w.left -= uint32(k)
			b = b[k:]
			continue
		}
		need := 8
		if w.nhdr >= 4 && binary.BigEndian.Uint32(w.hdr[:4]) == ngSectionHeader {
			need = 12 // the byte-order magic follows the length
		}
		k := copy(w.hdr[w.nhdr:need], b)
		w.nhdr += k
		b = b[k:]
		if w.nhdr < need {
			continue
		}
		if need == 8 && binary.BigEndian.Uint32(w.hdr[:4]) == ngSectionHeader {
			continue // read on to the byte-order magic
		}
		if need == 12 {
			w.big = binary.BigEndian.Uint32(w.hdr[8:]) == 0x1A2B3C4D
		}
		var total uint32
		if w.big {
			total = binary.BigEndian.Uint32(w.hdr[4:])
		} else {
			total = binary.LittleEndian.Uint32(w.hdr[4:])
		}
		if total < uint32(need) || total%4 != 0 {
			w.lost = true
			return
		}
		w.left = total - uint32(need)
		w.nhdr = 0
	}
}

// atBoundary reports whether everything read so far ends at a block
// boundary (true too when the structure could not be followed).
func (w *ngWalker) atBoundary() bool {
	return w.lost || (w.left == 0 && w.nhdr == 0)
}
