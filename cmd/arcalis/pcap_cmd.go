package main

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/apache/thrift/lib/go/thrift"
	"github.com/urfave/cli/v2"

	"arcalis/vectors"
	"arcalis/vectors/pcap"
)

// fromPcapCommand is `arcalis vectors from-pcap`.
func fromPcapCommand() *cli.Command {
	return &cli.Command{
		Name:      "from-pcap",
		Usage:     "make a vector file from the Thrift messages in network captures (pcap, pcapng)",
		ArgsUsage: "CAPTURE... -o OUT.vec",
		Description: "Reassembles every TCP direction (out-of-order, retransmitted and overlapping\n" +
			"segments; connections open before the capture), tells framed from buffered\n" +
			"transport per stream and cuts out each complete Thrift binary-protocol message.\n" +
			"Requests (CALL, ONEWAY) become records, replies too with --replies (then a CALL\n" +
			"also carries its reply's SHA-256, reply_sha256, which arcalis run holds the\n" +
			"TxEngine's reply to); each record holds the flow, the transport, the packet\n" +
			"numbers (1-based, as Wireshark's), the packet that completed it and its capture time. What could not be used is counted\n" +
			"by reason. A damaged capture is an error naming the file and the packet, and\n" +
			"nothing is written unless --keep-partial.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "vector file to write", TakesFile: true},
			&cli.IntFlag{Name: "port", Usage: "keep only TCP traffic to or from `PORT` (default: every port)"},
			&cli.BoolFlag{Name: "replies", Usage: "keep REPLY and EXCEPTION messages too, and give each CALL its reply's reply_sha256"},
			&cli.BoolFlag{Name: "keep-partial", Usage: "on a damaged capture, keep the messages of the packets before the damage"},
		},
		Action: vectorsFromPcap,
	}
}

func vectorsFromPcap(c *cli.Context) error {
	files, err := positional(c)
	if err != nil {
		return err
	}
	out, port := c.String("output"), c.Int("port")
	switch {
	case out == "":
		return errors.New("vectors from-pcap: missing -o OUT.vec")
	case len(files) == 0:
		return errors.New("vectors from-pcap: no capture files")
	case port < 0 || port > 65535:
		return fmt.Errorf("vectors from-pcap: --port %d: want 1..65535", port)
	}
	w, ew := c.App.Writer, c.App.ErrWriter
	var recs []vectors.Record
	for _, path := range files {
		tick := newTicker(ew, path)
		opt := pcap.Options{Port: port, Replies: c.Bool("replies"), Progress: func(n int) { tick.maybe("%d packets", n) }}
		res, err := pcap.ReadFile(path, opt)
		var ce *pcap.CaptureError
		switch {
		case errors.As(err, &ce) && res != nil && c.Bool("keep-partial"):
			paint(ew, failColor, "warning")
			fmt.Fprintf(ew, ": %v; keeping the %d messages of the packets before it (--keep-partial)\n", err, len(res.Messages))
		case errors.As(err, &ce) && res != nil:
			return fmt.Errorf("vectors from-pcap: %w (nothing written; --keep-partial keeps the %d messages of the packets before it)", err, len(res.Messages))
		case err != nil:
			return fmt.Errorf("vectors from-pcap: %w (nothing written)", err)
		}
		recs = append(recs, pcap.Records(res.Messages, path)...)
		reportCapture(w, path, res)
	}
	if err := vectors.WriteFile(out, recs); err != nil {
		return fmt.Errorf("vectors from-pcap: %w", err)
	}
	paint(w, okColor, "wrote")
	fmt.Fprintf(w, " %d records from %d captures to %s\n", len(recs), len(files), out)
	return nil
}

// reportCapture prints what one capture held and what could not be used.
func reportCapture(w io.Writer, path string, res *pcap.Result) {
	s := res.Stats
	fmt.Fprintf(w, "%s: %d packets, %d TCP segments, TCP directions with data: %d", path, s.Packets, s.TCP, s.Streams)
	if len(s.Transports) > 0 {
		var ts []string
		for name, n := range s.Transports {
			ts = append(ts, fmt.Sprintf("%d %s", n, name))
		}
		sort.Strings(ts)
		fmt.Fprintf(w, " (%s)", strings.Join(ts, ", "))
	}
	fmt.Fprintln(w)
	var found []string
	for t, n := range s.Found {
		if n > 0 {
			found = append(found, fmt.Sprintf("%d %s", n, pcap.TypeName(thrift.TMessageType(t))))
		}
	}
	if len(found) == 0 {
		found = []string{"no Thrift messages"}
	}
	fmt.Fprintf(w, "  found %s; kept %d\n", strings.Join(found, ", "), s.Kept)
	for _, r := range pcap.Reasons() {
		if s.Unusable[r] == 0 {
			continue
		}
		fmt.Fprintf(w, "  not used: %s: %d", r, s.Unusable[r])
		if s.LostBytes[r] > 0 {
			fmt.Fprintf(w, " (%d bytes)", s.LostBytes[r])
		}
		fmt.Fprintf(w, "; first: %s\n", s.Example(r))
	}
}
