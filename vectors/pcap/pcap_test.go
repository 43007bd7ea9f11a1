package pcap

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/internal/memcached"
)

// capCase is one synthetic capture and what Read must find in it.
type capCase struct {
	name  string
	link  uint32
	ng    bool
	opt   Options
	build func(t *testing.T) (pkts []tcpPkt, want [][]byte)
	lost  map[Reason]int
	check func(t *testing.T, res *Result)
}

func readCase(t *testing.T, tc capCase) *Result {
	t.Helper()
	pkts, want := tc.build(t)
	var file []byte
	if tc.ng {
		file = ngPcap(t, tc.link, pkts)
	} else {
		file = classicPcap(t, tc.link, pkts)
	}
	res, err := Read(bytes.NewReader(file), tc.name+".pcap", tc.opt)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if len(res.Messages) != len(want) {
		for i, m := range res.Messages {
			t.Logf("got %d: %s %s seqid %d flow %s packets %v", i, TypeName(m.Type), m.Method, m.SeqID, m.Flow, m.Packets)
		}
		t.Fatalf("got %d messages, want %d (stats %+v)", len(res.Messages), len(want), res.Stats.Unusable)
	}
	for i, m := range res.Messages {
		if !bytes.Equal(m.Msg, want[i]) {
			t.Errorf("message %d (%s seqid %d, flow %s): bytes differ from message %d sent:\n got % x\nwant % x",
				i, m.Method, m.SeqID, m.Flow, i, m.Msg[:min(len(m.Msg), 48)], want[i][:min(len(want[i]), 48)])
		}
	}
	for _, r := range Reasons() {
		if got, want := res.Stats.Unusable[r], tc.lost[r]; got != want {
			t.Errorf("%s: counted %d, want %d (first: %s)", r, got, want, res.Stats.Example(r))
		}
	}
	if tc.check != nil {
		tc.check(t, res)
	}
	return res
}

func setReply(t *testing.T, seqid int32) []byte {
	return encode(t, false, "Set", thrift.REPLY, seqid, memcached.NewMemcachedServiceSetResult())
}

// exchange is the client/server conversation most cases use: a Set, its
// reply, a Get, its reply; requests in segments of at most mss bytes.
func exchange(t *testing.T, f *flow, frame bool, mss int) (reqs, all [][]byte) {
	set := setMsg(t, thrift.CALL, 1, []byte("key:0001"), fill(200, 1))
	get := getMsg(t, 2, []byte("key:0001"))
	rep1, rep2 := setReply(t, 1), getReply(t, 2, fill(200, 1))
	wire := func(m []byte) []byte {
		if frame {
			return framed(m)
		}
		return m
	}
	f.send(true, wire(set), mss)
	f.send(false, wire(rep1), mss)
	f.send(true, wire(get), mss)
	f.send(false, wire(rep2), mss)
	return [][]byte{set, get}, [][]byte{set, rep1, get, rep2}
}

func TestRead(t *testing.T) {
	const cli, srv = "10.0.0.1:40000", "10.0.0.2:9090"
	const cli6, srv6 = "[fd00::1]:40000", "[fd00::2]:9090"
	cases := []capCase{
		{
			name: "buffered, Ethernet, IPv4", link: linkEthernet,
			build: func(t *testing.T) ([]tcpPkt, [][]byte) {
				var pkts []tcpPkt
				var clock = new(timeDur)
				f := newFlow(&pkts, clock, cli, srv, 1000, 5000)
				f.handshake()
				reqs, _ := exchange(t, f, false, 1460)
				f.close()
				return pkts, reqs
			},
			check: func(t *testing.T, res *Result) {
				m := res.Messages[0]
				if m.Flow != cli+"->"+srv || m.Transport != "buffered" || m.Method != "Set" || m.Type != thrift.CALL || m.SeqID != 1 {
					t.Errorf("message 0: flow %q transport %q method %q type %v seqid %d", m.Flow, m.Transport, m.Method, m.Type, m.SeqID)
				}
				// Packets 1-3 are the handshake; the Set is packet 4, its reply 5, the Get 6.
				if fmt.Sprint(m.Packets) != "[4]" || m.Completed != 4 || fmt.Sprint(res.Messages[1].Packets) != "[6]" {
					t.Errorf("packets %v (completed %d) and %v, want [4] (4) and [6]", m.Packets, m.Completed, res.Messages[1].Packets)
				}
				if want := captureStart.Add(4 * msec); !m.Time.Equal(want) {
					t.Errorf("time %v, want %v", m.Time, want)
				}
				if got := res.Stats.Found; got[thrift.CALL] != 2 || got[thrift.REPLY] != 2 {
					t.Errorf("found %v, want 2 CALL and 2 REPLY", got)
				}
			},
		},
		{
			name: "buffered with replies", link: linkEthernet, opt: Options{Replies: true},
			build: func(t *testing.T) ([]tcpPkt, [][]byte) {
				var pkts []tcpPkt
				f := newFlow(&pkts, new(timeDur), cli, srv, 1000, 5000)
				f.handshake()
				_, all := exchange(t, f, false, 1460)
				f.close()
				return pkts, all
			},
		},
		{
			name: "framed, Linux SLL, IPv6, pcapng, messages in many segments", link: linkSLL, ng: true,
			build: func(t *testing.T) ([]tcpPkt, [][]byte) {
				var pkts []tcpPkt
				f := newFlow(&pkts, new(timeDur), cli6, srv6, 0xFFFFFF00, 7) // sequence numbers wrap
				f.handshake()
				big := setMsg(t, thrift.CALL, 1, fill(250, 3), fill(5000, 9))
				f.send(true, framed(big), 450)
				f.send(false, framed(setReply(t, 1)), 450)
				small := getMsg(t, 2, []byte("k"))
				f.send(true, framed(small), 3) // even the length word is split
				f.close()
				return pkts, [][]byte{big, small}
			},
			check: func(t *testing.T, res *Result) {
				m := res.Messages[0]
				if m.Transport != "framed" || len(m.Packets) != 12 || m.Packets[0] != 4 || m.Completed != 15 {
					t.Errorf("transport %q, packets %v, completed %d; want framed, packets 4..15", m.Transport, m.Packets, m.Completed)
				}
			},
		},
		{
			name: "out of order, retransmitted and overlapping segments", link: linkRaw,
			build: func(t *testing.T) ([]tcpPkt, [][]byte) {
				var pkts []tcpPkt
				f := newFlow(&pkts, new(timeDur), cli, srv, 77, 99)
				f.handshake()
				m1 := setMsg(t, thrift.CALL, 1, []byte("a"), fill(300, 1))
				m2 := setMsg(t, thrift.CALL, 2, []byte("b"), fill(10, 2))
				m3 := getMsg(t, 3, []byte("c"))
				start := f.cseq
				data := framed(m1, m2, m3)
				segs := f.segments(true, data, 100)
				// overlap: one segment spanning the end of segment 1 and the start of segment 2
				over := tcpPkt{src: cli, dst: srv, seq: start + 150, ack: f.sseq, payload: data[150:250]}
				order := []int{0, 2, 1, 4, 3, 1, 0} // swapped, then two retransmissions
				for _, i := range order {
					f.add(segs[i])
					if i == 2 {
						f.add(over)
					}
				}
				f.close()
				return pkts, [][]byte{m1, m2, m3}
			},
		},
		{
			name: "concurrent connections, ordered by the packet that completes each message", link: linkEthernet,
			build: func(t *testing.T) ([]tcpPkt, [][]byte) {
				var pkts []tcpPkt
				clock := new(timeDur)
				a := newFlow(&pkts, clock, "10.0.0.1:40001", srv, 10, 20)
				b := newFlow(&pkts, clock, "10.0.0.3:40002", srv, 30, 40)
				a.handshake()
				b.handshake()
				a1 := setMsg(t, thrift.CALL, 1, []byte("from-a"), fill(200, 1)) // 261 bytes: three segments
				b1 := setMsg(t, thrift.CALL, 1, []byte("from-b"), fill(20, 2))
				b2 := getMsg(t, 2, []byte("from-b"))
				sa := a.segments(true, a1, 100)
				sb := b.segments(true, append(append([]byte(nil), b1...), b2...), 1460)
				a.add(sa[0])
				b.add(sb[0]) // both of b's messages in one segment
				a.add(sa[1])
				a.add(sa[2])
				a.close()
				b.close()
				return pkts, [][]byte{b1, b2, a1}
			},
			check: func(t *testing.T, res *Result) {
				if f := res.Messages[2].Flow; f != "10.0.0.1:40001->"+srv {
					t.Errorf("flow of the last message %q", f)
				}
				if res.Stats.Streams != 2 {
					t.Errorf("streams %d, want 2 (the servers sent nothing)", res.Stats.Streams)
				}
			},
		},
		{
			name: "connection open before the capture, at a message boundary", link: linkEthernet,
			build: func(t *testing.T) ([]tcpPkt, [][]byte) {
				var pkts []tcpPkt
				f := newFlow(&pkts, new(timeDur), cli, srv, 123456, 654321)
				reqs, _ := exchange(t, f, true, 1460)
				return pkts, reqs
			},
		},
		func() capCase {
			var seen int // bytes of the first message inside the capture
			return capCase{
				name: "connection open before the capture, inside a message", link: linkEthernet,
				lost: map[Reason]int{StartedBefore: 1},
				build: func(t *testing.T) ([]tcpPkt, [][]byte) {
					var pkts []tcpPkt
					f := newFlow(&pkts, new(timeDur), cli, srv, 123456, 654321)
					first := framed(setMsg(t, thrift.CALL, 7, []byte("k"), fill(500, 1)))
					for _, p := range f.segments(true, first, 200)[1:] { // its first segment went by before the capture
						f.add(p)
					}
					seen = len(first) - 200
					reqs, _ := exchange(t, f, true, 1460)
					return pkts, reqs
				},
				check: func(t *testing.T, res *Result) {
					if got := res.Stats.LostBytes[StartedBefore]; got != int64(seen) {
						t.Errorf("lost %d bytes before the first message, want %d", got, seen)
					}
				},
			}
		}(),
		{
			name: "gap in the stream", link: linkEthernet,
			lost: map[Reason]int{Gap: 1},
			build: func(t *testing.T) ([]tcpPkt, [][]byte) {
				var pkts []tcpPkt
				f := newFlow(&pkts, new(timeDur), cli, srv, 1, 2)
				f.handshake()
				m1 := setMsg(t, thrift.CALL, 1, []byte("k1"), fill(150, 1))
				m2 := setMsg(t, thrift.CALL, 2, []byte("k2"), fill(150, 2))
				m3 := setMsg(t, thrift.CALL, 3, []byte("k3"), fill(150, 3))
				f.send(true, framed(m1), 120)
				s2 := f.segments(true, framed(m2), 120)
				f.add(s2[0]) // s2[1] was never captured
				f.send(true, framed(m3), 120)
				f.close()
				return pkts, [][]byte{m1, m3}
			},
		},
		{
			name: "message cut off at the end of the capture", link: linkEthernet,
			lost: map[Reason]int{CutOff: 1},
			build: func(t *testing.T) ([]tcpPkt, [][]byte) {
				var pkts []tcpPkt
				f := newFlow(&pkts, new(timeDur), cli, srv, 1, 2)
				f.handshake()
				m1 := getMsg(t, 1, []byte("k1"))
				f.send(true, m1, 1460)
				s2 := f.segments(true, setMsg(t, thrift.CALL, 2, []byte("k2"), fill(3000, 2)), 1000)
				f.add(s2[0])
				f.add(s2[1])
				return pkts, [][]byte{m1}
			},
		},
		{
			name: "compact protocol, framed and buffered", link: linkEthernet,
			lost: map[Reason]int{Compact: 3},
			build: func(t *testing.T) ([]tcpPkt, [][]byte) {
				var pkts []tcpPkt
				clock := new(timeDur)
				args := memcached.NewMemcachedServiceSetArgs()
				args.Key, args.Value = []byte("k"), []byte("v")
				c1 := encode(t, true, "Set", thrift.CALL, 1, args)
				c2 := encode(t, true, "Set", thrift.CALL, 2, args)
				bin := getMsg(t, 3, []byte("k"))
				a := newFlow(&pkts, clock, "10.0.0.1:40001", srv, 1, 2)
				a.handshake()
				a.send(true, framed(c1, bin), 1460) // a binary message after a compact one in the same framed stream
				b := newFlow(&pkts, clock, "10.0.0.1:40002", srv, 1, 2)
				b.handshake()
				b.send(true, append(append([]byte(nil), c1...), c2...), 5)
				a.close()
				b.close()
				return pkts, [][]byte{bin}
			},
		},
		{
			name: "not Thrift", link: linkEthernet,
			lost: map[Reason]int{NotThrift: 2},
			build: func(t *testing.T) ([]tcpPkt, [][]byte) {
				var pkts []tcpPkt
				clock := new(timeDur)
				h := newFlow(&pkts, clock, "10.0.0.1:40001", "10.0.0.2:80", 1, 2)
				h.handshake()
				h.send(true, []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), 1460)
				h.send(false, []byte("HTTP/1.1 200 OK\r\n\r\n"), 1460)
				f := newFlow(&pkts, clock, cli, srv, 1, 2)
				f.handshake()
				m := getMsg(t, 1, []byte("k"))
				f.send(true, framed(m), 1460)
				h.close()
				f.close()
				return pkts, [][]byte{m}
			},
		},
		{
			name: "frame not one message", link: linkEthernet,
			lost: map[Reason]int{NotThrift: 2},
			build: func(t *testing.T) ([]tcpPkt, [][]byte) {
				var pkts []tcpPkt
				f := newFlow(&pkts, new(timeDur), cli, srv, 1, 2)
				f.handshake()
				m := getMsg(t, 1, []byte("k"))
				f.send(true, framed(m[:len(m)-1]), 1460)    // the frame ends inside the message
				f.send(true, framed(append(m, 0)), 1460)    // a byte after the message
				f.send(true, framed(getMsg(t, 2, nil)), 20) // framing is intact: the next frame is fine
				f.close()
				return pkts, [][]byte{getMsg(t, 2, nil)}
			},
		},
		{
			name: "frame larger than 16,384,000 bytes, then a good one", link: linkEthernet,
			lost: map[Reason]int{TooLarge: 1},
			build: func(t *testing.T) ([]tcpPkt, [][]byte) {
				var pkts []tcpPkt
				f := newFlow(&pkts, new(timeDur), cli, srv, 1, 2)
				f.handshake()
				const l = 16_384_001
				head := binary.BigEndian.AppendUint32(nil, l)
				head = append(head, setMsg(t, thrift.CALL, 1, []byte("k"), nil)[:20]...)
				f.send(true, head, 1460)
				f.cseq += l - 20 // the rest of the frame is not in the capture: a hole inside the dropped frame
				m := getMsg(t, 2, []byte("k"))
				f.send(true, framed(m), 1460)
				f.close()
				return pkts, [][]byte{m}
			},
			check: func(t *testing.T, res *Result) {
				if res.Stats.LostBytes[Gap] != 0 {
					t.Errorf("the hole inside the oversized frame was counted as a gap")
				}
			},
		},
		{
			name: "ONEWAY kept, EXCEPTION dropped", link: linkEthernet,
			build: func(t *testing.T) ([]tcpPkt, [][]byte) {
				var pkts []tcpPkt
				f := newFlow(&pkts, new(timeDur), cli, srv, 1, 2)
				f.handshake()
				ow := setMsg(t, thrift.ONEWAY, 1, []byte("k"), []byte("v"))
				f.send(true, ow, 1460)
				exc := encode(t, false, "Set", thrift.EXCEPTION, 1, thrift.NewTApplicationException(thrift.UNKNOWN_METHOD, "no"))
				f.send(false, exc, 1460)
				f.close()
				return pkts, [][]byte{ow}
			},
			check: func(t *testing.T, res *Result) {
				if res.Stats.Found[thrift.EXCEPTION] != 1 || res.Stats.Kept != 1 {
					t.Errorf("found %v, kept %d", res.Stats.Found, res.Stats.Kept)
				}
			},
		},
		{
			name: "old-style (non-strict) header", link: linkEthernet,
			build: func(t *testing.T) ([]tcpPkt, [][]byte) {
				var pkts []tcpPkt
				f := newFlow(&pkts, new(timeDur), cli, srv, 1, 2)
				f.handshake()
				buf := thrift.NewTMemoryBuffer()
				strict := false
				p := thrift.NewTBinaryProtocolConf(buf, &thrift.TConfiguration{TBinaryStrictWrite: &strict})
				args := memcached.NewMemcachedServiceGetArgs()
				args.Key = []byte("old")
				ctx := t.Context()
				if err := errors.Join(p.WriteMessageBegin(ctx, "Get", thrift.CALL, 5), args.Write(ctx, p), p.WriteMessageEnd(ctx)); err != nil {
					t.Fatal(err)
				}
				old := append([]byte(nil), buf.Bytes()...)
				f.send(true, old, 1460)
				f.send(true, framed(old), 1460) // the stream is buffered: a length word is not a message
				f.close()
				return pkts, [][]byte{old}
			},
			lost: map[Reason]int{NotThrift: 1},
		},
		{
			name: "Linux SLL2, IPv6", link: linkSLL2,
			build: func(t *testing.T) ([]tcpPkt, [][]byte) {
				var pkts []tcpPkt
				f := newFlow(&pkts, new(timeDur), cli6, srv6, 1, 2)
				f.handshake()
				reqs, _ := exchange(t, f, true, 64)
				f.close()
				return pkts, reqs
			},
		},
		{
			// gopacket/gopacket keeps pcapng link types in 16 bits, so
			// SLL2 (276) reaches the extractor from pcapng too.
			name: "Linux SLL2 in pcapng", link: linkSLL2, ng: true,
			build: func(t *testing.T) ([]tcpPkt, [][]byte) {
				var pkts []tcpPkt
				f := newFlow(&pkts, new(timeDur), cli, srv, 1, 2)
				f.handshake()
				reqs, _ := exchange(t, f, true, 1460)
				f.close()
				return pkts, reqs
			},
		},
		{
			name: "BSD loopback", link: linkNull,
			build: func(t *testing.T) ([]tcpPkt, [][]byte) {
				var pkts []tcpPkt
				f := newFlow(&pkts, new(timeDur), "127.0.0.1:40000", "127.0.0.1:9090", 1, 2)
				f.handshake()
				reqs, _ := exchange(t, f, false, 1460)
				f.close()
				return pkts, reqs
			},
		},
		{
			name: "port filter", link: linkEthernet, opt: Options{Port: 9091},
			build: func(t *testing.T) ([]tcpPkt, [][]byte) {
				var pkts []tcpPkt
				clock := new(timeDur)
				a := newFlow(&pkts, clock, cli, "10.0.0.2:9090", 1, 2)
				b := newFlow(&pkts, clock, cli, "10.0.0.2:9091", 1, 2)
				a.handshake()
				b.handshake()
				a.send(true, getMsg(t, 1, []byte("a")), 1460)
				mb := getMsg(t, 1, []byte("b"))
				b.send(true, mb, 1460)
				return pkts, [][]byte{mb}
			},
		},
		{
			name: "snaplen cut a segment", link: linkEthernet,
			lost: map[Reason]int{Gap: 1},
			build: func(t *testing.T) ([]tcpPkt, [][]byte) {
				var pkts []tcpPkt
				f := newFlow(&pkts, new(timeDur), cli, srv, 1, 2)
				f.handshake()
				m1 := setMsg(t, thrift.CALL, 1, []byte("k1"), fill(1000, 1))
				s := f.segments(true, m1, 1460)
				s[0].truncateTo = 14 + 20 + 20 + 100 // headers and 100 payload bytes
				f.add(s[0])
				m2 := getMsg(t, 2, []byte("k2"))
				f.send(true, m2, 1460)
				f.close()
				return pkts, [][]byte{m2}
			},
		},
		{
			name: "undecodable packet", link: linkEthernet,
			lost: map[Reason]int{BadPacket: 2},
			build: func(t *testing.T) ([]tcpPkt, [][]byte) {
				var pkts []tcpPkt
				f := newFlow(&pkts, new(timeDur), cli, srv, 1, 2)
				f.handshake()
				f.add(tcpPkt{raw: []byte{0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0x08, 0x00, 0x45, 0x00, 0x00}}) // IPv4, cut
				m := getMsg(t, 1, []byte("k"))
				f.send(true, m, 1460)
				frag := tcpPkt{src: cli, dst: srv, seq: 1, payload: []byte("x")}
				b := frameBytes(t, linkEthernet, frag)
				b[14+6] |= 0x20 // IPv4 more-fragments flag
				f.add(tcpPkt{raw: b})
				f.close()
				return pkts, [][]byte{m}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { readCase(t, tc) })
	}
}

// TestDamagedCapture: a capture that cannot be read to its end is an error
// naming the file and the packet, and the messages of the packets before
// it come back with it.
func TestDamagedCapture(t *testing.T) {
	build := func(t *testing.T) ([]tcpPkt, [][]byte) {
		var pkts []tcpPkt
		f := newFlow(&pkts, new(timeDur), "10.0.0.1:1", "10.0.0.2:2", 1, 2)
		f.handshake()
		reqs, _ := exchange(t, f, false, 1460) // packets 4..7
		f.close()
		return pkts, reqs
	}
	pkts, want := build(t)
	classic := classicPcap(t, linkEthernet, pkts)
	ng := ngPcap(t, linkEthernet, pkts)
	// offset of packet n (1-based) in the classic file
	offset := func(n int) int {
		off := 24
		for i := 0; i < n-1; i++ {
			off += 16 + int(binary.LittleEndian.Uint32(classic[off+8:]))
		}
		return off
	}
	corruptLen := append([]byte(nil), classic...)
	binary.LittleEndian.PutUint32(corruptLen[offset(6)+8:], 1<<30) // packet 6's capture length over the snap length
	tests := []struct {
		name     string
		file     []byte
		packet   int
		msgs     int // messages kept from before
		truncErr bool
		text     string
	}{
		{"classic cut inside packet 6's data", classic[:offset(6)+16+30], 6, 1, true, "packet 6: capture file truncated"},
		{"classic cut inside packet 7's record header", classic[:offset(7)+5], 7, 2, true, "packet 7: capture file truncated"},
		{"classic packet 6 length corrupt", corruptLen, 6, 1, false, "packet 6: capture length exceeds snap length"},
		{"pcapng cut inside the last packet", ng[:len(ng)-20], len(pkts), 2, true, fmt.Sprintf("packet %d: capture file truncated", len(pkts))},
		{"classic file header cut", classic[:10], 0, 0, true, "file header: pcap: capture file truncated"},
		{"pcapng section header cut", ng[:12], 0, 0, true, "file header: pcapng: capture file truncated"},
		{"not a capture", []byte("ARCVEC\x00\x01 this is a vector file"), 0, 0, false, "file header: not a pcap or pcapng capture: starts with 41 52 43 56"},
		{"empty", nil, 0, 0, false, "file header: empty file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Read(bytes.NewReader(tc.file), "x.pcap", Options{})
			var ce *CaptureError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v, want a *CaptureError", err)
			}
			if ce.File != "x.pcap" || ce.Packet != tc.packet {
				t.Errorf("file %q packet %d, want x.pcap packet %d", ce.File, ce.Packet, tc.packet)
			}
			if errors.Is(err, ErrTruncated) != tc.truncErr {
				t.Errorf("errors.Is(ErrTruncated) = %v, want %v", !tc.truncErr, tc.truncErr)
			}
			if !strings.Contains(err.Error(), "x.pcap: "+tc.text) {
				t.Errorf("error %q does not contain %q", err, "x.pcap: "+tc.text)
			}
			if tc.packet == 0 {
				if res != nil {
					t.Errorf("a damaged file header returned a result")
				}
				return
			}
			if len(res.Messages) != tc.msgs {
				t.Fatalf("%d messages from the packets before the damage, want %d", len(res.Messages), tc.msgs)
			}
			for i, m := range res.Messages {
				if !bytes.Equal(m.Msg, want[i]) {
					t.Errorf("message %d differs", i)
				}
			}
		})
	}
}
