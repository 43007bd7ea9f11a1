#!/usr/bin/env bash
# Records the committed captures in vectors/captures/ (docs/captures.md): a real
# Apache Thrift Go server and client of idl/memcached.thrift talk on
# loopback only, tcpdump records the framed transport (classic pcap) and dumpcap
# the buffered one (pcapng), and the client logs every call it made.
#
#   scripts/capture.sh [OUTDIR]      (default vectors/captures; needs root for lo)
#
# Every process it starts has a time limit, and the script stops them by PID.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-vectors/captures}
limit=60 # seconds any one step may take

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
missing=()
command -v tcpdump >/dev/null || missing+=(tcpdump)
command -v dumpcap >/dev/null || missing+=(tshark)
if [ ${#missing[@]} -gt 0 ]; then
  echo "capture: installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/capture" ./vectors/capture
mkdir -p "$out"

# wait_for FILE PATTERN: until FILE holds a line matching PATTERN (or the limit).
wait_for() {
  for _ in $(seq $((limit * 10))); do
    if grep -q "$2" "$1" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "capture: timed out waiting for '$2' in $1:" >&2
  cat "$1" >&2 || true
  return 1
}

# record TRANSPORT TOOL CAPTURE LOG
record() {
  local transport=$1 tool=$2 file=$3 log=$4
  rm -f "$tmp"/ready "$tmp"/go "$tmp"/*.out "$tmp"/*.err
  echo "capture: $transport transport, $tool -> $file"

  timeout $((limit * 2)) "$tmp/capture" serve -transport "$transport" -addr 127.0.0.1:0 -timeout "${limit}s" \
    >"$tmp/serve.out" 2>"$tmp/serve.err" &
  local server=$!
  pids+=("$server")
  wait_for "$tmp/serve.out" '^listening '
  local addr port
  addr=$(sed -n 's/^listening //p' "$tmp/serve.out")
  port=${addr##*:}

  # Connection 0 opens and makes its first calls before the capture starts.
  timeout "$limit" "$tmp/capture" client -transport "$transport" -addr "$addr" -log "$tmp/calls.jsonl" \
    -ready "$tmp/ready" -go "$tmp/go" >"$tmp/client.out" 2>"$tmp/client.err" &
  local client=$!
  pids+=("$client")
  wait_for "$tmp/ready" ready

  local capture
  case $tool in
  tcpdump)
    timeout "$limit" tcpdump -i lo -U -s 0 -w "$tmp/$transport.cap" "tcp and host 127.0.0.1 and port $port" 2>"$tmp/cap.err" &
    capture=$!
    pids+=("$capture")
    wait_for "$tmp/cap.err" 'listening on'
    ;;
  dumpcap)
    timeout "$limit" dumpcap -q -i lo -f "tcp and host 127.0.0.1 and port $port" -w "$tmp/$transport.cap" 2>"$tmp/cap.err" &
    capture=$!
    pids+=("$capture")
    wait_for "$tmp/cap.err" 'Capturing on'
    ;;
  esac
  sleep 0.5 # let the capture settle before the traffic

  touch "$tmp/go"
  if ! wait "$client"; then
    echo "capture: the client failed:" >&2
    cat "$tmp/client.err" >&2
    return 1
  fi
  sleep 1 # the last replies and FINs
  if ! kill -INT "$capture" 2>/dev/null; then
    echo "capture: $tool stopped early:" >&2
    cat "$tmp/cap.err" >&2
    return 1
  fi
  wait "$capture" || true
  kill -INT "$server"
  wait "$server" || true

  install -m 644 "$tmp/$transport.cap" "$file"
  install -m 644 "$tmp/calls.jsonl" "$log"
  echo "capture: $(wc -l <"$log") calls logged, $(stat -c %s "$file") bytes captured"
}

record framed tcpdump "$out/framed.pcap" "$out/framed.calls.jsonl"
record buffered dumpcap "$out/buffered.pcapng" "$out/buffered.calls.jsonl"
