#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CuPy and JAX adapters (adapters/run_cupy.py, run_jax.py) over the smoke tier with NumPy
# stand-ins for the frameworks (tests/check/fakes): their strided views, element layout, time
# limit and result files must give `bitcts check` nothing to fail. Skipped (77) without NumPy.
# usage: adapters_fake.sh BITCTS PYTHON ADAPTERS_DIR WORK_DIR
set -u
bitcts=$1 python=$2 adapters=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
"$python" -c 'import numpy' 2>/dev/null || { echo "NumPy is absent; skipped"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
"$bitcts" vectors export --out "$work/export" --tier smoke || exit 1
status=0
for fw in cupy jax; do
    PYTHONPATH="$here/fakes" PYTHONDONTWRITEBYTECODE=1 "$python" "$adapters/run_$fw.py" \
        "$work/export" --results "$work/$fw" || { echo "FAIL: run_$fw.py"; status=1; continue; }
    "$bitcts" check "$work/export" --results "$work/$fw" --report "$work/$fw-report" --quiet
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL: bitcts check of $fw exited $rc"
        status=1
    fi
    grep -q '"name": "'"$fw"'"' "$work/$fw-report/report.json" || { echo "FAIL: $fw not named"; status=1; }
done
# The time limit: every case not started in time is not_supported, the run still checks.
PYTHONPATH="$here/fakes" PYTHONDONTWRITEBYTECODE=1 "$python" "$adapters/run_cupy.py" \
    "$work/export" --results "$work/limited" --time-limit 0.000001 || status=1
"$bitcts" check "$work/export" --results "$work/limited" --report "$work/limited-report" --quiet ||
    status=1
grep -q "time limit" "$work/limited-report/report.json" || { echo "FAIL: time limit"; status=1; }
[ $status -eq 0 ] && echo "adapters_fake: all passed"
exit $status
