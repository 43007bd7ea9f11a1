# Static timing estimate of the synthesized netlist (issue 14, docs/timing.md).
# Included after mk/report.mk, whose work dir holds the netlist.

TIMING_FREQ ?= 280
# The netlist is make report's (its work dir), the report goes to reports/
# for the default width and reports/wN/ for WIDTH=N. When report.mk names
# its work dir per width (build/report$(WSUFFIX)), this follows unchanged.
TIMING_WORK ?= $(REPORT_WORK)
TIMING_OUT  ?= reports$(if $(WSUFFIX),/w$(WIDTH))
TIMING_NETLIST := $(TIMING_WORK)/netlist.json

.PHONY: timing timing-check-width

# The netlist is built by mk/report.mk's rule for $(REPORT_WORK)/netlist.json
# (synthesis at DataBytes=$(WIDTH) and the flip-flop check, no activity run).

# A non-default width needs a netlist of that width: refuse to time the
# default width's netlist under another width's name.
timing-check-width:
	@case "$(TIMING_WORK)" in *$(WSUFFIX)) ;; *) echo "make timing WIDTH=$(WIDTH): the netlist dir $(TIMING_WORK) is not per width (mk/report.mk's REPORT_WORK); refusing to time the default width's netlist as width $(WIDTH)" >&2; exit 2;; esac

## make timing       static timing ESTIMATE of the synthesized netlist at TIMING_FREQ (280) MHz: reports[/wN]/timing.{md,json}; fails below the target or on any input->output path
## make timing SERVICE=S  the same for service S's header check, generic recvFunction, the two in schema_rx, and respFunction (their make report SERVICE=S netlists): reports/schema{hdr,,-rx,tx}/S/timing.{md,json}; fails as make timing does
ifeq ($(SERVICE),)
timing: timing-check-width $(TIMING_NETLIST)
	$(GO) run ./cmd/arcalis report timing --freq $(TIMING_FREQ) --netlist $(TIMING_NETLIST) --out $(TIMING_OUT)
else
timing: $(SCHEMAHDR_NETLIST) $(SCHEMA_NETLIST) $(SCHEMARXSEQ_NETLIST) $(SCHEMATX_NETLIST)
	a=0; for u in $(SCHEMAHDR_WORK)=$(SCHEMAHDR_REP) $(SCHEMA_WORK)=$(SCHEMA_REP) $(SCHEMARXSEQ_WORK)=$(SCHEMARXSEQ_REP) $(SCHEMATX_WORK)=$(SCHEMATX_REP); do \
	  $(GO) run ./cmd/arcalis report timing --freq $(TIMING_FREQ) --netlist $${u%%=*}/netlist.json --out $${u#*=} || a=1; \
	done; exit $$a
endif
