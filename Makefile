# Arcalís co-verification harness. `make help` lists the targets.

RTL_PKG  := rtl/arcalis_pkg.sv
RTL      := $(RTL_PKG) $(filter-out $(RTL_PKG),$(sort $(wildcard rtl/*.sv)))
RTL_TOP  := arcalis_top
GO       ?= go
VECTORS  ?= vectors/default.vec

VPI_TOP     := $(RTL_TOP)
VPI_SOURCES := $(RTL)
VPI_OUT     := build/model
VPI_FLAGS   := --assert
include vpi/build.mk
MODEL := $(VPI_SO)

.DEFAULT_GOAL := help
.PHONY: help verilate lint test run vectors thrift-gen clean

help:
	@echo "make verilate   build the Verilated model and VPI shim ($(MODEL)); incremental"
	@echo "make lint       verilator --lint-only -Wall on rtl/"
	@echo "make test       make verilate && go test ./..."
	@echo "make run        arcalis run on $(VECTORS)"
	@echo "make vectors    regenerate vectors/default.vec"
	@echo "make thrift-gen regenerate internal/memcached from the schema (thrift 0.17.0)"

verilate: $(MODEL)

lint:
	verilator --lint-only -Wall --top-module $(RTL_TOP) $(RTL)

test: verilate
	$(GO) test ./...

run: verilate
	$(GO) run ./cmd/arcalis run $(VECTORS)

vectors:
	$(GO) run ./vectors/defaultset

thrift-gen:
	thrift --gen go:package_prefix=arcalis/internal/,skip_remote -out internal ../shared/spec/memcached.thrift
	gofmt -w internal/memcached

clean:
	rm -rf build
