# The distributed regression on a real Slurm cluster (issue 15): the job array
# and merge of docs/slurm.md, run as written on a throwaway cluster on this host.

SLURM_NODES  ?= 1
SLURM_SHARDS ?= 8
SLURM_ETC    ?= 20000
SLURM_REPORT ?= build/slurm-smoke.md

.PHONY: slurm-smoke slurm-scale

## make slurm-smoke  docs/slurm.md's job array + merge on a local Slurm (apt-get slurm-wlm munge; root), merged --json == unsharded, JUnit valid; SLURM_NODES, SLURM_SHARDS lists
slurm-smoke:
	NODES='$(SLURM_NODES)' SHARD_COUNTS='$(SLURM_SHARDS)' ETC='$(SLURM_ETC)' REPORT='$(SLURM_REPORT)' \
	  scripts/slurm-smoke.sh

## make slurm-scale  slurm-smoke on 1 and 4 nodes with 1, 2, 4, 8 shards and 200,000 ETC requests; writes reports/slurm.md
slurm-scale:
	$(MAKE) slurm-smoke SLURM_NODES='1 4' SLURM_SHARDS='1 2 4 8' SLURM_ETC=200000 SLURM_REPORT=reports/slurm.md
