#!/usr/bin/env bash
# Compares what `arcalis vectors from-pcap --replies` finds in the committed
# captures with what Wireshark's Thrift dissector finds (tshark, two passes,
# TCP reassembly on): for every message, the frame that completes it, its
# type, method and seqid. Prints the differences; exits non-zero if any.
# See docs/captures.md for the result and why one-pass tshark counts more.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v tshark >/dev/null || { echo "tshark-compare: needs tshark (apt-get install tshark)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/arcalis" ./cmd/arcalis
status=0
for cap in framed.pcap buffered.pcapng; do
  file=vectors/captures/$cap
  log=vectors/captures/${cap%%.*}.calls.jsonl
  port=$(head -1 "$log" | sed 's/.*"server":"[^"]*:\([0-9]*\)".*/\1/')
  "$tmp/arcalis" vectors from-pcap --replies "$file" -o "$tmp/ours.vec" >/dev/null
  NO_COLOR=1 "$tmp/arcalis" vectors show "$tmp/ours.vec" |
    awk '/^  completed:/ {c = $2}
         /^  message:/ {gsub(/[",]/, ""); t = ($5 == "CALL") ? "0x01" : ($5 == "REPLY") ? "0x02" : $5; print c "\t" t "\t" $3 "\t" $7}' |
    sort -n >"$tmp/ours.txt"
  tshark -2 -r "$file" -o tcp.desegment_tcp_streams:TRUE -d "tcp.port==$port,thrift" -Y thrift \
    -T fields -e frame.number -e thrift.mtype -e thrift.method -e thrift.seq_id 2>/dev/null |
    sort -n >"$tmp/tshark.txt"
  one=$(tshark -r "$file" -d "tcp.port==$port,thrift" -Y thrift 2>/dev/null | wc -l)
  if diff "$tmp/ours.txt" "$tmp/tshark.txt" >"$tmp/diff"; then
    echo "$cap: $(wc -l <"$tmp/ours.txt") messages, the same frame, type, method and seqid as tshark -2 (one-pass tshark: $one frames match 'thrift')"
  else
    echo "$cap: from-pcap (<) and tshark -2 (>) disagree:"
    cat "$tmp/diff"
    status=1
  fi
done
exit $status
