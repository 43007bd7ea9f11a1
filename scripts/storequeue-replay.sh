#!/usr/bin/env bash
# Replays the Yosys 0.23 store-queue bug (issue 14) through today's checks:
# the tree of fd14291 (its rtl/store_queue.sv declared `entry_t fifo_q [2]`,
# its lowering passed that to Yosys, which dropped the array's size) is
# synthesized with today's scripts/yosys/synth.ys, then
#   1. today's flip-flop check must fail naming u_store_queue.fifo_q, and
#   2. gatesim (that tree's harness on the netlist) must fail: at memory
#      latency 100 on the default vectors, and on the fuzz seeds.
# Exits 0 when both caught it. Usage: scripts/storequeue-replay.sh [DIR]
# (default build/storequeue-replay). Takes ~10 minutes on 2 cores.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mkdir -p "${1:-$here/build/storequeue-replay}" && cd "${1:-$here/build/storequeue-replay}" && pwd)
rev=fd14291
rm -rf "$dir/tree" "$dir/synth" "$dir/gatesim"
mkdir -p "$dir/tree" "$dir/synth"
git -C "$here" archive "$rev" | tar -x -C "$dir/tree"
cd "$dir/tree"
rtl="rtl/arcalis_pkg.sv $(ls rtl/*.sv | grep -v arcalis_pkg | sort | tr '\n' ' ')"

echo "== synthesis of $rev's RTL, lowered as it was then ($dir/synth)"
# shellcheck disable=SC2086
go run ./cmd/arcalis report lower -o "$dir/synth/lowered" $rtl
{ printf 'read_verilog -sv'; for f in $rtl; do printf ' lowered/%s' "${f#rtl/}"; done; echo; } > "$dir/synth/sources.ys"
(cd "$dir/synth" && nice yosys -q -l yosys.log -s "$here/scripts/yosys/synth.ys")

caught=0
echo "== flip-flop check (today's) on that netlist"
# shellcheck disable=SC2086
if (cd "$here" && go run ./cmd/arcalis report flipflops --work "$dir/synth" $(for f in $rtl; do printf '%s ' "$dir/tree/$f"; done)); then
  echo "NOT CAUGHT: the flip-flop check passed"
else
  caught=$((caught + 1))
fi

echo "== gatesim: $rev's harness on that netlist"
nice make -f vpi/build.mk VPI_TOP=arcalis_top VPI_OUT="$dir/gatesim" \
  VPI_SOURCES="$here/scripts/gatesim/cells.v $dir/synth/netlist.v /usr/share/yosys/xilinx/cells_sim.v" \
  VPI_FLAGS="-Wno-MODDUP -Wno-PINMISSING -Wno-INITIALDLY" vpi-model >"$dir/gatesim.log" 2>&1
failed=0
for lat in 4 100; do
  echo "-- vectors/default.vec, memory latency $lat"
  go run ./cmd/arcalis run --mem-latency "$lat" --wave "" --model "$dir/gatesim/libvmodel.so" vectors/default.vec >"$dir/run-$lat.txt" 2>&1 || failed=1
  grep -E '^MISMATCH' "$dir/run-$lat.txt" | head -6 || true
  tail -1 "$dir/run-$lat.txt"
done
echo "-- FuzzRTL seeds and corpus"
ARCALIS_MODEL="$dir/gatesim/libvmodel.so" go test -count=1 -v -run '^FuzzRTL$' ./tb >"$dir/fuzz.txt" 2>&1 || failed=1
echo "$(grep -c -- '--- FAIL: FuzzRTL/' "$dir/fuzz.txt" || true) failing, $(grep -c -- '--- PASS: FuzzRTL/' "$dir/fuzz.txt" || true) passing inputs"
grep -m3 'outside App.Recv\|want' "$dir/fuzz.txt" || true
if [ "$failed" = 1 ]; then caught=$((caught + 1)); else echo "NOT CAUGHT: gatesim passed"; fi

[ "$caught" = 2 ] && echo "caught by both the flip-flop check and gatesim"
[ "$caught" = 2 ]
