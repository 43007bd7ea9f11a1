# Resource and power reports (issue 4, docs/reports.md). Included by the top
# Makefile after the model (MODEL, per WIDTH) is defined.

REPORT_PART ?= xa7a12t-cpg238-2I
REPORT_FREQ ?= 280
# Per datapath width: build/report and reports/ for the default width,
# build/report-wN and reports/wN/ otherwise (mk/gatesim.mk, included
# first, sets REPORT_WORK the same way).
REPORT_WORK ?= build/report$(WSUFFIX)
REPORT_OUT  ?= reports$(if $(WSUFFIX),/w$(WIDTH))
REPORT_PARAMS := --param DataBytes=$(WIDTH)
REPORT_LOW  := $(REPORT_WORK)/check/lowered
VIVADO_OUT  ?= build/vivado
VIVADO      ?= vivado

# The RTL as report/yosys/lower.go rewrites it for Yosys 0.23, written by
# `arcalis report lower` whenever the RTL or the lowering changes.
REPORT_LOWERED := $(patsubst rtl/%,$(REPORT_LOW)/%,$(RTL))
$(REPORT_LOWERED) &: $(RTL) $(wildcard report/yosys/*.go)
	$(GO) run ./cmd/arcalis report lower -o $(REPORT_LOW) $(RTL)

# Synthesis alone (Yosys, then the flip-flop check against the RTL as
# Verilator elaborates it): the netlist for make report, timing and gatesim.
REPORT_NETLIST := $(REPORT_WORK)/netlist.json $(REPORT_WORK)/netlist.v
$(REPORT_NETLIST) &: $(RTL) scripts/yosys/synth.ys $(wildcard report/yosys/*.go)
	nice $(GO) run ./cmd/arcalis report synth --work $(REPORT_WORK) --out $(REPORT_OUT) $(REPORT_PARAMS) $(RTL)

# A second Verilated model built from the lowered RTL (build/report/check),
# so `make report` can show that what Yosys synthesizes behaves as the RTL
# does. Verilator flags the lowered enum casts (ENUMVALUE); they are plain
# size casts and change no value. The plain model's settings are put back
# afterwards for the mk files included after this one.
_rp_out     := $(VPI_OUT)
_rp_flags   := $(VPI_FLAGS)
_rp_sources := $(VPI_SOURCES)
_rp_so      := $(VPI_SO)
VPI_OUT     := $(REPORT_WORK)/check
VPI_FLAGS   := --assert -Wno-ENUMVALUE -GDataBytes=$(WIDTH)
VPI_SOURCES := $(REPORT_LOWERED)
include vpi/build.mk
REPORT_CHECK_MODEL := $(VPI_SO)
VPI_OUT     := $(_rp_out)
VPI_FLAGS   := $(_rp_flags)
VPI_SOURCES := $(_rp_sources)
VPI_SO      := $(_rp_so)

.PHONY: report report-synth report-check report-vivado

## make report       Yosys synthesis per block vs the xa7a12t (WIDTH=N: DataBytes=N, into reports/wN/), flip-flops per block checked against the RTL, activity from vectors/default.vec, power ESTIMATE and SAIF; writes reports/yosys.{md,json,csv,svg}, reports/flipflops.{md,json} and reports/activity.saif
## make report SERVICE=S  the same for service S of idl/: its header check, generic recvFunction, the two in schema_rx, and respFunction, each synthesized alone (make schemahdr-report, schema-report, schema-rx-report and schematx-report; they are not in arcalis_top yet)
ifeq ($(SERVICE),)
report: report-check $(REPORT_NETLIST)
	$(GO) run ./cmd/arcalis report yosys --synthesized $(REPORT_PARAMS) --part $(REPORT_PART) --freq $(REPORT_FREQ) \
	  --model $(MODEL) --vectors $(VECTORS) --work $(REPORT_WORK) --out $(REPORT_OUT) $(RTL)
else
report: schemahdr-report schema-report schema-rx-report schematx-report
endif

## make report-synth Yosys synthesis and the flip-flop check only (the netlist for timing and gatesim)
report-synth: $(REPORT_NETLIST)

## make report-check the RTL lowered for Yosys, Verilated and run against the reference on vectors/default.vec
report-check: $(MODEL) $(REPORT_CHECK_MODEL)
	$(GO) run ./cmd/arcalis run --model $(REPORT_CHECK_MODEL) $(VECTORS)

## make report-vivado Vivado OOC synth/place/route at REPORT_FREQ on REPORT_PART (needs vivado on PATH); reports in build/vivado, tables in reports/vivado.*
report-vivado:
	@command -v $(VIVADO) >/dev/null || { echo "report-vivado: $(VIVADO) is not on PATH (make report gives the Yosys estimate)" >&2; exit 1; }
	@mkdir -p $(VIVADO_OUT)
	$(VIVADO) -mode batch -nojournal -log $(VIVADO_OUT)/vivado.log -source scripts/vivado/flow.tcl \
	  -tclargs $(VIVADO_OUT) $(REPORT_PART) $(REPORT_FREQ) $(wildcard reports/activity.saif) -- $(RTL)
	$(GO) run ./cmd/arcalis report vivado --dir $(VIVADO_OUT) --part $(REPORT_PART) --freq $(REPORT_FREQ) --out reports
