package pcap

import (
	"bytes"
	"os"
	"testing"
)

// FuzzRead: Read never panics and never returns a message that is not one
// whole Thrift message as Apache's reader reads it, whatever the file holds.
func FuzzRead(f *testing.F) {
	for _, p := range []string{"../captures/framed.pcap", "../captures/buffered.pcapng"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 4000)])
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Read(bytes.NewReader(data), "fuzz", Options{Replies: true})
		if res == nil {
			if err == nil {
				t.Fatal("nil result without an error")
			}
			return
		}
		for i, m := range res.Messages {
			var p protocol = protoBinary
			n, _, perr := parseMessage(m.Msg, p)
			if perr != nil || n != len(m.Msg) {
				t.Fatalf("message %d (%d bytes) is not one whole message: %v (read %d)", i, len(m.Msg), perr, n)
			}
			if len(m.Packets) == 0 || m.Completed == 0 {
				t.Fatalf("message %d: packets %v completed %d", i, m.Packets, m.Completed)
			}
		}
	})
}
