# Arcalís co-verification harness. `make help` lists the targets.

RTL_PKG  := rtl/arcalis_pkg.sv
RTL      := $(RTL_PKG) $(filter-out $(RTL_PKG),$(sort $(wildcard rtl/*.sv)))
RTL_TOP  := arcalis_top
GO       ?= go
VECTORS  ?= vectors/default.vec

# Datapath bytes per cycle (arcalis_top's DataBytes: 8, 16, 32 or 64). The
# default width builds into build/model; another into build/model-wN, and
# every target below (run, test, report, timing, gatesim, bench) follows it.
WIDTH_DEFAULT := 16
WIDTH         ?= $(WIDTH_DEFAULT)
ifeq ($(filter $(WIDTH),8 16 32 64),)
$(error WIDTH=$(WIDTH): the datapath width must be 8, 16, 32 or 64 bytes per cycle)
endif
WSUFFIX   := $(if $(filter $(WIDTH),$(WIDTH_DEFAULT)),,-w$(WIDTH))
MODEL_DIR := build/model$(WSUFFIX)

VPI_TOP     := $(RTL_TOP)
VPI_SOURCES := $(RTL)
VPI_OUT     := $(MODEL_DIR)
VPI_FLAGS   := --assert -GDataBytes=$(WIDTH)
include vpi/build.mk
MODEL := $(VPI_SO)
# The harness finds a model other than build/model through ARCALIS_MODEL.
export ARCALIS_MODEL := $(if $(WSUFFIX),$(abspath $(MODEL)),$(ARCALIS_MODEL))

.DEFAULT_GOAL := help
.PHONY: help verilate lint test run vectors thrift-gen abi-sv clean

# Each target's line in `make help` is the "## " comment above it; targets of
# the reports, benchmarks and regressions live in mk/*.mk.
help:
	@grep -h '^## ' $(MAKEFILE_LIST) | sed 's/^## /  /'

## make verilate    build the Verilated model and VPI shim (build/model/libvmodel.so; WIDTH=N: build/model-wN); incremental
verilate: $(MODEL)

## make lint        verilator --lint-only -Wall on rtl/: the engine, and rtl/generic/'s units and schema_pair with each service's package
lint:
	verilator --lint-only -Wall --top-module $(RTL_TOP) $(RTL)
	for e in $(IDL_SERVICES); do \
	  $(MAKE) --no-print-directory schema-lint schemahdr-lint schematx-lint schema-pair-lint SERVICE=$${e%%=*} || exit 1; \
	done

## make test        make verilate && go test ./...
test: verilate
	$(GO) test ./...

## make run         arcalis run on vectors/default.vec
run: verilate
	$(GO) run ./cmd/arcalis run $(VECTORS)

# The services of idl/: each file's stem and the service it declares.
IDL_SERVICES := memcached=MemcachedService unique_id=UniqueIdService url_shorten=UrlShortenService \
                post_storage=PostStorageService user_timeline=UserTimelineService

## make vectors     regenerate vectors/default.vec and each DeathStarBench service's vectors/default-SERVICE.vec
vectors:
	$(GO) run ./vectors/defaultset -o vectors/default.vec
	for sv in $(filter-out memcached=%,$(IDL_SERVICES)); do $(GO) run ./cmd/arcalis vectors gen --service $${sv#*=} --count 64 --seed 1 -o vectors/default-$${sv%%=*}.vec || exit 1; done

## make abi-sv      rewrite rtl/arcalis_pkg.sv's generated block from the Go ABI (go test ./internal/abisv checks it)
abi-sv:
	$(GO) test ./internal/abisv -run TestPkgCurrent -update

## make thrift-gen  regenerate Apache Thrift's Go code in internal/ from every service IDL in idl/ (thrift 0.17.0)
THRIFT_IDL := $(foreach e,$(IDL_SERVICES),$(word 1,$(subst =, ,$(e))))
thrift-gen:
	for f in $(THRIFT_IDL); do thrift -r --gen go:package_prefix=arcalis/internal/,skip_remote -out internal idl/$$f.thrift || exit 1; done
	gofmt -w $(addprefix internal/,$(THRIFT_IDL) social_network)

clean:
	rm -rf build

-include mk/*.mk
