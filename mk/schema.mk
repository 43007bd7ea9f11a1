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
VPI_OUT     := $(_sc_out)
VPI_TOP     := $(_sc_top)
VPI_FLAGS   := $(_sc_flags)
VPI_SOURCES := $(_sc_sources)
VPI_SO      := $(_sc_so)

.PHONY: schema-model
## make schema-model SERVICE=S  the generic recvFunction's model for service S of idl/ (build/schema-S/libvmodel.so; WIDTH=N: build/schema-S-wN)
schema-model: $(SCHEMA_MODEL)
verilate: $(SCHEMA_MODEL)
else
schema-model:
	$(error make schema-model: set SERVICE to a file stem of idl/: $(foreach e,$(IDL_SERVICES),$(word 1,$(subst =, ,$(e)))))
endif
