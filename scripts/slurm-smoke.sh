#!/usr/bin/env bash
# make slurm-smoke: the Slurm job array and merge of docs/slurm.md, run as
# written there on a throwaway cluster on this machine (munged, slurmctld and
# NODES slurmd on 127.0.0.1), checked against the unsharded run: the merged
# --json byte for byte, the JUnit file against scripts/junit.xsd. Each
# cluster size in NODES is run with each shard count in SHARD_COUNTS; the
# cluster is torn down and its state removed on every exit. Writes REPORT.
# Needs root (apt-get, daemons). docs/slurm.md says what is checked and why.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

NODES=${NODES:-1}               # cluster sizes (slurmd daemons), e.g. "1 4"
SHARD_COUNTS=${SHARD_COUNTS:-8} # array sizes, e.g. "1 2 4 8"
CPUS=${CPUS:-2}                 # CPUs per node
ETC=${ETC:-20000}               # ETC requests added to vectors/default.vec
REPORT=${REPORT:-build/slurm-smoke.md}
KEEP=${KEEP:-0}                 # 1: keep the run directory
doc=docs/slurm.md
xsd=$root/scripts/junit.xsd
ctld_port=16817 # not Slurm's 6817/6818: a real cluster on this host is left alone
node_port=16901

say() { echo "slurm-smoke: $*" >&2; }
die() { say "FAIL: $*"; exit 1; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# snippet NAME prints the sh block between "<!-- slurm-NAME:begin -->" and
# "<!-- slurm-NAME:end -->" in docs/slurm.md, without its fence lines.
snippet() {
  awk -v b="<!-- slurm-$1:begin -->" -v e="<!-- slurm-$1:end -->" '
    $0 == b { on = 1; n++; next }
    $0 == e { on = 0; next }
    on && /^```/ { fence++; next }
    on && fence == 1 { print }
    END { if (n != 1 || fence != 2) exit 1 }' "$doc" ||
    die "$doc: no single \"<!-- slurm-$1:begin -->\" ... \"<!-- slurm-$1:end -->\" pair around one fenced block"
}
setup_block=$(snippet setup)
array_block=$(snippet array)
[ -n "$setup_block" ] && [ -n "$array_block" ] || die "$doc: a marked block is empty"

# ---- packages ----
[ "$(id -u)" = 0 ] || die "run as root: it installs packages and runs munged, slurmctld and slurmd as root"
need=()
command -v slurmctld >/dev/null || need+=(slurm-wlm)
command -v munged >/dev/null || need+=(munge)
command -v xmllint >/dev/null || need+=(libxml2-utils)
if [ ${#need[@]} -gt 0 ]; then
  say "apt-get install ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
slurm_version=$(slurmctld -V)
munge_version=$(munged -V | head -1)

# ---- the setup block, in the checkout ----
say "setup block of $doc: $setup_block"
bash -c "$setup_block" || die "the setup block of $doc failed (in $root)"

# ---- a private copy of what the jobs run ----
tmp=$(mktemp -d /tmp/arcalis-slurm.XXXXXX)
work=$tmp/work   # the array's checkout: no go.mod above it, so the model is build/model here
c=$tmp/cluster
cluster_up=""
rc_file=$tmp/rows.tsv
: >"$rc_file"

# pid_wait PIDFILE: waits up to 10 s for that process to end, then kills it.
pid_wait() {
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 0
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.2; done
  kill -TERM "$pid" 2>/dev/null || true
  sleep 1
  kill -KILL "$pid" 2>/dev/null || true
}

cluster_down() {
  [ -n "$cluster_up" ] || return 0
  local ids
  ids=$(squeue -h -o %A 2>/dev/null || true)
  [ -z "$ids" ] || scancel $ids 2>/dev/null || true
  scontrol shutdown >/dev/null 2>&1 || true
  for f in "$c"/slurmctld.pid "$c"/slurmd-*.pid "$c"/munge/munged.pid; do
    [ -e "$f" ] && pid_wait "$f"
  done
  if [ "$KEEP" = 1 ]; then mv "$c" "$c-$cluster_up"; else rm -rf "$c"; fi
  cluster_up=""
}

on_exit() {
  local rc=$?
  if [ $rc -ne 0 ]; then
    for f in "$c"/slurmctld.log "$c"/slurmd-n1.log "$work"/results/merge.log "$work"/results/1.log; do
      [ -s "$f" ] && { say "--- tail of $f"; tail -n 15 "$f" >&2; }
    done
  fi
  cluster_down
  if [ "$KEEP" = 1 ]; then say "kept $tmp"; else rm -rf "$tmp"; fi
  exit $rc
}
trap on_exit EXIT
trap 'exit 130' INT TERM

mkdir -p "$work/build/model" "$work/vectors"
cp build/arcalis "$work/build/arcalis"
cp build/model/libvmodel.so "$work/build/model/"
cp vectors/default.vec "$work/vectors/"
if [ "$ETC" -gt 0 ]; then
  "$work/build/arcalis" vectors gen -w etc -n "$ETC" --seed 1 -o "$work/vectors/etc.vec" >/dev/null
fi
unset ARCALIS_MODEL

# ---- the cluster ----
cluster_start() {
  local n=$1 i host
  host=$(hostname -s)
  if command -v ss >/dev/null && ss -ltn | awk '{ print $4 }' | grep -qE ":($ctld_port|$(seq -s '|' $node_port $((node_port + n - 1))))\$"; then
    die "a port of $ctld_port, $node_port..$((node_port + n - 1)) is in use: another slurm-smoke running?"
  fi
  mkdir -p "$c/munge" "$c/state" "$c/spool"
  chmod 700 "$c/munge"
  cluster_up=$n
  mungekey -c -k "$c/munge/munge.key"
  munged --force --socket="$c/munge/socket" --key-file="$c/munge/munge.key" \
    --pid-file="$c/munge/munged.pid" --log-file="$c/munge/munged.log" --seed-file="$c/munge/seed"
  cat >"$c/slurm.conf" <<EOF
# written by scripts/slurm-smoke.sh: $n node(s) on this host, no cgroups, no accounting
ClusterName=arcalis-smoke
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$c/munge/socket
CredType=cred/munge
StateSaveLocation=$c/state
SlurmdSpoolDir=$c/spool/%n
SlurmctldPidFile=$c/slurmctld.pid
SlurmdPidFile=$c/slurmd-%n.pid
SlurmctldLogFile=$c/slurmctld.log
SlurmdLogFile=$c/slurmd-%n.log
PlugStackConfig=$c/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
MailProg=/bin/true
NodeName=n[1-$n] NodeHostname=$host NodeAddr=127.0.0.1 Port=[$node_port-$((node_port + n - 1))] CPUs=$CPUS State=UNKNOWN
PartitionName=smoke Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  : >"$c/plugstack.conf"
  export SLURM_CONF=$c/slurm.conf
  slurmctld -f "$SLURM_CONF"
  for i in $(seq "$n"); do slurmd -f "$SLURM_CONF" -N "n$i"; done
  for _ in $(seq 120); do
    [ "$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)" = "$n" ] && return 0
    sleep 0.5
  done
  sinfo -N >&2 || true
  die "the $n node(s) did not become idle within 60 s"
}

# ctld_times JID MID: from slurmctld's log (millisecond stamps), prints the
# seconds from the array's submission to the merge's end, to the first task's
# start, the array's span, its longest and mean task, the wait from the last
# task's end to the merge's start, the merge; then the nodes used, the tasks
# (negative if one ended with another status than the unsharded run's) and
# the merge's exit status.
ctld_times() {
  awk -v jid="$1" -v mid="$2" -v want="$whole_rc" '
    function t(s) { split(substr(s, 13, 12), p, ":"); return p[1] * 3600 + p[2] * 60 + p[3] }
    function fix(x) { return x < t0 ? x + 86400 : x } # past midnight
    index($0, "_slurm_rpc_submit_batch_job: JobId=" jid " ") { t0 = t($1) }
    index($0, "sched: Allocate JobId=" jid "_") {
      split($0, a, "JobId=" jid "_"); split(a[2], b, "("); start[b[1]] = fix(t($1))
      match($0, /NodeList=[^ ]+/); nodes[substr($0, RSTART + 9, RLENGTH - 9)] = 1
    }
    index($0, "_job_complete: JobId=" jid "_") && / WEXITSTATUS / {
      split($0, a, "JobId=" jid "_"); split(a[2], b, "("); end[b[1]] = fix(t($1)); st[b[1]] = $NF
    }
    index($0, "sched: Allocate JobId=" mid " ") { mstart = fix(t($1)) }
    index($0, "_job_complete: JobId=" mid " WEXITSTATUS ") { mend = fix(t($1)); mrc = $NF }
    END {
      first = -1; last = 0; longest = 0; sum = 0; k = 0; ok = 1
      for (i in end) {
        if (!(i in start)) { ok = 0; continue }
        if (first < 0 || start[i] < first) first = start[i]
        if (end[i] > last) last = end[i]
        d = end[i] - start[i]; sum += d; k++; if (d > longest) longest = d
        if (st[i] != 0 && !(want == 1 && st[i] == 1)) ok = 0
      }
      nn = 0; for (x in nodes) nn++
      if (k == 0 || mend == "" || mstart == "") { print "x"; exit }
      printf "%.2f %.2f %.2f %.2f %.2f %.2f %.2f %d %d %s\n", mend - t0, first - t0, last - first, longest, sum / k,
        mstart - last, mend - mstart, nn, ok ? k : -k, mrc
    }' "$c/slurmctld.log"
}

negative_done=""
run_array() {
  local n=$1 s=$2 out jid mid load
  say "$n node(s), $s shard(s): the array block of $doc"
  rm -rf "$work/results"
  load=$(cut -d' ' -f1 /proc/loadavg)
  out=$(cd "$work" && SHARDS=$s bash -c "$array_block" 2>&1) || die "the array block exited non-zero: $out"
  jid=$(sed -n 's/^shards: job \([0-9]*\), merge: job \([0-9]*\)$/\1/p' <<<"$out")
  mid=$(sed -n 's/^shards: job \([0-9]*\), merge: job \([0-9]*\)$/\2/p' <<<"$out")
  [ -n "$jid" ] && [ -n "$mid" ] || die "the array block did not print its jobs: $out"
  for _ in $(seq 7200); do
    squeue -h -j "$jid,$mid" 2>/dev/null | grep -q . || break
    sleep 0.5
  done
  squeue -h -j "$jid,$mid" 2>/dev/null | grep -q . && die "jobs $jid and $mid still queued after an hour"
  sleep 0.3 # the completion lines reach slurmctld's log just after the jobs leave the queue

  # The unsharded run: the array's command without --shard, under the same
  # run id (the array job's), so that waveform names match too.
  local t0
  t0=$(now)
  set +e
  (cd "$work" && build/arcalis run --jobs 2 --json --run-id "$jid" --wave results/waves vectors/*.vec >"$tmp/whole.jsonl" 2>"$tmp/whole.log")
  whole_rc=$?
  set -e
  whole_s=$(secs "$t0" "$(now)")
  case $whole_rc in
    0 | 1) ;;
    *) tail -n 20 "$tmp/whole.log" >&2; die "the unsharded run exited $whole_rc" ;;
  esac
  nvec=$(wc -l <"$tmp/whole.jsonl")
  nbad=$(grep -c '"match":false' "$tmp/whole.jsonl" || true)
  [ "$nvec" -gt 0 ] || die "the unsharded run printed no results"

  read -r total queue span longest mean wait merge used tasks merge_rc <<<"$(ctld_times "$jid" "$mid")" ||
    die "slurmctld.log: no times for jobs $jid, $mid"
  [ "$total" != x ] || die "slurmctld.log: no allocation or completion lines for jobs $jid, $mid"
  [ "${tasks#-}" = "$s" ] || die "slurmctld.log: ${tasks#-} of $s array tasks ran"
  [ "$tasks" -gt 0 ] || die "an array task exited with another status than the unsharded run's $whole_rc (KEEP=1 keeps results/*.log)"
  [ "$merge_rc" = "$whole_rc" ] || die "the merge job exited $merge_rc, the unsharded run $whole_rc (results/merge.log is above)"

  local r=$work/results i
  for i in $(seq "$s"); do [ -s "$r/shard-$i.jsonl" ] || die "results/shard-$i.jsonl missing or empty"; done
  [ "$(cat "$r"/shard-*.jsonl | wc -l)" = "$nvec" ] || die "the shards hold $(cat "$r"/shard-*.jsonl | wc -l) results, the run has $nvec vectors"
  cmp "$r/merged.jsonl" "$tmp/whole.jsonl" >&2 || die "results/merged.jsonl differs from the unsharded --json"

  xmllint --noout --schema "$xsd" "$r/regression.xml" 2>"$tmp/xmllint.log" ||
    { cat "$tmp/xmllint.log" >&2; die "results/regression.xml does not validate against scripts/junit.xsd"; }
  local tests fails errs
  tests=$(xmllint --xpath 'string(/testsuites/@tests)' "$r/regression.xml")
  fails=$(xmllint --xpath 'string(/testsuites/@failures)' "$r/regression.xml")
  errs=$(xmllint --xpath 'string(/testsuites/@errors)' "$r/regression.xml")
  [ "$tests" = "$nvec" ] || die "results/regression.xml: testsuites tests=$tests, the run has $nvec vectors"
  [ $((fails + errs)) = "$nbad" ] || die "results/regression.xml: failures $fails + errors $errs, but $nbad vectors disagree"
  [ "$(xmllint --xpath 'count(//testcase)' "$r/regression.xml")" = "$nvec" ] || die "results/regression.xml: not one testcase per vector"
  if [ -z "$negative_done" ]; then
    # The schema must reject what a CI server could not read: a testcase without a name.
    sed '0,/<testcase name="[^"]*"/s//<testcase/' "$r/regression.xml" >"$tmp/broken.xml"
    ! cmp -s "$tmp/broken.xml" "$r/regression.xml" || die "control: no testcase name to strip"
    ! xmllint --noout --schema "$xsd" "$tmp/broken.xml" 2>/dev/null || die "scripts/junit.xsd accepts a testcase without a name"
    negative_done=1
  fi
  say "$n node(s), $s shard(s): PASS, $nvec vectors ($nbad disagree), submit to merge end ${total}s (array ${span}s, longest task ${longest}s, $used node(s) used), unsharded ${whole_s}s"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$s" "$total" "$queue" "$span" "$longest" "$mean" "$wait" "$merge" "$used" "$whole_s" "$load" >>"$rc_file"
}

# A shard's fixed cost: a one-vector shard still reads and hashes every
# vector file and starts its workers.
say "the fixed cost of a shard"
t0=$(now)
(cd "$work" && build/arcalis run --jobs 2 --json --shard 1/1000000000 --wave "" vectors/*.vec >/dev/null 2>"$tmp/fixed.log") ||
  { tail -n 5 "$tmp/fixed.log" >&2; die "the one-vector shard failed"; }
fixed_s=$(secs "$t0" "$(now)")
say "a one-vector shard: ${fixed_s}s"

for n in $NODES; do
  cluster_start "$n"
  for s in $SHARD_COUNTS; do run_array "$n" "$s"; done
  cluster_down
done

# ---- the report ----
mkdir -p "$(dirname "$REPORT")"
{
  echo "# The Slurm job array, run (make slurm-smoke)"
  echo
  echo "Generated by \`scripts/slurm-smoke.sh\` (what it runs and checks: [docs/slurm.md](../docs/slurm.md))."
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- machine: $(uname -sm), $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
  echo "- Slurm: $slurm_version (Debian $(cat /etc/debian_version 2>/dev/null || echo '?')), $munge_version"
  if head=$(git rev-parse --short HEAD 2>/dev/null); then
    git diff --quiet HEAD -- rtl cmd tb vpi golden vectors regress go.mod 2>/dev/null || head="$head with uncommitted changes to rtl/ or the Go code"
    echo "- checkout: $head"
  fi
  echo "- vectors: vectors/default.vec$([ "$ETC" -gt 0 ] && echo " and $ETC ETC requests (\`vectors gen -w etc -n $ETC --seed 1\`)"): $nvec vectors, $nbad disagree (exit status $whole_rc)"
  echo "- unsharded: \`build/arcalis run --jobs 2 --json --run-id JOBID --wave results/waves vectors/*.vec\` outside Slurm, on the same machine after each array (column *unsharded*)"
  echo "- a shard's fixed cost: \`build/arcalis run --jobs 2 --json --shard 1/1000000000\` (one vector; it still reads and hashes every vector file and starts 2 workers), outside Slurm: ${fixed_s} s"
  echo "- every run below: the merged \`--json\` equal to the unsharded one byte for byte, and \`results/regression.xml\` valid against \`scripts/junit.xsd\` with $nvec testcases"
  echo
  echo "Times in seconds, from slurmctld's log. *Total*: from the array's submission to the merge job's end;"
  echo "*to start*: submission to the first task's start; *array*: first task's start to the last one's end;"
  echo "*wait*: last task's end to the merge's start (Slurm releasing the dependency); *merge*: the merge job."
  echo "Each task asks for 2 CPUs, so a node of $CPUS CPUs runs $((CPUS / 2)) task(s) at a time."
  echo
  echo "*Load*: the machine's 1-minute load average when the array was submitted (other work shares the $(nproc) CPUs)."
  echo
  echo "| nodes x CPUs | shards | total | to start | array | longest task | mean task | wait | merge | nodes used | unsharded | unsharded / total | load |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  while IFS=$'\t' read -r n s total queue span longest mean wait merge used whole load; do
    printf '| %s x %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$n" "$CPUS" "$s" "$total" "$queue" "$span" \
      "$longest" "$mean" "$wait" "$merge" "$used" "$whole" "$(awk -v a="$whole" -v b="$total" 'BEGIN { printf "%.2f", a / b }')" "$load"
  done <"$rc_file"
} >"$REPORT"
say "PASS: wrote $REPORT"
