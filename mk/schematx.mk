# The generic respFunction (rtl/generic/resp_schema.sv) for one service of
# idl/: a Verilated model of the module for tb/schematx, and its Yosys
# synthesis and timing estimate. Self-contained (its own copy of the
# schema package) so that it does not depend on the order in which the top
# Makefile's `-include mk/*.mk` reads mk/schema.mk.
#
# SERVICE is a file stem of idl/ (post_storage), or the stem without its
# underscores (poststorage).

ifneq ($(SERVICE),)
_tx_entry := $(strip $(foreach e,$(IDL_SERVICES),$(if $(filter $(SERVICE),$(word 1,$(subst =, ,$(e))) $(subst _,,$(word 1,$(subst =, ,$(e))))),$(e))))
ifeq ($(_tx_entry),)
$(error SERVICE=$(SERVICE): not a service of idl/; one of: $(foreach e,$(IDL_SERVICES),$(word 1,$(subst =, ,$(e)))))
endif
_tx_stem    := $(word 1,$(subst =, ,$(_tx_entry)))
SCHEMATX_IDL  := idl/$(_tx_stem).thrift
SCHEMATX_NAME := $(word 2,$(subst =, ,$(_tx_entry)))
SCHEMATX_DIR  := build/schematx-$(_tx_stem)$(WSUFFIX)
SCHEMATX_PKG  := $(_tx_stem)_service_schema_pkg
endif

# Another IDL (tb/schematx's testdata): set SCHEMATX_IDL, SCHEMATX_NAME
# (the service), SCHEMATX_PKG (its package, gen.SVPackage) and
# SCHEMATX_DIR instead of SERVICE.
ifneq ($(SCHEMATX_IDL),)
SCHEMATX_SV   := $(SCHEMATX_DIR)/pkg/$(SCHEMATX_PKG).sv

$(SCHEMATX_SV): $(SCHEMATX_IDL) $(wildcard idl/*.thrift thriftidl/*.go thriftidl/*/*.go)
	$(GO) run ./cmd/arcalis idl compile $(SCHEMATX_IDL) --service $(SCHEMATX_NAME) -o $(@D)

# The model; the VPI settings of whoever included vpi/build.mk before are
# put back afterwards, as mk/schema.mk does.
_tx_out     := $(VPI_OUT)
_tx_top     := $(VPI_TOP)
_tx_flags   := $(VPI_FLAGS)
_tx_sources := $(VPI_SOURCES)
_tx_so      := $(VPI_SO)
VPI_TOP     := resp_schema
VPI_OUT     := $(SCHEMATX_DIR)
VPI_FLAGS   := --assert -GWidth=$(WIDTH) +define+SCHEMA_PKG=$(SCHEMATX_PKG)
VPI_SOURCES := $(RTL_PKG) $(SCHEMATX_SV) rtl/generic/resp_schema.sv
include vpi/build.mk
SCHEMATX_MODEL := $(VPI_SO)
VPI_OUT     := $(_tx_out)
VPI_TOP     := $(_tx_top)
VPI_FLAGS   := $(_tx_flags)
VPI_SOURCES := $(_tx_sources)
VPI_SO      := $(_tx_so)

# Synthesis and timing of the module alone, as make schema-report does for
# recv_schema: SCHEMA_PKG spelled out by sed, the synthesis script with the
# module as its top and no DSP blocks.
SCHEMATX_WORK := $(SCHEMATX_DIR)/report
SCHEMATX_REP  := reports/schematx/$(patsubst schematx-%,%,$(notdir $(SCHEMATX_DIR)))
$(SCHEMATX_WORK)/resp_schema.sv: rtl/generic/resp_schema.sv
	@mkdir -p $(@D)
	sed 's/`SCHEMA_PKG/$(SCHEMATX_PKG)/' $< > $@
$(SCHEMATX_WORK)/synth.ys: scripts/yosys/synth.ys mk/schematx.mk
	@mkdir -p $(@D)
	sed 's/arcalis_top/resp_schema/g; s/-noclkbuf/-noclkbuf -nodsp/' $< > $@

# The netlist (and the flip-flop check, which fails the build on a mismatch).
SCHEMATX_NETLIST := $(SCHEMATX_WORK)/netlist.v $(SCHEMATX_WORK)/netlist.json
$(SCHEMATX_NETLIST) &: $(SCHEMATX_WORK)/resp_schema.sv $(SCHEMATX_WORK)/synth.ys $(SCHEMATX_SV) $(RTL_PKG) $(wildcard report/yosys/*.go)
	nice $(GO) run ./cmd/arcalis report synth --top resp_schema --script $(SCHEMATX_WORK)/synth.ys --param Width=$(WIDTH) \
	  --work $(SCHEMATX_WORK) --out $(SCHEMATX_REP) $(RTL_PKG) $(SCHEMATX_SV) $(SCHEMATX_WORK)/resp_schema.sv
	cp $(SCHEMATX_WORK)/stat.txt $(SCHEMATX_REP)/stat.txt

.PHONY: schematx-model schematx-report
## make schematx-model SERVICE=S  the generic respFunction's model for service S of idl/ (build/schematx-S/libvmodel.so; WIDTH=N: build/schematx-S-wN)
schematx-model: $(SCHEMATX_MODEL)

## make schematx-report SERVICE=S  Yosys resources and the timing estimate of the generic respFunction alone for S: reports/schematx/S[-wN]/{flipflops,timing}.md
schematx-report: $(SCHEMATX_NETLIST)
	$(GO) run ./cmd/arcalis report timing --freq $(REPORT_FREQ) --netlist $(SCHEMATX_WORK)/netlist.json --out $(SCHEMATX_REP) \
	  || echo "schematx-report: resp_schema for $(SCHEMATX_NAME) misses the timing target: $(SCHEMATX_REP)/timing.md"
else
schematx-model schematx-report:
	$(error make $@: set SERVICE to a file stem of idl/: $(foreach e,$(IDL_SERVICES),$(word 1,$(subst =, ,$(e)))))
endif
