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

.PHONY: bench bench-native bench-history

## make bench        all benchmarks (line rate, Figure 15 sweep, Go vs native, Go vs Apache Thrift, build cost); writes reports/bench.md and reports/bench-*.svg
bench: $(MODEL) $(BENCH_NATIVE)
	BENCH_VPI_TOP='$(_bn_top)' BENCH_VPI_SOURCES='$(_bn_sources)' BENCH_VPI_FLAGS='$(_bn_vflags)' \
	  $(GO) run ./bench -native $(BENCH_NATIVE) -out reports

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
