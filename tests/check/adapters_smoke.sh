#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CuPy, JAX and ONNX Runtime adapters (adapters/run_*.py) over the smoke tier with NumPy
# stand-ins for the frameworks (tests/check/fakes): their strided views, element layout, model
# encoding, time limit and result files must give `bitcts check` nothing to fail; and the
# PyTorch adapter with the real PyTorch where this Python has it (its CPU device).
# Skipped (77) without NumPy.
# usage: adapters_smoke.sh BITCTS PYTHON ADAPTERS_DIR WORK_DIR
set -u
bitcts=$1 python=$2 adapters=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
"$python" -c 'import numpy' 2>/dev/null || { echo "NumPy is absent; skipped"; exit 77; }
rm -rf "$work" && mkdir -p "$work"
"$bitcts" vectors export --out "$work/export" --tier smoke || exit 1
status=0
frameworks="cupy jax onnxruntime"
if "$python" -c 'import torch' 2>/dev/null; then
    frameworks="$frameworks torch"
else
    echo "PyTorch is absent: run_torch.py not run"
fi
for fw in $frameworks; do
    path="$here/fakes"
    [ "$fw" = torch ] && path=""
    PYTHONPATH="$path" PYTHONDONTWRITEBYTECODE=1 "$python" "$adapters/run_$fw.py" \
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
# The warm-up (--warm-up-jobs): the same bytes as a run without it, and it did compute.
PYTHONPATH="$here/fakes" PYTHONDONTWRITEBYTECODE=1 "$python" "$adapters/run_cupy.py" \
    "$work/export" --results "$work/warm" --warm-up-jobs 2 2>"$work/warm.log" || status=1
cmp -s "$work/cupy/data.bin" "$work/warm/data.bin" || { echo "FAIL: warm-up changed the results"; status=1; }
grep -Eq 'warm-up of [1-9][0-9]* cases in 2 processes' "$work/warm.log" ||
    { echo "FAIL: the warm-up computed nothing"; cat "$work/warm.log"; status=1; }
# The matrix script: two columns, then one of them again with --keep; both in the matrix.
matrix="$adapters/../tools/conformance-matrix.sh"
PYTHONPATH="$here/fakes" PYTHONDONTWRITEBYTECODE=1 bash "$matrix" "$work/matrix" \
    --bitcts "$bitcts" --python "$python" --tier smoke --only numpy,cupy 2>"$work/matrix.log" ||
    { echo "FAIL: conformance-matrix.sh"; cat "$work/matrix.log"; status=1; }
PYTHONPATH="$here/fakes" PYTHONDONTWRITEBYTECODE=1 bash "$matrix" "$work/matrix" \
    --bitcts "$bitcts" --python "$python" --tier smoke --only cupy,jax-absent --keep \
    2>"$work/matrix.log" || { echo "FAIL: conformance-matrix.sh --keep"; cat "$work/matrix.log"; status=1; }
page="$work/matrix/conformance-matrix.md"
grep -q '^| operator | type | `numpy` \[`smoke`\] | `cupy` \[`smoke`\] |$' "$page" ||
    { echo "FAIL: --keep lost a column"; status=1; }
grep -q 'Columns kept from an earlier run in the same folder (`--keep`): numpy;' "$page" ||
    { echo "FAIL: --keep not named"; status=1; }
grep -q 'warm-up of' "$work/matrix.log" || { echo "FAIL: no CuPy warm-up in the script"; status=1; }
bash "$matrix" "$work/matrix" --bitcts "$bitcts" --python "$python" --keep 2>/dev/null
[ $? -eq 2 ] || { echo "FAIL: --keep without --only accepted"; status=1; }
[ $status -eq 0 ] && echo "adapters_smoke: all passed"
exit $status
