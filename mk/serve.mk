# arcalis serve under load (issue 16 item 5): a bounded ETC-like load over
# loopback against the server on the simulated RTL and, in the same run,
# against Apache Thrift's own Go server. Included by the top Makefile.

SERVE_CONNS    ?= 8
SERVE_REQUESTS ?= 5000

.PHONY: serve-load

## make serve-load   SERVE_CONNS (8) x SERVE_REQUESTS (5000) ETC requests over loopback against arcalis serve and Apache's TSimpleServer; writes reports/serve.md
serve-load: $(MODEL)
	$(GO) run ./serve/load -conns $(SERVE_CONNS) -requests $(SERVE_REQUESTS) -model $(abspath $(MODEL)) -out reports/serve.md
