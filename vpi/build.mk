# vpi/build.mk builds a design into a shared library for package vpi: the
# Verilated model (class prefix Vmodel), the Verilator runtime with VPI, FST
# tracing and coverage, and vpi/shim.cpp.
#
# Set these, then include this file (it may be included once per model):
#   VPI_TOP      top module name
#   VPI_SOURCES  SystemVerilog files, packages first (.vlt control files too)
#   VPI_OUT      output directory, e.g. build/model
#   VPI_FLAGS    optional extra verilator flags, e.g. --coverage or --assert
#   VPI_LIB      optional library file name (default libvmodel.so)
#   VPI_OPT      optional C++ optimisation for model and runtime (default -O2)
#   VPI_JOBS     optional compile jobs when make runs without -j (default 2)
#   VPI_PUBLIC   optional globs of top-module signals that VPI can reach
#                (default *; lowRISC-style ports only: *_i *_ni *_o)
# It defines VPI_SO, the library path $(VPI_OUT)/$(VPI_LIB), as a file
# target, and the phony target vpi-model that builds every VPI_SO so far.
# The library is rebuilt only when a source, the shim or a setting above
# changes; an RTL edit recompiles only the model, not the runtime.
#
# Standalone: make -f vpi/build.mk VPI_TOP=... VPI_SOURCES=... VPI_OUT=... vpi-model

VPI_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

ifeq ($(strip $(VPI_TOP)),)
$(error vpi/build.mk: set VPI_TOP to the top module name)
endif
ifeq ($(strip $(VPI_SOURCES)),)
$(error vpi/build.mk: set VPI_SOURCES to the SystemVerilog files)
endif
ifeq ($(strip $(VPI_OUT)),)
$(error vpi/build.mk: set VPI_OUT to the output directory)
endif

VPI_LIB  ?= libvmodel.so
VPI_OPT  ?= -O2
VPI_JOBS ?= 2
VPI_PUBLIC ?= *
VERILATOR ?= verilator

# Keep whatever default goal the including makefile has.
_vpi_goal := $(.DEFAULT_GOAL)

VPI_SO := $(VPI_OUT)/$(VPI_LIB)

# Everything that changes the build but is not a file. The config file is
# rewritten only when this changes, so its time stamp tracks the settings.
$(VPI_SO) $(VPI_OUT)/vpi.config: private _vpi_config := \
  top=$(VPI_TOP) public=$(VPI_PUBLIC) flags=$(strip $(VPI_FLAGS)) opt=$(VPI_OPT) sources=$(strip $(VPI_SOURCES)) \
  verilator=$(shell $(VERILATOR) --version 2>/dev/null)
$(VPI_SO): private _vpi_top     := $(VPI_TOP)
$(VPI_SO): private _vpi_flags   := $(VPI_FLAGS)
$(VPI_SO): private _vpi_opt     := $(VPI_OPT)
$(VPI_SO): private _vpi_sources := $(VPI_SOURCES)
$(VPI_SO): private _vpi_jobs    := $(VPI_JOBS)
$(VPI_SO): private _vpi_public  := $(VPI_PUBLIC)
$(VPI_SO): private _vpi_out     := $(abspath $(VPI_OUT))

$(VPI_OUT)/vpi.config: _vpi_force
	@mkdir -p $(@D)
	@printf '%s\n' '$(_vpi_config)' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi

# Verilator writes into gen/; only files whose content changed are copied
# into obj/, so make there recompiles only what really changed.
$(VPI_SO): $(VPI_SOURCES) $(VPI_OUT)/vpi.config \
           $(VPI_DIR)/shim.cpp $(VPI_DIR)/shim.h $(VPI_DIR)/lib.mk $(VPI_DIR)/build.mk
	@mkdir -p $(_vpi_out)/gen $(_vpi_out)/obj
	@set -f; { echo '`verilator_config'; for v in $(_vpi_public); do \
	  echo "public_flat_rw -module \"$(_vpi_top)\" -var \"$$v\""; done; } > $(_vpi_out)/ports.vlt.tmp
	@cmp -s $(_vpi_out)/ports.vlt.tmp $(_vpi_out)/ports.vlt \
	  && rm -f $(_vpi_out)/ports.vlt.tmp || mv -f $(_vpi_out)/ports.vlt.tmp $(_vpi_out)/ports.vlt
	$(VERILATOR) --cc --vpi --trace-fst --prefix Vmodel --top-module $(_vpi_top) \
	  -Mdir $(_vpi_out)/gen $(_vpi_flags) $(_vpi_out)/ports.vlt $(_vpi_sources)
	@printf 'OPT_FAST = %s\nOPT_GLOBAL = %s\n' '$(_vpi_opt)' '$(_vpi_opt)' > $(_vpi_out)/gen/vpi_opt.mk
	@for f in $(_vpi_out)/gen/*; do \
	  t=$(_vpi_out)/obj/$${f##*/}; cmp -s $$f $$t || cp -p $$f $$t; \
	done
	$(MAKE) -C $(_vpi_out)/obj -f $(VPI_DIR)/lib.mk \
	  $(if $(filter -j%,$(MAKEFLAGS)),,-j$(_vpi_jobs)) --no-print-directory \
	  VPI_DIR=$(VPI_DIR) VPI_SO=$(abspath $@) $(abspath $@)
	@touch $@

.PHONY: vpi-model _vpi_force
vpi-model: $(VPI_SO)
_vpi_force:

.DEFAULT_GOAL := $(_vpi_goal)
