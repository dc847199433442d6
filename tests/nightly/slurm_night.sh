#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A night on a real Slurm (issue 23, point 7): this test starts munged, slurmctld and slurmd on
# this one machine (a one-node cluster whose key, config, state, spool, logs and pid files all
# live in OUT) and runs the night of docs/ci/slurm-nightly.sbatch: its array job (sbatch --wait
# --array=0-3; each task runs tools/nightly.py shard --auto), then its publish step (nightly.py
# publish of the four shards). The merged report must equal a one-host bitcts run of the same
# selection: the same case ids in the same order, the same verdicts and output digests. Every
# daemon it started is stopped by its PID, also on failure. Needs root and Slurm (tools/setup.sh
# --with-slurm): without them it skips (77), except under CI=true, where a missing prerequisite
# fails.
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
for c in munged munge unmunge slurmctld slurmd sbatch sinfo squeue scancel runuser; do
    command -v "$c" >/dev/null 2>&1 || missing "no $c (tools/setup.sh --with-slurm)"
done
id munge >/dev/null 2>&1 || missing "no munge user (tools/setup.sh --with-slurm)"

# A Slurm job or CI engine around this test must not hand out its own shard to the night.
for v in $(compgen -e | grep -E '^(SLURM_|SBATCH_|SQUEUE_|SINFO_)'); do
    unset "$v"
done
unset JOB_COMPLETION_INDEX CI_NODE_INDEX CI_NODE_TOTAL TEST_SHARD_INDEX TEST_TOTAL_SHARDS \
    TEST_SHARD_STATUS_FILE BITCTS_SHARD_COUNT

made_run_munge=0
jobid=""

print_logs() {
    for f in "$out"/munge/munged.log "$out"/log/slurmctld.log "$out"/log/slurmd.log \
        "$out"/job-*.out "$out"/publish.log "$out"/results/*/*/*.json; do
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

stop_daemons() { # the daemons of this test's folder, node first
    stop_daemon "$out/slurmd.pid" slurmd
    stop_daemon "$out/slurmctld.pid" slurmctld
    stop_daemon "$out/munge/munged.pid" munged
}

cleanup() {
    if [ -n "$jobid" ] && [ -f "$out/slurmctld.pid" ]; then
        scancel "$jobid" >/dev/null 2>&1
        for _ in $(seq 100); do # its tasks end before the daemons do
            [ -z "$(squeue -h -j "$jobid" 2>/dev/null)" ] && break
            sleep 0.1
        done
    fi
    stop_daemons
    [ $made_run_munge = 0 ] || rmdir /run/munge 2>/dev/null
}

# An earlier run killed outright (no trap) left its daemons: stop them by their PID files.
[ ! -d "$out" ] || stop_daemons
rm -rf "$out"
mkdir -p "$out"/munge "$out"/state "$out"/spool "$out"/log "$out"/results
chmod 755 "$out"
out=$(cd "$out" && pwd)
export SLURM_CONF=$out/slurm.conf
trap cleanup EXIT
trap 'exit 1' TERM INT HUP # a timeout's TERM still stops the daemons

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
# The night is docs/ci/slurm-nightly.sbatch itself: its array tasks, then its publish step.
example=$source_dir/docs/ci/slurm-nightly.sbatch
export NIGHT=slurm-night BITCTS_HOME=$source_dir BITCTS_SHARED=$out BITCTS_EXE=$bitcts \
    BITCTS_NIGHTLY_CONFIG=$out/night.conf
submit() { # submit LOG sbatch-options...: one sbatch --wait of the example, bounded
    local log=$1
    shift
    timeout "$job_s" sbatch --wait --cpus-per-task=1 --chdir="$out" "$@" "$example" >"$log" 2>&1
    rc=$?
    jobid=$(grep -oE 'Submitted batch job [0-9]+' "$log" | grep -oE '[0-9]+$')
    cat "$log"
    [ $rc != 124 ] || fail "job $jobid did not end within $job_s s"
    jobid=""
}
start=$(date +%s%N)
submit "$out"/sbatch.out --array=0-3 --output="$out/job-%a.out"
end=$(date +%s%N)
[ $rc = 0 ] || fail "sbatch --wait --array=0-3 exited $rc (a task of the array failed)"
echo "slurm: array job of 4 tasks ran in $(((end - start) / 1000000)) ms (sbatch --wait)"
"$python" - "$out"/log/slurmctld.log <<'EOF' # sbatch --wait polls; the controller's log is exact
import datetime, re, sys
log = open(sys.argv[1]).read()
t = [datetime.datetime.fromisoformat(m.group(1)) for m in
     re.finditer(r"(?m)^\[([0-9T:.-]+)\] (?:sched: Allocate|_job_complete: .* done)", log)]
if t:
    span = (max(t) - min(t)).total_seconds()
    print(f"slurm: first task allocated to last task done: {span:.1f} s")
EOF
"$python" - "$out"/results/slurm-night <<'EOF' || fail "the array tasks did not run the 4 shards"
import json, os, sys
root = sys.argv[1]
got = []
for task in sorted(os.listdir(root)):
    for d in sorted(os.listdir(os.path.join(root, task, "cpu-scalar"))):
        if not d.endswith(".log"):
            with open(os.path.join(root, task, "cpu-scalar", d, "report.json")) as f:
                got.append((task, d, json.load(f)["selection"]["shard"]))
want = [(f"task-{t}", f"shard-{t + 1}-of-4", f"{t + 1}/4") for t in range(4)]
assert got == want, f"the tasks ran {got}"
print("slurm: tasks 0..3 ran shards 1/4..4/4")
EOF

submit "$out"/sbatch-publish.out --output="$out/publish.log"
cat "$out"/publish.log
[ $rc = 0 ] || fail "the publish step exited $rc (0: a green night)"
[ ! -e "$out"/results/slurm-night ] || fail "the publish step left the shards' folders"

"$bitcts" run --backend cpu:scalar --tier default --filter "$filter" --jobs 1 --quiet --force \
    --report "$out"/one-host >"$out"/one-host.log 2>&1 ||
    fail "the one-host bitcts run failed: $(tail -n 1 "$out"/one-host.log)"

"$python" - "$out" <<'EOF' || fail "the Slurm night is not the one-host run"
import json, os, sys
out = sys.argv[1]
def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)
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
