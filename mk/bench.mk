# Benchmarks (issue 5): the RTL against line rate, the Go harness against a
# native C++ Verilator testbench, the reference against Apache Thrift, and the
# cost of building and testing. Included by the top Makefile.

BENCH_OUT    := build/bench
BENCH_NATIVE := $(BENCH_OUT)/native/arcalis-native
# The plain model's settings, as the top Makefile gives them to vpi/build.mk:
# the native testbench is Verilated with exactly these flags.
_bn_top     := $(VPI_TOP)
_bn_sources := $(VPI_SOURCES)
_bn_vflags  := $(VPI_FLAGS)
_bn_flags   := --cc --vpi --trace-fst --prefix Vmodel --top-module $(VPI_TOP) $(VPI_FLAGS)
_bn_opt     := $(or $(VPI_OPT),-O2)
_bn_config  := $(VPI_OUT)/vpi.config

# The Pareto report (issue 14) reads every width's area and timing reports
# and simulates every width's model: WIDTH=MODEL@REPORTDIR for each, named
# as the top Makefile (build/model$(WSUFFIX)) and mk/report.mk and
# mk/timing.mk (reports/ for the default width, reports/wN/ otherwise) do.
PARETO_WIDTHS ?= 8 16 32 64
_pw_default = $(filter $(1),$(WIDTH_DEFAULT))
PARETO_SPEC := $(foreach w,$(PARETO_WIDTHS),$(w)=build/model$(if $(call _pw_default,$(w)),,-w$(w))/$(VPI_LIB)@reports$(if $(call _pw_default,$(w)),,/w$(w)))

.PHONY: bench bench-native bench-history bench-services readme-services pareto pareto-inputs

## make bench        all benchmarks (line rate, Figure 15 sweep, Go vs native, Go vs Apache Thrift, build cost) with ns at WIDTH's estimated Fmax; writes reports/bench.md, reports/bench-*.svg, (as make pareto) reports/pareto.{md,svg} and (as make bench-services) reports/bench-services.md
bench: $(MODEL) $(BENCH_NATIVE) pareto-inputs bench-services
	BENCH_VPI_TOP='$(_bn_top)' BENCH_VPI_SOURCES='$(_bn_sources)' BENCH_VPI_FLAGS='$(_bn_vflags)' \
	  $(GO) run ./bench -native $(BENCH_NATIVE) -out reports -width $(WIDTH) -timing $(TIMING_OUT)/timing.json -pareto '$(PARETO_SPEC)'

## make bench-services cycles per request of each service of idl/ (its default vectors) through the header check, generic recvFunction and respFunction, unit level, at memory latency 0 and 100, WIDTH bytes a cycle; builds each service's schema-pair-model and schematx-model; writes reports/bench-services.{md,json} (reports/wN/ for WIDTH=N) and, at the default width, README.md's services table
# Cycles are deterministic: a run takes seconds once the ten models are
# built (make schema-pair-model and make schematx-model per service, about
# half a minute each from scratch, run by the command itself through
# tb/schemacase.Case.Build, under each model's lock, which go test's builds take too).
bench-services:
	$(GO) run ./bench/services -out reports$(if $(WSUFFIX),/w$(WIDTH)) -width $(WIDTH)
	$(if $(WSUFFIX),,$(MAKE) readme-services)

## make readme-services rewrite README.md's services table from reports/ (bench-services.json, schemahdr/, schema/, schematx/); go test ./bench/services checks it is current
readme-services:
	$(GO) run ./bench/services -readme

## make pareto       per width (PARETO_WIDTHS: 8 16 32 64): LUTs, FFs, estimated Fmax, GB/s and requests/s at it, beside the paper's figures: reports/pareto.{md,svg}
pareto: pareto-inputs
	$(GO) run ./bench -pareto-only -pareto '$(PARETO_SPEC)' -out reports

# One width's inputs: its model (incremental), then make report and make
# timing only when their JSON is missing, or always with PARETO_REFRESH=1
# (about a minute per width; the output goes to build/bench/pareto-wN.log).
# make timing fails below its target after writing the report: that
# failure is not one here as long as timing.json was rewritten.
define _pareto_width
	@w=$(1); d=$(2); log=$(BENCH_OUT)/pareto-w$$w.log; stamp=$(BENCH_OUT)/pareto-w$$w.stamp; fresh=; \
	mkdir -p $(BENCH_OUT); : > $$log; \
	step() { echo "pareto: width $$w: $$1 ($$(date -u +%T), log $$log)" >&2; }; \
	fail() { tail -n 30 $$log >&2; echo "pareto: width $$w: $$1 failed (log $$log)" >&2; exit 1; }; \
	step "make verilate WIDTH=$$w"; $(MAKE) --no-print-directory verilate WIDTH=$$w >>$$log 2>&1 || fail "make verilate"; \
	if [ -n "$(PARETO_REFRESH)" ] || [ ! -f $$d/yosys.json ]; then \
	  step "make report WIDTH=$$w (about a minute)"; fresh=1; \
	  $(MAKE) --no-print-directory report WIDTH=$$w >>$$log 2>&1 || fail "make report"; fi; \
	if [ -n "$$fresh" ] || [ ! -f $$d/timing.json ]; then \
	  step "make timing WIDTH=$$w"; touch $$stamp; \
	  $(MAKE) --no-print-directory timing WIDTH=$$w >>$$log 2>&1 || { [ $$d/timing.json -nt $$stamp ] && \
	    echo "pareto: width $$w: make timing's gate failed (estimated Fmax below its target); its report is used as it is" >&2; } || fail "make timing"; fi

endef

## make pareto-inputs every width's model, and its area and timing reports when missing (PARETO_REFRESH=1: rebuilt)
pareto-inputs:
	$(foreach s,$(PARETO_SPEC),$(call _pareto_width,$(firstword $(subst =, ,$(s))),$(lastword $(subst @, ,$(s)))))

## make bench-history the Go harness vs native now and at BASE (default 816e114), ROUNDS alternating rounds; writes reports/bench-history.md
bench-history: $(MODEL) $(BENCH_NATIVE)
	GO=$(GO) scripts/bench_history.sh reports/bench-history.md

## make bench-native build the native C++ testbench (build/bench/native/arcalis-native), same Verilator flags as the model, -O2
bench-native: $(BENCH_NATIVE)

# vpi.config changes with the model's settings (flags, VPI_OPT, Verilator):
# the native testbench is then rebuilt from scratch with them.
$(BENCH_NATIVE): $(_bn_sources) bench/native/tb.cpp mk/bench.mk $(_bn_config)
	@mkdir -p $(@D)
	@rm -f $(@D)/*.o
	@printf '`verilator_config\npublic_flat_rw -module "%s" -var "*"\n' '$(_bn_top)' > $(@D)/ports.vlt
	$(VERILATOR) $(_bn_flags) -Mdir $(@D) $(@D)/ports.vlt $(_bn_sources) \
	  --exe $(abspath bench/native/tb.cpp) -o arcalis-native
	$(MAKE) -C $(@D) -f Vmodel.mk --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j2) \
	  OPT_FAST='$(_bn_opt)' OPT_GLOBAL='$(_bn_opt)' arcalis-native
