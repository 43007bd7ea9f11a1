// Package pcap cuts the Thrift binary-protocol messages out of captured TCP traffic
// (pcap, pcapng) for vector files: it reassembles each TCP direction and frames messages.
package pcap

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/thrift/lib/go/thrift"
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/gopacket/gopacket/reassembly"

	"arcalis/vectors"
)

// Options select what Read keeps.
type Options struct {
	Port    int  // keep only TCP segments to or from this port; 0 keeps every port
	Replies bool // keep REPLY and EXCEPTION messages too (requests only by default)

	// Progress, if set, is called every ProgressEvery packets with the
	// number of packets read so far.
	Progress func(packets int)
}

// ProgressEvery is how many packets pass between calls of Options.Progress.
const ProgressEvery = 4096

// Message is one complete Thrift message found in a capture.
type Message struct {
	Flow      string              // "src:port->dst:port" of the direction that carried it
	Transport string              // "framed" or "buffered"
	Type      thrift.TMessageType // CALL, REPLY, EXCEPTION or ONEWAY
	Method    string
	SeqID     int32
	Packets   []int     // numbers (1-based, as Wireshark's frame numbers) of the packets that carried its bytes, framing included
	Completed int       // number of the packet with which every byte of it had been seen
	Time      time.Time // capture time of packet Completed
	Offset    int64     // where it starts (framing included) in its direction of the stream, counted from the first byte seen
	Msg       []byte    // the message, transport framing removed
}

// Reason is why bytes of a capture could not become vectors.
type Reason int

// What Read could not use. Each count is of events (a message, a frame, a
// hole, a stream or a packet, as the name says); Stats.LostBytes adds the bytes.
const (
	Compact       Reason = iota // a compact-protocol message (the accelerator reads the binary protocol)
	NotThrift                   // a stream, or a frame, that is not Thrift binary or compact protocol
	CutOff                      // a message still incomplete when its stream or the capture ended
	Gap                         // a hole in a stream (bytes never captured): the message it broke and the bytes up to the next message start are lost
	TooLarge                    // a frame (or buffered message) over 16,384,000 bytes
	StartedBefore               // a stream whose capture began inside a message: bytes up to the first message start
	BadPacket                   // a packet that could not be decoded to TCP over IPv4 or IPv6 (link type, truncated header, IP fragment)
	numReasons
)

var reasonNames = [numReasons]string{
	Compact:       "compact protocol",
	NotThrift:     "not Thrift",
	CutOff:        "message cut off at the end of the capture",
	Gap:           "gap in the stream",
	TooLarge:      "frame larger than 16,384,000 bytes",
	StartedBefore: "message begun before the capture started",
	BadPacket:     "undecodable packet",
}

func (r Reason) String() string {
	if r >= 0 && r < numReasons {
		return reasonNames[r]
	}
	return "reason " + strconv.Itoa(int(r))
}

// Reasons lists every Reason in order.
func Reasons() []Reason {
	rs := make([]Reason, numReasons)
	for i := range rs {
		rs[i] = Reason(i)
	}
	return rs
}

// Stats counts what a capture held and what could not be used.
type Stats struct {
	Packets    int               // packets read
	TCP        int               // TCP segments kept (after the port filter)
	Streams    int               // TCP directions that carried payload
	Found      [5]int            // complete messages by type (index 1 CALL .. 4 ONEWAY), kept or not
	Kept       int               // messages returned
	Unusable   [numReasons]int   // events by reason
	LostBytes  [numReasons]int64 // stream bytes lost by reason
	BadPackets map[string]int    // why packets were not decodable, with counts
	Transports map[string]int    // streams by transport ("framed", "buffered")
	firstError map[Reason]string // one example per reason, for reports
}

// Example returns a description of the first event counted under r ("" if none).
func (s *Stats) Example(r Reason) string { return s.firstError[r] }

func (s *Stats) lose(r Reason, bytes int64, format string, args ...any) {
	s.Unusable[r]++
	s.LostBytes[r] += bytes
	if s.firstError == nil {
		s.firstError = map[Reason]string{}
	}
	if _, ok := s.firstError[r]; !ok {
		s.firstError[r] = fmt.Sprintf(format, args...)
	}
}

// Result is what Read found in one capture.
type Result struct {
	Messages []Message // in the order they were completed in the capture
	Stats    Stats
}

// CaptureError reports a damaged capture file: which file, which packet.
type CaptureError struct {
	File   string
	Packet int // 1-based number of the packet that could not be read; 0 for the file header
	Err    error
}

func (e *CaptureError) Error() string {
	if e.Packet == 0 {
		return fmt.Sprintf("%s: file header: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s: packet %d: %v", e.File, e.Packet, e.Err)
}

func (e *CaptureError) Unwrap() error { return e.Err }

// ErrTruncated is wrapped by a CaptureError when the file ends inside a packet.
var ErrTruncated = errors.New("capture file truncated")

// ReadFile reads the capture at path (see Read).
func ReadFile(path string, opt Options) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, opt)
}

// Read reads a classic pcap or pcapng capture from r (name is used in
// errors) and returns the Thrift messages it holds.
//
// A capture that cannot be read to its end returns a *CaptureError naming
// the packet, together with a Result holding what the packets before it
// gave (messages still incomplete there count as CutOff); only a damaged
// file header returns a nil Result.
func Read(r io.Reader, name string, opt Options) (*Result, error) {
	src, err := openCapture(r)
	if err != nil {
		return nil, &CaptureError{File: name, Err: err}
	}
	x := newExtractor(opt)
	var readErr error
	for n := 1; ; n++ {
		data, ci, err := readPacket(src)
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = fmt.Errorf("%w (the file ends inside the packet)", ErrTruncated)
			}
			readErr = &CaptureError{File: name, Packet: n, Err: err}
			break
		}
		x.stats.Packets++
		if opt.Progress != nil && n%ProgressEvery == 0 {
			opt.Progress(n)
		}
		lt, err := src.linkType(ci)
		if err != nil {
			x.badPacket(err.Error())
			continue
		}
		x.packet(n, lt, data, ci)
	}
	x.finish()
	return x.result(), readErr
}

// ErrCorrupt is wrapped by a CaptureError when gopacket's reader fails on
// a corrupt file by panicking (google/gopacket divided by a zero timestamp
// resolution in a damaged pcapng interface block, for one).
var ErrCorrupt = errors.New("corrupt capture file")

// readPacket reads the next packet, turning a panic of the reader into an error.
func readPacket(src packetSource) (data []byte, ci gopacket.CaptureInfo, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w (the reader failed: %v)", ErrCorrupt, p)
		}
	}()
	return src.ReadPacketData()
}

// packetSource is a pcap or pcapng reader and the link type of each packet.
type packetSource interface {
	ReadPacketData() ([]byte, gopacket.CaptureInfo, error)
	linkType(ci gopacket.CaptureInfo) (uint32, error)
}

// classicSource reads classic pcap. The header's 32-bit link type is read
// here as stored (gopacket's LinkType is 16 bits).
type classicSource struct {
	*pcapgo.Reader
	lt uint32
}

func (s classicSource) linkType(gopacket.CaptureInfo) (uint32, error) {
	return s.lt, nil
}

type ngSource struct {
	*pcapgo.NgReader
	w *ngWalker
}

// ReadPacketData is the NgReader's, except that io.EOF inside a block (the
// reader says io.EOF wherever the file ends) is io.ErrUnexpectedEOF.
func (s ngSource) ReadPacketData() ([]byte, gopacket.CaptureInfo, error) {
	data, ci, err := s.NgReader.ReadPacketData()
	if err == io.EOF && !s.w.atBoundary() {
		err = io.ErrUnexpectedEOF
	}
	return data, ci, err
}

func (s ngSource) linkType(ci gopacket.CaptureInfo) (uint32, error) {
	intf, err := s.Interface(ci.InterfaceIndex)
	if err != nil {
		return 0, fmt.Errorf("interface %d: %v", ci.InterfaceIndex, err)
	}
	return uint32(intf.LinkType), nil
}

// openCapture tells classic pcap from pcapng by the first four bytes.
func openCapture(r io.Reader) (src packetSource, err error) {
	defer func() {
		if p := recover(); p != nil {
			src, err = nil, fmt.Errorf("%w (the reader failed: %v)", ErrCorrupt, p)
		}
	}()
	br := bufio.NewReaderSize(r, 1<<16)
	magic, err := br.Peek(4)
	if err != nil {
		if len(magic) == 0 {
			return nil, errors.New("empty file: not a pcap or pcapng capture")
		}
		return nil, fmt.Errorf("%w: %d bytes, too short for a pcap or pcapng header", ErrTruncated, len(magic))
	}
	switch binary.BigEndian.Uint32(magic) {
	case 0x0A0D0D0A: // pcapng section header block
		opts := pcapgo.DefaultNgReaderOptions
		opts.WantMixedLinkType = true
		w := &ngWalker{r: br}
		ng, err := pcapgo.NewNgReader(w, opts)
		if err != nil {
			if err == io.EOF || !w.atBoundary() {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("pcapng: %w", shortRead(err))
		}
		return ngSource{ng, w}, nil
	case 0xA1B2C3D4, 0xD4C3B2A1, 0xA1B23C4D, 0x4D3CB2A1: // microsecond and nanosecond, both byte orders
		var lt uint32
		if hdr, err := br.Peek(24); err == nil {
			if magic[0] == 0xA1 {
				lt = binary.BigEndian.Uint32(hdr[20:])
			} else {
				lt = binary.LittleEndian.Uint32(hdr[20:])
			}
		}
		pr, err := pcapgo.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("pcap: %w", shortRead(err))
		}
		return classicSource{pr, lt}, nil
	}
	return nil, fmt.Errorf("not a pcap or pcapng capture: starts with % x", magic)
}

func shortRead(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("%w (the file ends inside the header)", ErrTruncated)
	}
	return err
}

// Linux cooked capture v2 (LINKTYPE_LINUX_SLL2, what `tcpdump -i any` writes
// since libpcap 1.10): a 20-byte header whose first two bytes are the
// EtherType, decoded here to the IP layer.
const (
	linkTypeLinuxSLL2 = 276
	sll2HeaderLen     = 20
)

// Link types (LINKTYPE_*) as stored in capture files.
const (
	ltNull     = uint32(layers.LinkTypeNull)
	ltEthernet = uint32(layers.LinkTypeEthernet)
	ltRaw      = uint32(layers.LinkTypeRaw)
	ltLoop     = uint32(layers.LinkTypeLoop)
	ltSLL      = uint32(layers.LinkTypeLinuxSLL)
	ltIPv4     = 228
	ltIPv6     = 229
)

// firstLayer is the gopacket decoder for a link type's first header.
func firstLayer(lt uint32, data []byte) (gopacket.Decoder, []byte, error) {
	switch lt {
	case ltEthernet:
		return layers.LayerTypeEthernet, data, nil
	case ltSLL:
		return layers.LayerTypeLinuxSLL, data, nil
	case ltNull, ltLoop:
		return layers.LayerTypeLoopback, data, nil
	case ltRaw, ltIPv4, ltIPv6, 12, 14: // 12 and 14: DLT_RAW on some BSDs
		if len(data) == 0 {
			return nil, nil, errors.New("empty raw IP packet")
		}
		switch data[0] >> 4 {
		case 4:
			return layers.LayerTypeIPv4, data, nil
		case 6:
			return layers.LayerTypeIPv6, data, nil
		}
		return nil, nil, fmt.Errorf("raw IP packet with IP version %d", data[0]>>4)
	case linkTypeLinuxSLL2:
		if len(data) < sll2HeaderLen {
			return nil, nil, fmt.Errorf("SLL2 (Linux cooked v2) header cut short (%d bytes)", len(data))
		}
		switch et := layers.EthernetType(binary.BigEndian.Uint16(data)); et {
		case layers.EthernetTypeIPv4:
			return layers.LayerTypeIPv4, data[sll2HeaderLen:], nil
		case layers.EthernetTypeIPv6:
			return layers.LayerTypeIPv6, data[sll2HeaderLen:], nil
		default:
			return nil, nil, fmt.Errorf("SLL2 (Linux cooked v2) protocol 0x%04x is not IP", uint16(et))
		}
	}
	return nil, nil, fmt.Errorf("link type %d not supported", lt)
}

// pktContext carries a packet's number and capture info through the assembler.
type pktContext struct {
	ci  gopacket.CaptureInfo
	num int
}

func (c *pktContext) GetCaptureInfo() gopacket.CaptureInfo { return c.ci }

// How long (in capture time) the assembler waits for a missing segment
// before it gives up and reports a gap. A retransmission normally comes
// within a few round trips; 30 s bounds the memory held by a stream that
// never gets its missing bytes.
const flushWindow = 30 * time.Second

// seqOrigin is where each direction's first sequence number is moved: a
// quarter of the space, so that segments up to 1 GiB before the first one
// seen, and streams up to 2 GiB after it, never wrap.
const seqOrigin = 1 << 30

// dirKey names one direction of a connection.
type dirKey struct{ net, tcp gopacket.Flow }

// extractor holds the state of one capture: the assembler, every stream
// seen, and what was found.
type extractor struct {
	opt       Options
	asm       *reassembly.Assembler
	conns     []*conn
	halves    int // halves that carried data, in order of their first byte
	msgs      []Message
	order     []msgOrder
	stats     Stats
	lastFlush time.Time
	seqBase   map[dirKey]uint32
}

// msgOrder sorts messages: by the packet that completed them, then by stream
// (in order of first data) and position.
type msgOrder struct {
	completed int
	half      int
	offset    int64
}

func newExtractor(opt Options) *extractor {
	x := &extractor{opt: opt, seqBase: map[dirKey]uint32{}}
	x.stats.Transports = map[string]int{}
	x.asm = reassembly.NewAssembler(reassembly.NewStreamPool(x))
	return x
}

// New is the assembler's stream factory: one conn per TCP connection.
func (x *extractor) New(netFlow, tcpFlow gopacket.Flow, _ *layers.TCP, _ reassembly.AssemblerContext) reassembly.Stream {
	c := &conn{x: x}
	src := endpoint(netFlow.Src(), tcpFlow.Src())
	dst := endpoint(netFlow.Dst(), tcpFlow.Dst())
	c.half[0] = newHalf(x, src+"->"+dst)
	c.half[1] = newHalf(x, dst+"->"+src)
	x.conns = append(x.conns, c)
	return c
}

func endpoint(ip, port gopacket.Endpoint) string {
	p := "?"
	if r := port.Raw(); len(r) == 2 {
		p = strconv.Itoa(int(binary.BigEndian.Uint16(r)))
	}
	return net.JoinHostPort(net.IP(ip.Raw()).String(), p)
}

func (x *extractor) badPacket(why string) {
	x.stats.lose(BadPacket, 0, "%s", why)
	if x.stats.BadPackets == nil {
		x.stats.BadPackets = map[string]int{}
	}
	x.stats.BadPackets[why]++
}

// packet decodes one packet and hands its TCP segment to the assembler.
func (x *extractor) packet(num int, lt uint32, data []byte, ci gopacket.CaptureInfo) {
	dec, data, err := firstLayer(lt, data)
	if err != nil {
		x.badPacket(err.Error())
		return
	}
	p := gopacket.NewPacket(data, dec, gopacket.DecodeOptions{Lazy: true, NoCopy: true})
	nl := p.NetworkLayer()
	if nl == nil {
		if el := p.ErrorLayer(); el != nil {
			x.badPacket(fmt.Sprintf("cannot decode: %v", el.Error()))
		}
		return // not IP (ARP, ...): not ours to count
	}
	if ip4, ok := nl.(*layers.IPv4); ok && (ip4.Flags&layers.IPv4MoreFragments != 0 || ip4.FragOffset != 0) {
		x.badPacket("IPv4 fragment (not reassembled)")
		return
	}
	if p.Layer(layers.LayerTypeIPv6Fragment) != nil {
		x.badPacket("IPv6 fragment (not reassembled)")
		return
	}
	tl := p.TransportLayer()
	if tl == nil {
		if el := p.ErrorLayer(); el != nil {
			x.badPacket(fmt.Sprintf("cannot decode: %v", el.Error()))
		}
		return
	}
	tcp, ok := tl.(*layers.TCP)
	if !ok {
		return // UDP and others: not ours
	}
	if el := p.ErrorLayer(); el != nil {
		x.badPacket(fmt.Sprintf("cannot decode: %v", el.Error()))
		return
	}
	if x.opt.Port != 0 && int(tcp.SrcPort) != x.opt.Port && int(tcp.DstPort) != x.opt.Port {
		return
	}
	x.stats.TCP++
	// Sequence numbers are given to the assembler relative to the first one
	// seen in each direction (moved to seqOrigin): reassembly.Sequence's
	// wrap-around arithmetic is off by one, so the assembler must not see
	// a wrap. A SYN starts a new connection on the same ports afresh.
	k := dirKey{nl.NetworkFlow(), tcp.TransportFlow()}
	base, ok := x.seqBase[k]
	if !ok || tcp.SYN {
		base = tcp.Seq - seqOrigin
		x.seqBase[k] = base
	}
	tcp.Seq -= base
	x.asm.AssembleWithContext(nl.NetworkFlow(), tcp, &pktContext{ci: ci, num: num})
	if ci.Timestamp.Sub(x.lastFlush) > time.Second {
		x.lastFlush = ci.Timestamp
		x.asm.FlushWithOptions(reassembly.FlushOptions{T: ci.Timestamp.Add(-flushWindow)})
	}
}

// finish pushes out everything the assembler still holds and closes every
// stream.
func (x *extractor) finish() {
	x.asm.FlushAll()
	for _, c := range x.conns {
		for _, h := range c.half {
			h.finish()
		}
	}
}

func (x *extractor) emit(m Message, o msgOrder) {
	if t := int(m.Type); t >= 0 && t < len(x.stats.Found) {
		x.stats.Found[t]++
	}
	if m.Type != thrift.CALL && m.Type != thrift.ONEWAY && !x.opt.Replies {
		return
	}
	x.msgs = append(x.msgs, m)
	x.order = append(x.order, o)
}

func (x *extractor) result() *Result {
	idx := make([]int, len(x.msgs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		oa, ob := x.order[idx[a]], x.order[idx[b]]
		if oa.completed != ob.completed {
			return oa.completed < ob.completed
		}
		if oa.half != ob.half {
			return oa.half < ob.half
		}
		return oa.offset < ob.offset
	})
	res := &Result{Stats: x.stats}
	for _, i := range idx {
		res.Messages = append(res.Messages, x.msgs[i])
	}
	res.Stats.Kept = len(res.Messages)
	return res
}

// Record turns m into a vector record whose source is the capture's path.
// Its metadata holds the flow, the transport, the packet numbers, the number
// of the packet that completed it and that packet's capture time in
// nanoseconds since the Unix epoch ("timestamp"), and the header's method,
// type and seqid.
func (m Message) Record(capture string) vectors.Record {
	pk := make([]any, len(m.Packets))
	for i, p := range m.Packets {
		pk[i] = p
	}
	return vectors.Record{
		Source: capture,
		Meta: map[string]any{
			"flow":      m.Flow,
			"transport": m.Transport,
			"packets":   pk,
			"completed": m.Completed,
			"timestamp": m.Time.UnixNano(),
			"offset":    m.Offset,
			"method":    m.Method,
			"type":      TypeName(m.Type),
			"seqid":     m.SeqID,
		},
		Msg: m.Msg,
	}
}

// Records turns the messages into vector records in their order. A CALL
// whose reply the messages hold (REPLY or EXCEPTION with its seqid, the
// first after it on the reverse flow: kept with Options.Replies) carries
// the reply's SHA-256 (vectors.MetaReplySHA256) and the reply itself
// (vectors.MetaReply): `arcalis run` has the application answer as the
// server did and holds the TxEngine's reply to it.
func Records(msgs []Message, capture string) []vectors.Record {
	recs := make([]vectors.Record, len(msgs))
	open := map[string]int{} // flow and seqid of a CALL waiting for its reply -> its index
	key := func(flow string, seq int32) string { return fmt.Sprint(flow, " ", seq) }
	for i, m := range msgs {
		recs[i] = m.Record(capture)
		switch m.Type {
		case thrift.CALL:
			open[key(m.Flow, m.SeqID)] = i
		case thrift.REPLY, thrift.EXCEPTION:
			src, dst, ok := strings.Cut(m.Flow, "->")
			k := key(dst+"->"+src, m.SeqID)
			if c, waiting := open[k]; ok && waiting {
				sum := sha256.Sum256(m.Msg)
				recs[c].Meta[vectors.MetaReplySHA256] = hex.EncodeToString(sum[:])
				recs[c].Meta[vectors.MetaReply] = hex.EncodeToString(m.Msg)
				delete(open, k)
			}
		}
	}
	return recs
}

// TypeName is "CALL", "REPLY", "EXCEPTION" or "ONEWAY".
func TypeName(t thrift.TMessageType) string {
	switch t {
	case thrift.CALL:
		return "CALL"
	case thrift.REPLY:
		return "REPLY"
	case thrift.EXCEPTION:
		return "EXCEPTION"
	case thrift.ONEWAY:
		return "ONEWAY"
	}
	return "type-" + strconv.Itoa(int(t))
}
