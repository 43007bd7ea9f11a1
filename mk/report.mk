# Resource and power reports (issue 4, docs/reports.md). Included by the top
# Makefile after build/model is defined.

REPORT_PART ?= xa7a12t-cpg238-2I
REPORT_FREQ ?= 280
REPORT_WORK := build/report
REPORT_LOW  := $(REPORT_WORK)/check/lowered
VIVADO_OUT  ?= build/vivado
VIVADO      ?= vivado

# The RTL as report/yosys/lower.go rewrites it for Yosys 0.23, written by
# `arcalis report lower` whenever the RTL or the lowering changes.
REPORT_LOWERED := $(patsubst rtl/%,$(REPORT_LOW)/%,$(RTL))
$(REPORT_LOWERED) &: $(RTL) $(wildcard report/yosys/*.go)
	$(GO) run ./cmd/arcalis report lower -o $(REPORT_LOW) $(RTL)

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
VPI_FLAGS   := --assert -Wno-ENUMVALUE
VPI_SOURCES := $(REPORT_LOWERED)
include vpi/build.mk
REPORT_CHECK_MODEL := $(VPI_SO)
VPI_OUT     := $(_rp_out)
VPI_FLAGS   := $(_rp_flags)
VPI_SOURCES := $(_rp_sources)
VPI_SO      := $(_rp_so)

.PHONY: report report-check report-vivado

## make report       Yosys synthesis per block vs the xa7a12t, activity from vectors/default.vec, power ESTIMATE and SAIF; writes reports/yosys.{md,json,csv,svg} and reports/activity.saif
report: report-check
	$(GO) run ./cmd/arcalis report yosys --part $(REPORT_PART) --freq $(REPORT_FREQ) \
	  --vectors $(VECTORS) --work $(REPORT_WORK) --out reports $(RTL)

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
