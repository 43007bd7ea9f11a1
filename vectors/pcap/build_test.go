package pcap

import (
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"arcalis/internal/memcached"
)

// This file builds captures for the tests: Thrift messages serialized by
// Apache's Go library, cut into TCP segments, wrapped in IPv4 or IPv6 and a
// link-layer header, and written as classic pcap or pcapng.

// setMsg is a Set request as Apache's client writes it.
func setMsg(t *testing.T, typ thrift.TMessageType, seqid int32, key, value []byte) []byte {
	t.Helper()
	args := memcached.NewMemcachedServiceSetArgs()
	args.ReqID, args.Key, args.Value, args.Flags, args.Exptime = int64(seqid)*7, key, value, 3, 60
	return encode(t, false, "Set", typ, seqid, args)
}

// getMsg is a Get request.
func getMsg(t *testing.T, seqid int32, key []byte) []byte {
	t.Helper()
	args := memcached.NewMemcachedServiceGetArgs()
	args.ReqID, args.Key = int64(seqid), key
	return encode(t, false, "Get", thrift.CALL, seqid, args)
}

// getReply is a Get reply holding value.
func getReply(t *testing.T, seqid int32, value []byte) []byte {
	t.Helper()
	res := memcached.NewMemcachedServiceGetResult()
	res.Success = value
	return encode(t, false, "Get", thrift.REPLY, seqid, res)
}

func encode(t *testing.T, compact bool, name string, typ thrift.TMessageType, seqid int32, s thrift.TStruct) []byte {
	t.Helper()
	ctx := context.Background()
	buf := thrift.NewTMemoryBuffer()
	var p thrift.TProtocol = thrift.NewTBinaryProtocolConf(buf, &thrift.TConfiguration{})
	if compact {
		p = thrift.NewTCompactProtocolConf(buf, &thrift.TConfiguration{})
	}
	if err := p.WriteMessageBegin(ctx, name, typ, seqid); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := p.WriteMessageEnd(ctx); err != nil {
		t.Fatal(err)
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	return append([]byte(nil), buf.Bytes()...)
}

// framed puts the framed transport's length word before each message.
func framed(msgs ...[]byte) []byte {
	var b []byte
	for _, m := range msgs {
		b = binary.BigEndian.AppendUint32(b, uint32(len(m)))
		b = append(b, m...)
	}
	return b
}

func fill(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7)
	}
	return b
}

// link types the builder writes.
const (
	linkEthernet = 1
	linkRaw      = 101
	linkSLL      = 113
	linkSLL2     = 276
	linkNull     = 0
)

// tcpPkt is one segment to put in a capture.
type tcpPkt struct {
	src, dst   string // "ip:port"
	seq, ack   uint32
	syn, fin   bool
	payload    []byte
	ts         time.Duration // after the capture's start
	raw        []byte        // if set, the packet's link-layer bytes as they are
	truncateTo int           // if > 0, keep only this many bytes of the packet (snaplen)
}

func splitHostPort(t *testing.T, s string) (net.IP, uint16) {
	t.Helper()
	h, p, err := net.SplitHostPort(s)
	if err != nil {
		t.Fatal(err)
	}
	var port uint16
	for _, c := range p {
		port = port*10 + uint16(c-'0')
	}
	return net.ParseIP(h), port
}

// frameBytes serializes p with the link-layer header of link.
func frameBytes(t *testing.T, link uint32, p tcpPkt) []byte {
	t.Helper()
	if p.raw != nil {
		return p.raw
	}
	sip, sport := splitHostPort(t, p.src)
	dip, dport := splitHostPort(t, p.dst)
	tcp := &layers.TCP{SrcPort: layers.TCPPort(sport), DstPort: layers.TCPPort(dport), Seq: p.seq, Ack: p.ack,
		SYN: p.syn, FIN: p.fin, ACK: !p.syn || p.ack != 0, PSH: len(p.payload) > 0, Window: 65535}
	var ipLayer gopacket.SerializableLayer
	et := layers.EthernetTypeIPv4
	if v4 := sip.To4(); v4 != nil {
		ip := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: v4, DstIP: dip.To4()}
		if err := tcp.SetNetworkLayerForChecksum(ip); err != nil {
			t.Fatal(err)
		}
		ipLayer = ip
	} else {
		ip := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolTCP, SrcIP: sip, DstIP: dip}
		if err := tcp.SetNetworkLayerForChecksum(ip); err != nil {
			t.Fatal(err)
		}
		ipLayer = ip
		et = layers.EthernetTypeIPv6
	}
	buf := gopacket.NewSerializeBuffer()
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	if err := gopacket.SerializeLayers(buf, opts, ipLayer, tcp, gopacket.Payload(p.payload)); err != nil {
		t.Fatal(err)
	}
	ipBytes := buf.Bytes()
	var hdr []byte
	switch link {
	case linkEthernet:
		hdr = []byte{0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, byte(et >> 8), byte(et)}
	case linkSLL: // packet type, ARPHRD, address length, address (8), protocol
		hdr = []byte{0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 1, 0, 0, byte(et >> 8), byte(et)}
	case linkSLL2: // protocol, reserved, interface index, ARPHRD, packet type, address length, address (8)
		hdr = []byte{byte(et >> 8), byte(et), 0, 0, 0, 0, 0, 1, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 1}
	case linkNull: // BSD loopback: address family in host order (2 for IPv4 on little-endian hosts)
		af := uint32(2)
		if et == layers.EthernetTypeIPv6 {
			af = 24
		}
		hdr = binary.LittleEndian.AppendUint32(nil, af)
	case linkRaw:
	default:
		t.Fatalf("builder: link type %d", link)
	}
	return append(hdr, ipBytes...)
}

var captureStart = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// classicPcap writes a classic pcap (little-endian, microseconds) by hand,
// so that any 32-bit link type can be written.
func classicPcap(t *testing.T, link uint32, pkts []tcpPkt) []byte {
	t.Helper()
	le := binary.LittleEndian
	var b []byte
	b = le.AppendUint32(b, 0xA1B2C3D4)
	b = le.AppendUint16(b, 2)
	b = le.AppendUint16(b, 4)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, 262144)
	b = le.AppendUint32(b, link)
	for _, p := range pkts {
		data := frameBytes(t, link, p)
		orig := len(data)
		if p.truncateTo > 0 && p.truncateTo < len(data) {
			data = data[:p.truncateTo]
		}
		ts := captureStart.Add(p.ts)
		b = le.AppendUint32(b, uint32(ts.Unix()))
		b = le.AppendUint32(b, uint32(ts.Nanosecond()/1000))
		b = le.AppendUint32(b, uint32(len(data)))
		b = le.AppendUint32(b, uint32(orig))
		b = append(b, data...)
	}
	return b
}

// ngPcap writes a pcapng with gopacket's writer.
func ngPcap(t *testing.T, link uint32, pkts []tcpPkt) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := pcapgo.NewNgWriter(&out, layers.LinkType(link))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkts {
		data := frameBytes(t, link, p)
		ci := gopacket.CaptureInfo{Timestamp: captureStart.Add(p.ts), CaptureLength: len(data), Length: len(data)}
		if err := w.WritePacket(ci, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// flow is one TCP connection the builder writes segments for.
type flow struct {
	c, s       string // client and server "ip:port"
	cseq, sseq uint32 // next sequence numbers
	clock      *time.Duration
	pkts       *[]tcpPkt
}

func newFlow(pkts *[]tcpPkt, clock *time.Duration, c, s string, isnC, isnS uint32) *flow {
	return &flow{c: c, s: s, cseq: isnC, sseq: isnS, clock: clock, pkts: pkts}
}

func (f *flow) add(p tcpPkt) tcpPkt {
	*f.clock += time.Millisecond
	p.ts = *f.clock
	*f.pkts = append(*f.pkts, p)
	return p
}

// handshake writes SYN, SYN-ACK and ACK.
func (f *flow) handshake() {
	f.add(tcpPkt{src: f.c, dst: f.s, seq: f.cseq, syn: true})
	f.cseq++
	f.add(tcpPkt{src: f.s, dst: f.c, seq: f.sseq, ack: f.cseq, syn: true})
	f.sseq++
	f.add(tcpPkt{src: f.c, dst: f.s, seq: f.cseq, ack: f.sseq})
}

// segments returns data from the client (or server) cut into segments of at
// most mss bytes, advancing the sequence number, without adding them.
func (f *flow) segments(fromClient bool, data []byte, mss int) []tcpPkt {
	var out []tcpPkt
	for len(data) > 0 {
		n := min(mss, len(data))
		if fromClient {
			out = append(out, tcpPkt{src: f.c, dst: f.s, seq: f.cseq, ack: f.sseq, payload: data[:n]})
			f.cseq += uint32(n)
		} else {
			out = append(out, tcpPkt{src: f.s, dst: f.c, seq: f.sseq, ack: f.cseq, payload: data[:n]})
			f.sseq += uint32(n)
		}
		data = data[n:]
	}
	return out
}

// send writes data from the client (or server) in segments of at most mss.
func (f *flow) send(fromClient bool, data []byte, mss int) {
	for _, p := range f.segments(fromClient, data, mss) {
		f.add(p)
	}
}

// close writes FIN from both sides.
func (f *flow) close() {
	f.add(tcpPkt{src: f.c, dst: f.s, seq: f.cseq, ack: f.sseq, fin: true})
	f.cseq++
	f.add(tcpPkt{src: f.s, dst: f.c, seq: f.sseq, ack: f.cseq, fin: true})
	f.sseq++
}

// timeDur is a flow's clock: every packet added is one millisecond later.
type timeDur = time.Duration

const msec = time.Millisecond
