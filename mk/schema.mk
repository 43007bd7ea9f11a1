# The generic recvFunction (rtl/generic/recv_schema.sv, issue 17) for one
# service of idl/: the schema package `arcalis idl compile` generates for
# it, and a Verilated model of the module for tb/schemarx. Included by the
# top Makefile after the model (per WIDTH) is defined.
#
# SERVICE is a file stem of idl/ (post_storage), or the stem without its
# underscores (poststorage); `make verilate SERVICE=...` builds this model
# too.

ifneq ($(SERVICE),)
_sc_entry := $(strip $(foreach e,$(IDL_SERVICES),$(if $(filter $(SERVICE),$(word 1,$(subst =, ,$(e))) $(subst _,,$(word 1,$(subst =, ,$(e))))),$(e))))
ifeq ($(_sc_entry),)
$(error SERVICE=$(SERVICE): not a service of idl/; one of: $(foreach e,$(IDL_SERVICES),$(word 1,$(subst =, ,$(e)))))
endif
_sc_stem    := $(word 1,$(subst =, ,$(_sc_entry)))
SCHEMA_IDL  := idl/$(_sc_stem).thrift
SCHEMA_NAME := $(word 2,$(subst =, ,$(_sc_entry)))
SCHEMA_DIR  := build/schema-$(_sc_stem)$(WSUFFIX)
# gen.SVPackage: the service's name in snake case, as every stem of idl/ is
# with "_service".
SCHEMA_PKG  := $(_sc_stem)_service_schema_pkg
endif

# Another IDL (a test's): set SCHEMA_IDL, SCHEMA_NAME (the service),
# SCHEMA_PKG (its package, gen.SVPackage) and SCHEMA_DIR instead of SERVICE.
ifneq ($(SCHEMA_IDL),)
SCHEMA_SV   := $(SCHEMA_DIR)/pkg/$(SCHEMA_PKG).sv

$(SCHEMA_SV): $(SCHEMA_IDL) $(wildcard idl/*.thrift thriftidl/*.go thriftidl/*/*.go)
	$(GO) run ./cmd/arcalis idl compile $(SCHEMA_IDL) --service $(SCHEMA_NAME) -o $(@D)

_sc_out     := $(VPI_OUT)
_sc_top     := $(VPI_TOP)
_sc_flags   := $(VPI_FLAGS)
_sc_sources := $(VPI_SOURCES)
_sc_so      := $(VPI_SO)
VPI_TOP     := recv_schema
VPI_OUT     := $(SCHEMA_DIR)
VPI_FLAGS   := --assert -GWidth=$(WIDTH) +define+SCHEMA_PKG=$(SCHEMA_PKG)
VPI_SOURCES := $(RTL_PKG) $(SCHEMA_SV) rtl/generic/recv_schema.sv
include vpi/build.mk
SCHEMA_MODEL := $(VPI_SO)

# The netlist of make schema-report (below) Verilated with the xc7
# primitives' models, as mk/gatesim.mk does for arcalis_top, for the same
# tests as the RTL (SCHEMARX_MODEL). The plain model's settings are put
# back afterwards. UNOPTFLAT: Yosys drives some bits of an output vector
# from other bits of it, which Verilator takes for a loop through the
# vector (a speed warning).
VPI_OUT     := $(SCHEMA_DIR)/gatesim
VPI_FLAGS   := -Wno-MODDUP -Wno-PINMISSING -Wno-INITIALDLY -Wno-UNOPTFLAT
VPI_SOURCES := scripts/gatesim/cells.v $(SCHEMA_DIR)/report/netlist.v $(GATESIM_CELLS)
include vpi/build.mk
SCHEMA_GATE_MODEL := $(VPI_SO)
VPI_OUT     := $(_sc_out)
VPI_TOP     := $(_sc_top)
VPI_FLAGS   := $(_sc_flags)
VPI_SOURCES := $(_sc_sources)
VPI_SO      := $(_sc_so)

# Synthesis and timing of the module alone, as make report and make timing
# do for arcalis_top: Yosys reads the module with SCHEMA_PKG spelled out and
# the synthesis script with the module as its top and no DSP blocks (the
# timing estimate has no model of them; both copies in
# SCHEMA_DIR/report, made by sed from the sources).
SCHEMA_WORK := $(SCHEMA_DIR)/report
SCHEMA_REP  := reports/schema/$(patsubst schema-%,%,$(notdir $(SCHEMA_DIR)))
$(SCHEMA_WORK)/recv_schema.sv: rtl/generic/recv_schema.sv
	@mkdir -p $(@D)
	sed 's/`SCHEMA_PKG/$(SCHEMA_PKG)/' $< > $@
$(SCHEMA_WORK)/synth.ys: scripts/yosys/synth.ys mk/schema.mk
	@mkdir -p $(@D)
	sed 's/arcalis_top/recv_schema/g; s/-noclkbuf/-noclkbuf -nodsp/' $< > $@

# The netlist (and the flip-flop check, which fails the build on a mismatch).
SCHEMA_NETLIST := $(SCHEMA_WORK)/netlist.v $(SCHEMA_WORK)/netlist.json
$(SCHEMA_NETLIST) &: $(SCHEMA_WORK)/recv_schema.sv $(SCHEMA_WORK)/synth.ys $(SCHEMA_SV) $(RTL_PKG) $(wildcard report/yosys/*.go)
	nice $(GO) run ./cmd/arcalis report synth --top recv_schema --script $(SCHEMA_WORK)/synth.ys --param Width=$(WIDTH) \
	  --work $(SCHEMA_WORK) --out $(SCHEMA_REP) $(RTL_PKG) $(SCHEMA_SV) $(SCHEMA_WORK)/recv_schema.sv
	cp $(SCHEMA_WORK)/stat.txt $(SCHEMA_REP)/stat.txt

.PHONY: schema-model schema-report schema-gatesim
## make schema-model SERVICE=S  the generic recvFunction's model for service S of idl/ (build/schema-S/libvmodel.so; WIDTH=N: build/schema-S-wN)
schema-model: $(SCHEMA_MODEL)
verilate: $(SCHEMA_MODEL)

## make schema-report SERVICE=S  Yosys resources and the timing estimate of the generic recvFunction alone for S: reports/schema/S[-wN]/{flipflops,timing}.md
schema-report: $(SCHEMA_NETLIST)
	$(GO) run ./cmd/arcalis report timing --freq $(REPORT_FREQ) --netlist $(SCHEMA_WORK)/netlist.json --out $(SCHEMA_REP) \
	  || echo "schema-report: recv_schema for $(SCHEMA_NAME) misses the timing target (not yet 280 MHz, docs/idl.md): $(SCHEMA_REP)/timing.md"

## make schema-gatesim SERVICE=S  that netlist simulated against golden/schemagold on the messages of go test ./tb/schemarx
schema-gatesim: $(SCHEMA_GATE_MODEL)
	SCHEMARX_CASE=$(SCHEMA_NAME):$(WIDTH) SCHEMARX_MODEL=$(abspath $(SCHEMA_GATE_MODEL)) \
	  $(GO) test -count=1 -timeout 60m -run '^TestRecvSchemaOne$$' ./tb/schemarx
else
schema-model schema-report schema-gatesim:
	$(error make $@: set SERVICE to a file stem of idl/: $(foreach e,$(IDL_SERVICES),$(word 1,$(subst =, ,$(e)))))
endif
