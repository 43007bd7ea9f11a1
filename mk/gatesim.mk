# Post-synthesis simulation (issue 14, docs/reports.md "make gatesim"): the
# xc7 netlist that make report synthesizes (netlist.v), Verilated with
# Yosys's primitive models into a model library like build/model's, then
# run by the same harness, scoreboard and reference. Included before
# mk/report.mk, which builds the netlist (same REPORT_WORK).

REPORT_WORK   ?= build/report$(WSUFFIX)
GATESIM_OUT   := build/gatesim$(WSUFFIX)
GATESIM_CELLS ?= /usr/share/yosys/xilinx/cells_sim.v
# scripts/gatesim/cells.v comes first: its LUT1-6 and CARRY4 replace
# cells_sim.v's (MODDUP). The netlist leaves unused primitive outputs
# unconnected (PINMISSING); the primitives' "initial Q <= INIT" is run as a
# blocking assignment at time 0, which is what it means (INITIALDLY).
# UNOPTFLAT (a combinational loop to Verilator) stays an error: synth.ys
# splits the netlist's vectors into bits so that none is left.
_gs_out     := $(VPI_OUT)
_gs_flags   := $(VPI_FLAGS)
_gs_sources := $(VPI_SOURCES)
_gs_so      := $(VPI_SO)
VPI_OUT     := $(GATESIM_OUT)
VPI_FLAGS   := -Wno-MODDUP -Wno-PINMISSING -Wno-INITIALDLY
VPI_SOURCES := scripts/gatesim/cells.v $(REPORT_WORK)/netlist.v $(GATESIM_CELLS)
include vpi/build.mk
GATESIM_MODEL := $(VPI_SO)
VPI_OUT     := $(_gs_out)
VPI_FLAGS   := $(_gs_flags)
VPI_SOURCES := $(_gs_sources)
VPI_SO      := $(_gs_so)

# The default vectors run at the harness's memory latency and at 100
# cycles, where stores queue behind the 32 in flight and wait in the store
# queue's FIFO (what Yosys 0.23's dropped array size corrupted; at latency 4
# no store waits there). Then FuzzRTL's and FuzzRTLReply's seeds and
# corpora, which vary the memory's timing, backpressure and faults.
GATESIM_LATENCIES ?= 4 100

.PHONY: gatesim gatesim-model

## make gatesim      the synthesized netlist (make report's netlist.v, xc7 primitives) Verilated and run against the reference on vectors/default.vec (memory latency 4 and 100) and the fuzz seeds and corpus (WIDTH=N: that width's netlist); any difference fails
gatesim: $(GATESIM_MODEL)
	@set -e; for l in $(GATESIM_LATENCIES); do \
	  echo "gatesim: $(VECTORS), memory latency $$l, $(GATESIM_MODEL)"; \
	  $(GO) run ./cmd/arcalis run --mem-latency $$l --model $(GATESIM_MODEL) $(VECTORS); done
	ARCALIS_MODEL=$(abspath $(GATESIM_MODEL)) $(GO) test -count=1 -run '^FuzzRTL(Reply)?$$' ./tb

## make gatesim-model build only the post-synthesis model (build/gatesim[-wN]/libvmodel.so)
gatesim-model: $(GATESIM_MODEL)
