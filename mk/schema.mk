# The generic recvFunction (rtl/generic/recv_schema.sv, issue 17), its
# header check (rtl/generic/recv_header.sv) and the respFunction
# (rtl/generic/resp_schema.sv) for one service of idl/: for
# each, the schema package `arcalis idl compile` generates for the service,
# a Verilated model of the module (for tb/schemarx, tb/schematx) and its
# Yosys synthesis and timing estimate. Included by the top Makefile after
# the model (per WIDTH) is defined.
#
# SERVICE is a file stem of idl/ (post_storage), or the stem without its
# underscores (poststorage); `make verilate SERVICE=...` builds the
# recv_schema and schema_pair models too.

ifneq ($(SERVICE),)
_sc_entry := $(strip $(foreach e,$(IDL_SERVICES),$(if $(filter $(SERVICE),$(word 1,$(subst =, ,$(e))) $(subst _,,$(word 1,$(subst =, ,$(e))))),$(e))))
ifeq ($(_sc_entry),)
$(error SERVICE=$(SERVICE): not a service of idl/; one of: $(foreach e,$(IDL_SERVICES),$(word 1,$(subst =, ,$(e)))))
endif
_sc_stem := $(word 1,$(subst =, ,$(_sc_entry)))
_sc_name := $(word 2,$(subst =, ,$(_sc_entry)))
endif

# schema_model defines one top module's package and model; $(1) is the
# prefix of its variables (SCHEMA), $(2) that of its target and build/
# directory (schema), $(3) the module (recv_schema), $(4) its sources after
# the packages. With SERVICE: $(1)_IDL, $(1)_NAME, $(1)_PKG and $(1)_DIR
# (build/$(2)-<stem>[-wN]). Another IDL (a test's): set those four instead
# of SERVICE. Defines $(1)_SV (the package), $(1)_MODEL and the target
# $(2)-model.
define schema_model
ifneq ($(SERVICE),)
$(1)_IDL  := idl/$(_sc_stem).thrift
$(1)_NAME := $(_sc_name)
$(1)_DIR  := build/$(2)-$(_sc_stem)$(WSUFFIX)
# gen.SVPackage: the service's name in snake case, as every stem of idl/
# is with "_service".
$(1)_PKG  := $(_sc_stem)_service_schema_pkg
endif

ifneq ($$($(1)_IDL),)
$(1)_SV := $$($(1)_DIR)/pkg/$$($(1)_PKG).sv

$$($(1)_SV): $$($(1)_IDL) $(wildcard idl/*.thrift thriftidl/*.go thriftidl/*/*.go)
	$(GO) run ./cmd/arcalis idl compile $$($(1)_IDL) --service $$($(1)_NAME) -o $$(@D)

# The model (the caller saves and puts back the VPI_* settings).
VPI_TOP     := $(3)
VPI_OUT     := $$($(1)_DIR)
VPI_FLAGS   := --assert -GWidth=$(WIDTH) +define+SCHEMA_PKG=$$($(1)_PKG)
VPI_SOURCES := $(RTL_PKG) $$($(1)_SV) $(4)
include vpi/build.mk
$(1)_MODEL := $$(VPI_SO)

.PHONY: $(2)-model
$(2)-model: $$($(1)_MODEL)
else
$(2)-model:
	$$(error make $$@: set SERVICE to a file stem of idl/: $$(foreach e,$$(IDL_SERVICES),$$(word 1,$$(subst =, ,$$(e)))))
endif
endef

# schema_unit is schema_model for one unit, rtl/generic/$(3).sv, and its
# synthesis report; $(2) also names its reports/ directory. Defines,
# besides schema_model's, $(1)_WORK, $(1)_REP, $(1)_NETLIST and the target
# $(2)-report, which reports timing findings (make timing SERVICE=S fails
# on them, as make timing does) and, given a fourth argument, fails on
# them too: both units meet the margin and keep it. A fifth argument
# lists the units of rtl/generic/ the module instantiates (synthesized with
# it, hierarchy kept).
define schema_unit
$(call schema_model,$(1),$(2),$(3),$(foreach u,$(5) $(3),rtl/generic/$(u).sv))
ifneq ($$($(1)_IDL),)

# Synthesis and timing of the module alone, as make report and make
# timing do for arcalis_top: Yosys reads the module with SCHEMA_PKG spelled
# out and the synthesis script with the module as its top and no DSP
# blocks (the timing estimate has no model of them; both copies in
# $(1)_DIR/report, made by sed from the sources).
$(1)_WORK := $$($(1)_DIR)/report
$(1)_REP  := reports/$(2)/$$(patsubst $(2)-%,%,$$(notdir $$($(1)_DIR)))
$(foreach u,$(5) $(3),$$($(1)_WORK)/$(u).sv): $$($(1)_WORK)/%.sv: rtl/generic/%.sv
	@mkdir -p $$(@D)
	sed 's/`SCHEMA_PKG/$$($(1)_PKG)/' $$< > $$@
$$($(1)_WORK)/synth.ys: scripts/yosys/synth.ys mk/schema.mk
	@mkdir -p $$(@D)
	sed 's/arcalis_top/$(3)/g; s/-noclkbuf/-noclkbuf -nodsp/' $$< > $$@

# The netlist (and the flip-flop check, which fails the build on a
# mismatch).
$(1)_NETLIST := $$($(1)_WORK)/netlist.v $$($(1)_WORK)/netlist.json
$$($(1)_NETLIST) &: $(foreach u,$(5) $(3),$$($(1)_WORK)/$(u).sv) $$($(1)_WORK)/synth.ys $$($(1)_SV) $(RTL_PKG) $(wildcard report/yosys/*.go)
	nice $(GO) run ./cmd/arcalis report synth --top $(3) --script $$($(1)_WORK)/synth.ys --param Width=$(WIDTH) \
	  --work $$($(1)_WORK) --out $$($(1)_REP) $(RTL_PKG) $$($(1)_SV) $(foreach u,$(5) $(3),$$($(1)_WORK)/$(u).sv)
	cp $$($(1)_WORK)/stat.txt $$($(1)_REP)/stat.txt

.PHONY: $(2)-lint $(2)-report
# (-Wno-UNUSEDPARAM: arcalis_pkg's parameters that the unit does not use.)
$(2)-lint: $$($(1)_SV)
	verilator --lint-only -Wall -Wno-UNUSEDPARAM --top-module $(3) -GWidth=$(WIDTH) +define+SCHEMA_PKG=$$($(1)_PKG) \
	  $(RTL_PKG) $$($(1)_SV) $(foreach u,$(5) $(3),rtl/generic/$(u).sv)

$(2)-report: $$($(1)_NETLIST)
	$(GO) run ./cmd/arcalis report timing --freq $(REPORT_FREQ) --netlist $$($(1)_WORK)/netlist.json --out $$($(1)_REP) \
	  || { echo "$(2)-report: $(3) for $$($(1)_NAME) has timing findings (endpoints above the 20 % margin, below 280 MHz, or an input reaching an output): $$($(1)_REP)/timing.md"; $(if $(4),exit 1,true); }
else
$(2)-report $(2)-lint:
	$$(error make $$@: set SERVICE to a file stem of idl/: $$(foreach e,$$(IDL_SERVICES),$$(word 1,$$(subst =, ,$$(e)))))
endif
endef

_sc_out     := $(VPI_OUT)
_sc_top     := $(VPI_TOP)
_sc_flags   := $(VPI_FLAGS)
_sc_sources := $(VPI_SOURCES)
_sc_so      := $(VPI_SO)

## make schema-model SERVICE=S  the generic recvFunction's model for service S of idl/ (build/schema-S/libvmodel.so; WIDTH=N: build/schema-S-wN)
## make schema-report SERVICE=S  Yosys resources and the timing estimate of the generic recvFunction alone for S: reports/schema/S[-wN]/{flipflops,timing}.md (fails on timing findings: it meets the 20 % margin)
## make schema-gatesim SERVICE=S  that netlist simulated against golden/schemagold on the messages of go test ./tb/schemarx
$(eval $(call schema_unit,SCHEMA,schema,recv_schema,gate))

## make schematx-model SERVICE=S  the generic respFunction's model for service S of idl/ (build/schematx-S/libvmodel.so; WIDTH=N: build/schematx-S-wN)
## make schematx-report SERVICE=S  Yosys resources and the timing estimate of the generic respFunction alone for S: reports/schematx/S[-wN]/{flipflops,timing}.md (fails on timing findings: it meets the 20 % margin)
$(eval $(call schema_unit,SCHEMATX,schematx,resp_schema,gate))

## make schemahdr-model SERVICE=S  the message header's check and dispatch for service S of idl/ (build/schemahdr-S/libvmodel.so; WIDTH=N: build/schemahdr-S-wN)
## make schemahdr-report SERVICE=S  Yosys resources and the timing estimate of that unit alone: reports/schemahdr/S[-wN]/{flipflops,timing}.md (fails on timing findings)
$(eval $(call schema_unit,SCHEMAHDR,schemahdr,recv_header,gate))

## make schema-rx-report SERVICE=S  the same for schema_rx: the header's check, then the args' walk, in hardware (recv_header and recv_schema with their sequencing): reports/schema-rx/S[-wN]/ (fails on timing findings)
$(eval $(call schema_unit,SCHEMARXSEQ,schema-rx,schema_rx,gate,recv_header recv_schema))

# The receive (schema_rx) and resp_schema in one model for `arcalis run
# --service` and `serve --service` (VPI: one model per process):
# rtl/generic/schema_pair.sv, a model only (no logic of its own to report).
SCHEMAPAIR_SOURCES := $(foreach u,recv_header recv_schema schema_rx resp_schema schema_pair,rtl/generic/$(u).sv)
## make schema-pair-model SERVICE=S  schema_rx (recv_header, then recv_schema) and resp_schema of service S of idl/ in one model, schema_pair (build/schema-pair-S/libvmodel.so; WIDTH=N: build/schema-pair-S-wN)
$(eval $(call schema_model,SCHEMAPAIR,schema-pair,schema_pair,$(SCHEMAPAIR_SOURCES)))

# Its wiring under -Wall (port widths), for make lint.
.PHONY: schema-pair-lint
ifneq ($(SCHEMAPAIR_IDL),)
schema-pair-lint: $(SCHEMAPAIR_SV)
	verilator --lint-only -Wall -Wno-UNUSEDPARAM --top-module schema_pair -GWidth=$(WIDTH) +define+SCHEMA_PKG=$(SCHEMAPAIR_PKG) \
	  $(RTL_PKG) $(SCHEMAPAIR_SV) $(SCHEMAPAIR_SOURCES)
else
schema-pair-lint:
	$(error make $@: set SERVICE to a file stem of idl/: $(foreach e,$(IDL_SERVICES),$(word 1,$(subst =, ,$(e)))))
endif

ifneq ($(SCHEMA_IDL),)
verilate: $(SCHEMA_MODEL) $(SCHEMAPAIR_MODEL)
endif

# schema_gate defines $(2)-gatesim: the netlist of make $(2)-report
# Verilated with the xc7 primitives' models, as mk/gatesim.mk does for
# arcalis_top, run by the RTL's own test ($(5) of ./tb/$(6), its case and
# model in $(4)_CASE and $(4)_MODEL); $(1) and $(3) as for schema_unit.
# UNOPTFLAT: Yosys drives some bits of an output vector from other bits of
# it, which Verilator takes for a loop through the vector (a speed warning).
define schema_gate
.PHONY: $(2)-gatesim
ifneq ($$($(1)_IDL),)
VPI_OUT     := $$($(1)_DIR)/gatesim
VPI_TOP     := $(3)
VPI_FLAGS   := -Wno-MODDUP -Wno-PINMISSING -Wno-INITIALDLY -Wno-UNOPTFLAT
VPI_SOURCES := scripts/gatesim/cells.v $$($(1)_WORK)/netlist.v $(GATESIM_CELLS)
include vpi/build.mk
$(1)_GATE_MODEL := $$(VPI_SO)

$(2)-gatesim: $$($(1)_GATE_MODEL)
	$(4)_CASE=$$($(1)_NAME):$(WIDTH) $(4)_MODEL=$$(abspath $$($(1)_GATE_MODEL)) \
	  $(GO) test -count=1 -timeout 60m -run '^$(5)$$$$' ./tb/$(6)
else
$(2)-gatesim:
	$$(error make $$@: set SERVICE to a file stem of idl/: $$(foreach e,$$(IDL_SERVICES),$$(word 1,$$(subst =, ,$$(e)))))
endif
endef
$(eval $(call schema_gate,SCHEMA,schema,recv_schema,SCHEMARX,TestRecvSchemaOne,schemarx))
## make schema-rx-gatesim SERVICE=S  schema_rx's netlist (make schema-rx-report) receiving the messages of go test ./tb/schemarx, checked against golden/schemagold
$(eval $(call schema_gate,SCHEMARXSEQ,schema-rx,schema_rx,SCHEMARECV,TestRecvOne,schemarx))
## make schematx-gatesim SERVICE=S  the respFunction's netlist simulated against golden/schemagold on the images of go test ./tb/schematx
$(eval $(call schema_gate,SCHEMATX,schematx,resp_schema,SCHEMATX,TestRespSchemaOne,schematx))
## make schemahdr-gatesim SERVICE=S  the header check's netlist simulated against golden/schemagold on the messages of go test ./tb/schemahdr
$(eval $(call schema_gate,SCHEMAHDR,schemahdr,recv_header,SCHEMAHDR,TestRecvHeaderOne,schemahdr))

# Put back the VPI settings of whoever included vpi/build.mk before.
VPI_OUT     := $(_sc_out)
VPI_TOP     := $(_sc_top)
VPI_FLAGS   := $(_sc_flags)
VPI_SOURCES := $(_sc_sources)
VPI_SO      := $(_sc_so)
