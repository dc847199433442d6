#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A night on a real Slurm (issue 23, point 7): this test starts munged, slurmctld and slurmd on
# this one machine (a one-node cluster whose key, config, state, spool, logs and pid files all
# live in OUT), runs the night as an array job (sbatch --wait --array=0-3 of tools/nightly.py
# shard --auto), publishes the four shards with tools/nightly.py publish and requires the merged
# report to equal a one-host bitcts run of the same selection: the same case ids in the same
# order, the same verdicts and output digests. Every daemon it started is stopped by its PID,
# also on failure. Needs root and Slurm (tools/setup.sh --with-slurm): without them it skips
# (77), except under CI=true, where a missing prerequisite fails.
# Usage: slurm_night.sh BITCTS PYTHON SOURCE_DIR OUT
set -u
bitcts=$1
python=$2
source_dir=$3
out=$4
filter='*.uint8.r[12].*' # 496 cases of the default tier, every operator
wait_s=${BITCTS_SLURM_WAIT_S:-60}
job_s=${BITCTS_SLURM_JOB_S:-300}

missing() { # missing TEXT: skip, or fail under CI
    if [ "${CI:-}" = true ]; then
        echo "FAIL: $1 (CI=true: a missing prerequisite is a failure, not a skip)"
        exit 1
    fi
    echo "skip: $1"
    exit 77
}
[ "$(id -u)" = 0 ] || missing "not root (the test starts munged, slurmctld and slurmd)"
for c in munged munge slurmctld slurmd sbatch sinfo scancel; do
    command -v "$c" >/dev/null 2>&1 || missing "no $c (tools/setup.sh --with-slurm)"
done
id munge >/dev/null 2>&1 || missing "no munge user (tools/setup.sh --with-slurm)"

# A Slurm job or CI engine around this test must not hand out its own shard to the night.
for v in $(compgen -e | grep -E '^(SLURM_|SBATCH_|SQUEUE_|SINFO_)'); do
    unset "$v"
done
unset JOB_COMPLETION_INDEX CI_NODE_INDEX CI_NODE_TOTAL TEST_SHARD_INDEX TEST_TOTAL_SHARDS \
    TEST_SHARD_STATUS_FILE BITCTS_SHARD_COUNT

rm -rf "$out"
mkdir -p "$out"/munge "$out"/state "$out"/spool "$out"/log "$out"/results
chmod 755 "$out"
out=$(cd "$out" && pwd)
export SLURM_CONF=$out/slurm.conf
made_run_munge=0
jobid=""

print_logs() {
    for f in "$out"/munge/munged.log "$out"/log/slurmctld.log "$out"/log/slurmd.log \
        "$out"/job-*.out "$out"/publish.log; do
        [ -f "$f" ] || continue
        echo "---- $f (last 40 lines)"
        tail -n 40 "$f"
    done
}

stop_daemon() { # stop_daemon PIDFILE NAME: TERM, up to 15 s, then KILL; only that PID, only NAME
    local pid
    pid=$(cat "$1" 2>/dev/null) || return 0
    [[ "$pid" =~ ^[0-9]+$ ]] || return 0
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ] || return 0
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 150); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    echo "note: $2 ($pid) ignored TERM for 15 s; killed"
    kill -KILL "$pid" 2>/dev/null
}

cleanup() {
    if [ -n "$jobid" ] && [ -f "$out/slurmctld.pid" ]; then
        scancel "$jobid" >/dev/null 2>&1
    fi
    stop_daemon "$out/slurmd.pid" slurmd
    stop_daemon "$out/slurmctld.pid" slurmctld
    stop_daemon "$out/munge/munged.pid" munged
    [ $made_run_munge = 0 ] || rmdir /run/munge 2>/dev/null
}
trap cleanup EXIT

fail() {
    echo "FAIL: $1"
    print_logs
    exit 1
}

# munge: its own key (0400, owned by munge), socket, pid, seed and log in OUT; /run/munge exists,
# owned by munge, as the packages' clients expect.
if [ ! -d /run/munge ]; then
    mkdir -p /run/munge && made_run_munge=1
fi
chown munge:munge /run/munge || fail "cannot give /run/munge to munge"
chown munge:munge "$out"/munge
chmod 755 "$out"/munge # munged wants its socket's folder open to all for execute
dd if=/dev/urandom of="$out"/munge/munge.key bs=1024 count=1 status=none
chown munge:munge "$out"/munge/munge.key
chmod 0400 "$out"/munge/munge.key
socket=$out/munge/munge.socket
runuser -u munge -- munged --socket="$socket" --key-file="$out"/munge/munge.key \
    --pid-file="$out"/munge/munged.pid --log-file="$out"/munge/munged.log \
    --seed-file="$out"/munge/munged.seed || fail "munged did not start"
munge -S "$socket" -n | unmunge -S "$socket" >/dev/null || fail "munge cannot encode and decode"

# Two free ports of this host, so that a system Slurm (6817/6818) is left alone.
read -r ctld_port node_port < <("$python" - <<'EOF'
import socket
a, b = socket.socket(), socket.socket()
a.bind(("127.0.0.1", 0))
b.bind(("127.0.0.1", 0))
print(a.getsockname()[1], b.getsockname()[1])
EOF
)
node=$(hostname -s)
cpus=$(nproc)
cat >"$SLURM_CONF" <<EOF
# One-node cluster of tests/nightly/slurm_night.sh; everything it writes is under $out.
ClusterName=bitctsnight
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$node_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
StateSaveLocation=$out/state
SlurmdSpoolDir=$out/spool
SlurmctldPidFile=$out/slurmctld.pid
SlurmdPidFile=$out/slurmd.pid
SlurmctldLogFile=$out/log/slurmctld.log
SlurmdLogFile=$out/log/slurmd.log
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=night Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start"
state=""
for _ in $(seq $((wait_s * 2))); do
    state=$(sinfo -h -n "$node" -o %t 2>/dev/null)
    [ "$state" = idle ] && break
    sleep 0.5
done
[ "$state" = idle ] || fail "node $node not idle after $wait_s s (sinfo says '${state:-nothing}')"
echo "slurm: node $node ($cpus CPUs) idle; ports $ctld_port/$node_port"

cat >"$out"/night.conf <<EOF
[nightly]
title = bitcts nightly on Slurm
tier = default
filter = $filter
repeat = 1
jobs = 1
cpu_variants = scalar
vulkan = no
EOF
cat >"$out"/night.sbatch <<EOF
#!/bin/bash
#SBATCH --job-name=bitcts-night
#SBATCH --cpus-per-task=1
#SBATCH --output=$out/job-%a.out
exec "$python" "$source_dir/tools/nightly.py" shard --config "$out/night.conf" \\
    --bitcts "$bitcts" --auto --out "$out/results/task-\$SLURM_ARRAY_TASK_ID"
EOF
start=$(date +%s%N)
timeout "$job_s" sbatch --wait --array=0-3 --chdir="$out" "$out"/night.sbatch >"$out"/sbatch.out 2>&1
rc=$?
end=$(date +%s%N)
jobid=$(grep -oE 'Submitted batch job [0-9]+' "$out"/sbatch.out | grep -oE '[0-9]+$')
cat "$out"/sbatch.out
[ $rc != 124 ] || fail "the array job did not end within $job_s s"
[ $rc = 0 ] || fail "sbatch --wait exited $rc (a task of the array failed)"
jobid=""
echo "slurm: array job of 4 tasks ran in $(((end - start) / 1000000)) ms (sbatch --wait)"

"$python" "$source_dir"/tools/nightly.py publish --config "$out"/night.conf --bitcts "$bitcts" \
    --site "$out"/site --night slurm-night --no-verify --results "$out"/results/task-* \
    >"$out"/publish.log 2>&1
rc=$?
cat "$out"/publish.log
[ $rc = 0 ] || fail "nightly.py publish exited $rc (0: a green night)"

"$bitcts" run --backend cpu:scalar --tier default --filter "$filter" --jobs 1 --quiet --force \
    --report "$out"/one-host >"$out"/one-host.log 2>&1 ||
    fail "the one-host bitcts run failed: $(tail -n 1 "$out"/one-host.log)"

"$python" - "$out" <<'EOF' || fail "the Slurm night is not the one-host run"
import json, os, sys
out = sys.argv[1]
def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)
shards = sorted(load(os.path.join(out, "results", t, "cpu-scalar", s, "report.json"))
                ["selection"]["shard"]
                for t in os.listdir(os.path.join(out, "results"))
                for s in os.listdir(os.path.join(out, "results", t, "cpu-scalar"))
                if s.startswith("shard-") and not s.endswith(".log"))
assert shards == ["1/4", "2/4", "3/4", "4/4"], f"the tasks ran shards {shards}"
night = os.path.join(out, "site", "nights", "slurm-night")
merged = load(os.path.join(night, "cpu-scalar", "report.json"))
one = load(os.path.join(out, "one-host", "report.json"))
key = lambda r: [(c["id"], c["verdict"], c["output_xxh3_128"]) for c in r["cases"]]
a, b = key(merged), key(one)
assert len(a) == len(b) == one["selection"]["cases"], f"{len(a)} merged, {len(b)} one-host cases"
diff = [(x, y) for x, y in zip(a, b) if x != y]
assert not diff, f"{len(diff)} cases differ, first: {diff[0]}"
assert merged["selection"]["shard"] == "", "the merged report still claims a shard"
history = load(os.path.join(out, "site", "history.json"))
assert [n["id"] for n in history["nights"]] == ["slurm-night"], "history has not the night"
assert history["nights"][0]["status"] == "green", history["nights"][0]["status"]
for page in ("index.html", "junit.xml", "summary.md"):
    assert os.path.isfile(os.path.join(out, "site", page)), f"the site has no {page}"
    assert os.path.isfile(os.path.join(night, page)), f"the night has no {page}"
print(f"equal: {len(a)} cases, ids in order, verdicts and digests "
      f"({sum(1 for c in a if c[2])} digests) of the merged Slurm night and the one-host run")
EOF
echo "PASS: a night of 4 Slurm array tasks, merged and published, equals the one-host run"
