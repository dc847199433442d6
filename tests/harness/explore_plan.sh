#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bitcts explore against the plan (docs/explore.md); explore.sh finds and shrinks:
#  * broken_permuted_padded (a bug that needs a tensor both permuted and padded) passes the whole
#    default tier: the plan does not see the bug that explore.sh finds;
#  * explored cases are the same bytes on every run (same ids, same output digests) with any
#    number of jobs, and the correct CPU backend passes them (no false alarm).
# The --seconds run asserts no count of cases, only that what it reached passes.
# usage: explore_plan.sh BITCTS WORKDIR name=plugin...
set -euo pipefail
bitcts=$1
work=$2
shift 2
. "$(cd "$(dirname "$0")" && pwd)/harness_lib.sh"
harness_start "$work" "$@"
pp=${plugin[broken_permuted_padded]}

# 1. The plan does not see the bug.
"$bitcts" run --backend "$pp" --tier default --jobs 2 --report plan --quiet >plan.log 2>&1 ||
    fail "broken_permuted_padded fails the default tier: $(tail -n 3 plan.log)"
echo "broken_permuted_padded passes the default tier ($(grep -o '[0-9]* cases in [0-9.]* s' plan.log))"

# 2. Same bytes every time; the correct backend passes.
"$bitcts" explore --backend cpu --cases 300 --first 1000 --jobs 2 --report cpu1 --quiet >cpu1.log 2>&1 ||
    fail "explore on the CPU backend: a false alarm: $(grep -E 'fail|crash|timeout' cpu1.log | head -n 5)"
"$bitcts" explore --backend cpu --cases 300 --first 1000 --jobs 1 --report cpu2 --quiet >cpu2.log 2>&1 ||
    fail "explore on the CPU backend (jobs 1) failed"
python3 - <<'PY' || fail "two explores of the same cases differ"
import json
a, b = (json.load(open(p + "/report.json"))["cases"] for p in ("cpu1", "cpu2"))
ka = [(c["id"], c["verdict"], c["output_xxh3_128"]) for c in a]
kb = [(c["id"], c["verdict"], c["output_xxh3_128"]) for c in b]
assert ka == kb, "first difference: %s" % next((x, y) for x, y in zip(ka, kb) if x != y)
assert len(ka) == 300
print("explore.1000 .. explore.1299: identical ids, verdicts and digests with --jobs 2 and 1")
PY
"$bitcts" explore --backend cpu --seconds 2 --jobs 2 --report cpu3 --quiet >cpu3.log 2>&1 ||
    fail "2 s of explore on the CPU backend: a false alarm: $(tail -n 5 cpu3.log)"
echo "2 s of explore on the CPU backend: $(grep -o '[0-9]* cases in [0-9.]* s' cpu3.log), no failure"

echo "explore against the plan: every check passed"
