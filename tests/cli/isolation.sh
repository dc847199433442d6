#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The isolation of `bitcts sweep` and `bitcts bench`: a plugin (tests/plugins/misbehave_plugin.c)
# that exits, crashes, hangs, stops itself, leaves a process running or writes on the harness's
# channel must give one line on stderr naming what it did and in which phase, exit code 1, a
# whole JSON file with the error, within a bounded time, and leave no process behind; a polite
# SIGTERM ends a hung run with 130 and nothing left either. A plugin that writes outside its
# buffers or into its input or lent description, is wrong in one call of several, or leaves
# elements unwritten fails the sweep's chunk and the bench's row, naming the call and the bytes.
# Only the plugins that hang get the 1 s watchdog; the bound on the wall time catches a harness
# that waits on a hung plugin, with room for a loaded machine, and no wait here is a fixed sleep
# that a slow machine could miss.
# usage: isolation.sh BITCTS PLUGIN_DIR WORKDIR
set -u
bitcts=$1
plugins=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
marker="bitcts-isolation-$$-$RANDOM"
fail=0

# Processes that carry this run's marker in their environment (only bitcts and what it started
# get it), after a grace period for the killed to be reaped (up to a minute on a loaded machine;
# it ends as soon as none is left).
marked() {
    grep -ls "BITCTS_TEST_MARKER=$marker" /proc/[0-9]*/environ 2>/dev/null | tr '\n' ' '
}
leftovers() {
    local found="" deadline=$((SECONDS + 60))
    while [ "$SECONDS" -le "$deadline" ]; do
        found=$(marked)
        [ -z "$found" ] && return 0
        sleep 0.2
    done
    echo "$found"
}

# check COMMAND PLUGIN WANT_RC PATTERN: runs the command on the plugin, checks exit code, the
# one-line error (extended regex), the wall time, the JSON file and the leftovers.
check() {
    local cmd=$1 mb=$2 want=$3 pattern=$4
    local plugin="$plugins/libbitcts_misbehave_$mb.so"
    local json="$work/$cmd-$mb.json"
    local args
    if [ "$cmd" = sweep ]; then
        args=(sweep --backend "$plugin" --op bit_not --type uint8)
    else
        args=(bench --backend "$plugin" --ops not --layouts packed --quick --reps 1 --no-peers)
    fi
    # The watchdog: 1 s for the plugins that hang (the messages name it), a minute for the
    # others, which end at once.
    local watchdog=60
    case "$mb" in sigstop_execute | loop_execute | hang_destroy) watchdog=1 ;; esac
    local start end rc
    start=$(date +%s.%N)
    env BITCTS_TEST_MARKER="$marker" timeout -k 5 120 "$bitcts" "${args[@]}" --timeout "$watchdog" \
        --json "$json" >"$work/$cmd-$mb.out" 2>"$work/$cmd-$mb.err" && rc=0 || rc=$?
    end=$(date +%s.%N)
    local wall
    wall=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }')
    local err
    err=$(cat "$work/$cmd-$mb.err")
    local problems=""
    [ "$rc" = "$want" ] || problems+=" exit code $rc, not $want;"
    if [ "$want" != 0 ]; then
        [ "$(wc -l <"$work/$cmd-$mb.err")" = 1 ] || problems+=" stderr is not one line;"
        grep -Eq -- "$pattern" <<<"$err" || problems+=" stderr does not match /$pattern/;"
    fi
    awk -v w="$wall" 'BEGIN { exit !(w < 90) }' || problems+=" took $wall s;"
    if ! python3 -c "import json, sys; d = json.load(open(sys.argv[1])); \
sys.exit(0 if (d['error'] is None) == (sys.argv[2] == '0') else 1)" "$json" "$want" 2>/dev/null; then
        problems+=" no whole JSON with the right error field;"
    fi
    local left
    left=$(leftovers)
    [ -z "$left" ] || problems+=" processes left: $left;"
    if [ -n "$problems" ]; then
        echo "FAIL $cmd $mb:$problems"
        echo "  stderr: $err"
        fail=1
    else
        echo "ok   $cmd $mb (${wall} s): ${err:-exit 0}"
    fi
}

for cmd in sweep bench; do
    check "$cmd" none 0 ""
    check "$cmd" exit_load 1 "ended the process in loading the backend.*exit status 0"
    check "$cmd" exit_create 1 "ended the process in instance_create: exit status 0"
    check "$cmd" segv_caps 1 "crashed in the capability queries: signal 11"
    check "$cmd" abort_execute 1 "crashed in operator_execute: signal 6 \\(Aborted\\)"
    check "$cmd" exit_execute 1 "ended the process in operator_execute: exit status 0"
    check "$cmd" sigstop_execute 1 "stopped its process .* in operator_execute: no progress within 1 s; killed"
    check "$cmd" loop_execute 1 "hung in operator_execute: no progress within 1 s, the process running"
    check "$cmd" fork_sleeper 1 "left 1 process of its own running \\(one was running after operator_execute\\); killed"
    check "$cmd" garbage 1 "wrote [0-9]+ lines on the harness's result channel"
    check "$cmd" hang_destroy 1 "hung in instance_destroy or plugin_shutdown: no progress within 1 s"
done

# A stream extension of the first SDKs' size (no `shaped`: the `none` plugin's) is taken, not
# refused as malformed: its rows have a copy limit.
if python3 -c "import json, sys; rows = json.load(open(sys.argv[1]))['results']; \
sys.exit(0 if rows and all(r['limit'] == 'copy' and (r['limit_gbps'] or 0) > 0 for r in rows) else 1)" \
    "$work/bench-none.json"; then
    echo "ok   bench none: its first-size stream extension gives every row a copy limit"
else
    echo "FAIL bench none: rows without a copy limit from its stream extension"
    fail=1
fi

# Wrong bits from a process that behaves: the sweep names the element (output byte 200 of each
# call; --every 64 runs 4 chunks of the 2^32 sweeps, each in 256 calls of 2^16 elements, as a
# backend without device memory gets them), the bench calls the row WRONG; exit code 1 either
# way.
wrong="$plugins/libbitcts_misbehave_wrong_byte.so"
for args in "bit_not uint8 1 200" "bit_not uint32 1024 50" "bit_xor uint16 1024 100" \
    "bit_xor uint8 1 200"; do
    set -- $args
    out=$("$bitcts" sweep --backend "$wrong" --op "$1" --type "$2" --every 64 2>&1) && rc=0 || rc=$?
    if [ "$rc" = 1 ] && grep -q " $3 mismatches (first at element $4)" <<<"$out"; then
        echo "ok   sweep wrong_byte $1 $2: $3 mismatches, the first at element $4"
    else
        echo "FAIL sweep wrong_byte $1 $2 (exit $rc): $out"
        fail=1
    fi
done
out=$("$bitcts" bench --backend "$wrong" --ops not --layouts packed --quick --reps 1 --no-peers 2>&1) \
    && rc=0 || rc=$?
if [ "$rc" = 1 ] && grep -q "WRONG" <<<"$out"; then
    echo "ok   bench wrong_byte: WRONG rows, exit 1"
else
    echo "FAIL bench wrong_byte (exit $rc): $out"
    fail=1
fi
set -- 

# lent CMD PLUGIN PATTERN [ARGS...]: the memory a backend is lent. Exit code 1 with the output
# (stdout and stderr) matching PATTERN, within the time bound, nothing left running. The sweep
# (BIT_NOT over UINT8 unless ARGS say otherwise: one chunk, so it runs twice) fails the chunk on
# stderr; the bench (BIT_NOT rows, 3 timed calls each) shows the check word and its note.
# The watchdog is 1 s (the backends that hang must be killed by it), or $watchdog_s when set: a
# backend that only spills over a 64 MiB buffer must not be taken for a hang on a loaded machine
# or under a sanitizer. How long a call took is printed, never asserted: `timeout` bounds it.
lent() {
    local cmd=$1 mb=$2 pattern=$3
    shift 3
    local plugin="$plugins/libbitcts_misbehave_$mb.so"
    local args
    if [ "$cmd" = sweep ]; then
        args=(sweep --backend "$plugin" --op bit_not "$@")
        [[ " $* " == *" --type "* ]] || args+=(--type uint8) # an option is given once
    else
        args=(bench --backend "$plugin" --ops not --layouts packed --quick --reps 3 --no-peers)
    fi
    local start end rc out wall left problems=""
    start=$(date +%s.%N)
    out=$(env BITCTS_TEST_MARKER="$marker" timeout -k 5 120 "$bitcts" "${args[@]}" \
        --timeout "${watchdog_s:-1}" 2>&1) && rc=0 || rc=$?
    end=$(date +%s.%N)
    wall=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }')
    [ "$rc" = 1 ] || problems+=" exit code $rc, not 1;"
    grep -Eq -- "$pattern" <<<"$out" || problems+=" the output does not match /$pattern/;"
    left=$(leftovers)
    [ -z "$left" ] || problems+=" processes left: $left;"
    if [ -n "$problems" ]; then
        echo "FAIL $cmd $mb${*:+ $*}:$problems"
        echo "  output: $out"
        fail=1
    else
        echo "ok   $cmd $mb${*:+ $*} (${wall} s): $(grep -Eo -- "$pattern" <<<"$out" | head -1)"
    fi
}

crash_desc="crashed in operator_create: signal 11 \(Segmentation fault\) at address 0x[0-9a-f]+: the harness's operator description \(read-only while the backend runs\)"
changed_desc="the backend changed the operator description it was lent during operator_create: Output sizes\[0\]"
lent sweep spill_after "FAILED: the chunk starting at element 0: operator_execute wrote 1 bytes past the end of the Output buffer \(bytes 256 to 256; TotalTensorSizeInBytes 256\)"
watchdog_s=60 lent sweep spill_after "FAILED: the chunk starting at element 0: the part over elements 0 to 65535: operator_execute wrote 1 bytes past the end of the Output buffer \(bytes 262144 to 262144" --type uint32 --every 64
lent sweep spill_before "FAILED: the chunk starting at element 0: operator_execute wrote 1 bytes before the Output buffer \(up to 1 bytes before its start\)"
lent sweep write_input "FAILED: the chunk starting at element 0: the backend changed the Input buffer, an input, during the chunk's calls \(operator_create, operator_execute, operator_destroy\): 1 element differs, the first at element 0"
lent sweep shrink_desc "$crash_desc"
lent sweep unprotect_desc "FAILED: the chunk starting at element 0: $changed_desc 256 -> 1"
lent sweep wrong_once "FAILED: the chunk starting at element 0: a second execution of the chunk on the same inputs wrote other output bytes than the first"
lent sweep skip_elements "256 elements, 1 mismatches \(first at element 90\)"
lent bench spill_after "GUARD: operator_execute \(timed call 1 of 3\) wrote 1 bytes past the end of the Output buffer \(bytes 1048576 to 1048576; TotalTensorSizeInBytes 1048576\)"
lent bench spill_before "GUARD: operator_execute \(timed call 1 of 3\) wrote 1 bytes before the Output buffer \(up to 1 bytes before its start\)"
lent bench write_input "INPUT: operator_execute \(timed call 1 of 3\) changed the A buffer, an input"
lent bench shrink_desc "$crash_desc"
lent bench unprotect_desc "DESC: $changed_desc 1024 -> 1"
lent bench wrong_once "WRONG: operator_execute \(timed call 2 of 3\): 1 of 1048576 output bytes differ from the expected output, the first at byte 0"
lent bench skip_elements "WRONG: operator_execute \(timed call 1 of 3\): [0-9]+ of 1048576 output bytes differ"

# SIGTERM to a run whose backend hangs: 130, and the backend's process is gone.
env BITCTS_TEST_MARKER="$marker" "$bitcts" sweep --backend "$plugins/libbitcts_misbehave_loop_execute.so" \
    --op bit_not --type uint8 --timeout 60 >"$work/term.out" 2>"$work/term.err" &
pid=$!
# SIGTERM once the backend's process runs (bitcts and its worker carry the marker), not after
# a fixed sleep that a loaded machine might not give bitcts time to start in.
deadline=$((SECONDS + 60))
while [ "$(wc -w <<<"$(marked)")" -lt 2 ] && [ "$SECONDS" -le "$deadline" ]; do
    sleep 0.1
done
sleep 0.5
kill -TERM "$pid"
wait "$pid" && rc=0 || rc=$?
left=$(leftovers)
if [ "$rc" != 130 ] || [ -n "$left" ]; then
    echo "FAIL sweep SIGTERM: exit code $rc (want 130), left: ${left:-nothing}; $(cat "$work/term.err")"
    fail=1
else
    echo "ok   sweep SIGTERM: $(cat "$work/term.err")"
fi
exit $fail
