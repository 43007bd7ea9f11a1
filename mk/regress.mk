# Reliability at scale: differential fuzzing and RTL coverage (issue 6).
# Included by the top Makefile after build/model is defined.

FUZZTIME ?= 60s
FUZZ_REPORT := reports/fuzz.md

# A second Verilated model with line and toggle coverage, built by the same
# vpi/build.mk into build/model-cov. The plain model's settings are put back
# afterwards so that mk files included after this one see them unchanged.
_rg_out   := $(VPI_OUT)
_rg_flags := $(VPI_FLAGS)
_rg_so    := $(VPI_SO)
VPI_OUT   := build/model-cov
VPI_FLAGS := --assert --coverage-line --coverage-toggle -GDataBytes=$(WIDTH)
include vpi/build.mk
COV_MODEL := $(VPI_SO)
VPI_OUT   := $(_rg_out)
VPI_FLAGS := $(_rg_flags)
VPI_SO    := $(_rg_so)

.PHONY: fuzz coverage coverage-model faults jobs-speed

## make fuzz         differential fuzzing, RTL vs reference and reference vs Apache, FUZZTIME each (default 60s; 1000000x = inputs); writes reports/fuzz.md
fuzz: $(MODEL)
	FUZZTIME=$(FUZZTIME) GO=$(GO) scripts/fuzz.sh $(FUZZ_REPORT)

## make coverage     line+toggle coverage of rtl/ over go test ./tb (build/model-cov), lcov + genhtml in build/coverage; writes reports/coverage.md
coverage: $(COV_MODEL)
	GO=$(GO) COV_MODEL=$(COV_MODEL) scripts/coverage.sh reports/coverage.md

## make coverage-model  build only the coverage model (build/model-cov/libvmodel.so)
coverage-model: $(COV_MODEL)

SEEDS ?= 20000
## make faults       fault-injection tests over SEEDS random seeds (default 20000; go test runs 400)
faults: $(MODEL)
	@mkdir -p build
	@$(GO) test -count=1 ./tb -run 'Fault|WrongStates|ResetMidRequestSeeds|LoadHeld' -fault-seeds $(SEEDS) -v > build/faults.log 2>&1; \
	  rc=$$?; grep -vE '^(=== RUN|    --- PASS)' build/faults.log | grep -vE '^\s*$$' | head -60; exit $$rc

## make jobs-speed   arcalis run --jobs 1 vs --jobs 2 side by side (ROUNDS, ETC_COUNT); writes reports/jobs.md
jobs-speed: $(MODEL)
	GO=$(GO) scripts/jobs_speed.sh reports/jobs.md
