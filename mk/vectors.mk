# The vector toolchain (issue 3): captures, their comparison with Wireshark,
# and generated workload sets run through the RTL. Included by the top Makefile.

GEN_DIR   ?= build/vectors
GEN_COUNT ?= 10000
GEN_SEED  ?= 1

.PHONY: captures captures-check captures-compare vectors-gen vectors-run

## make captures          re-record vectors/captures/ (real Thrift server/client on loopback, tcpdump + dumpcap; root)
captures:
	scripts/capture.sh vectors/captures

## make captures-check    record afresh into build/captures and check from-pcap recovers every logged call (root)
captures-check:
	scripts/capture.sh build/captures
	ARCALIS_CAPTURES=$(CURDIR)/build/captures $(GO) test -count=1 -run TestCommittedCaptures ./vectors/pcap

## make captures-compare  from-pcap vs Wireshark's Thrift dissector (tshark -2) on the committed captures
captures-compare:
	vectors/capture/tshark-compare.sh

## make vectors-gen       workload sets into build/vectors (GEN_COUNT requests each, GEN_SEED) and the captures' messages
vectors-gen:
	@mkdir -p $(GEN_DIR)
	$(GO) run ./cmd/arcalis vectors gen -w memc-tiny  -n $(GEN_COUNT) --seed $(GEN_SEED) --set-ratio 5/95  -o $(GEN_DIR)/memc-tiny-5-95.vec
	$(GO) run ./cmd/arcalis vectors gen -w memc-tiny  -n $(GEN_COUNT) --seed $(GEN_SEED) --set-ratio 50/50 -o $(GEN_DIR)/memc-tiny-50-50.vec
	$(GO) run ./cmd/arcalis vectors gen -w memc-small -n $(GEN_COUNT) --seed $(GEN_SEED) --set-ratio 5/95  -o $(GEN_DIR)/memc-small-5-95.vec
	$(GO) run ./cmd/arcalis vectors gen -w memc-small -n $(GEN_COUNT) --seed $(GEN_SEED) --set-ratio 50/50 -o $(GEN_DIR)/memc-small-50-50.vec
	$(GO) run ./cmd/arcalis vectors gen -w etc -n $(GEN_COUNT) --seed $(GEN_SEED) --set-ratio low  -o $(GEN_DIR)/etc-low.vec
	$(GO) run ./cmd/arcalis vectors gen -w etc -n $(GEN_COUNT) --seed $(GEN_SEED) --set-ratio mid  -o $(GEN_DIR)/etc-mid.vec
	$(GO) run ./cmd/arcalis vectors gen -w etc -n $(GEN_COUNT) --seed $(GEN_SEED) --set-ratio high -o $(GEN_DIR)/etc-high.vec
	$(GO) run ./cmd/arcalis vectors gen -w memc-small -n 10 --seed $(GEN_SEED) --sweep -o $(GEN_DIR)/sweep.vec
	$(GO) run ./cmd/arcalis vectors from-pcap --replies vectors/captures/framed.pcap vectors/captures/buffered.pcapng -o $(GEN_DIR)/captures.vec

## make vectors-run       make vectors-gen, then arcalis run on every set (RTL vs reference)
vectors-run: vectors-gen $(MODEL)
	$(GO) run ./cmd/arcalis run $(GEN_DIR)/*.vec
