#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The conformance matrix of the frameworks this machine's Python has (docs/check.md): exports
# the default tier, runs every adapter of adapters/ whose framework imports (the others are
# listed with their import error), checks each result set with `bitcts check`, and folds the
# reports with `bitcts report matrix` into OUTDIR/conformance-matrix.md (and .html). Builds
# nothing: it needs a built bitcts and the repository.
#
# usage: tools/conformance-matrix.sh OUTDIR [--bitcts PATH] [--python PATH] [--tier T]
#                                    [--only NAME,...] [--keep] [--timeout S]
#   --bitcts PATH   the bitcts executable (default: build/bitcts, then bitcts on PATH)
#   --python PATH   the Python with the frameworks (default: python3)
#   --tier T        the tier to export (default: default)
#   --only LIST     run only these columns (bitcts-cpu, numpy, torch-cpu, torch-cuda, cupy, jax,
#                   onnxruntime-cpu, onnxruntime-cuda)
#   --keep          with --only: keep the reports of the other columns from an earlier run in
#                   OUTDIR (and their remarks) and fold them into the matrix with the new ones
#   --timeout S     time limit of each adapter (default 600): cases not started by then are
#                   not_supported ("not run"), so a slow framework cannot hold up the matrix
#                   (CuPy with an empty kernel cache needs about 6 minutes of compilation)
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=""
bitcts=""
python=python3
tier=default
only=""
keep=0
limit=600
while [ $# -gt 0 ]; do
    case "$1" in
        --bitcts) bitcts=$2; shift 2 ;;
        --python) python=$2; shift 2 ;;
        --tier) tier=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        --timeout) limit=$2; shift 2 ;;
        -h|--help) sed -n '3,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "conformance-matrix: error: unknown option $1" >&2; exit 2 ;;
        *) if [ -n "$out" ]; then echo "conformance-matrix: error: one OUTDIR only" >&2; exit 2; fi
           out=$1; shift ;;
    esac
done
if [ -z "$out" ]; then
    echo "conformance-matrix: error: OUTDIR is required (see --help)" >&2
    exit 2
fi
if [ -z "$bitcts" ]; then
    if [ -x "$here/build/bitcts" ]; then bitcts=$here/build/bitcts; else bitcts=$(command -v bitcts || true); fi
fi
if [ -z "$bitcts" ] || ! "$bitcts" --version >/dev/null 2>&1; then
    echo "conformance-matrix: error: no working bitcts (give --bitcts PATH)" >&2
    exit 2
fi
if ! "$python" -c 'import numpy' 2>/dev/null; then
    echo "conformance-matrix: error: $python cannot import numpy (give --python PATH)" >&2
    exit 2
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ $keep -eq 1 ] && [ -z "$only" ]; then
    echo "conformance-matrix: error: --keep needs --only (the columns to run again)" >&2
    exit 2
fi
rm -rf "$out/export"
[ $keep -eq 0 ] && rm -rf "$out/results" "$out/reports" "$out/remarks"
mkdir -p "$out/results" "$out/reports" "$out/remarks"
reused=()
start=$(date +%s)
log() { echo "conformance-matrix: $*" >&2; }
# remark LABEL TEXT: a column not run, or run with a remark; kept in OUTDIR for --keep.
remark() {
    skipped+=("$1: $2")
    printf '%s\n' "$1: $2" >>"$out/remarks/$1"
}
# selected LABEL: whether this run computes the column; if not, --keep reuses an earlier one.
selected() {
    if [ -z "$only" ] || [[ ",$only," == *",$1,"* ]]; then
        rm -rf "${out:?}/results/$1" "$out/reports/$1" "$out/remarks/$1"
        return 0
    fi
    if [ $keep -eq 1 ]; then
        if [ -f "$out/remarks/$1" ]; then
            while IFS= read -r line; do skipped+=("$line"); done <"$out/remarks/$1"
        fi
        if [ -f "$out/reports/$1/report.json" ]; then
            reports+=("$1=$out/reports/$1")
            reused+=("$1")
        fi
    fi
    return 1
}

log "exporting the $tier tier"
"$bitcts" vectors export --out "$out/export" --tier "$tier" || exit 2

# column | module to import | adapter (and its options) | device | a Python test that must print "ok"
columns=(
    "numpy|numpy|run_numpy.py|cpu|print('ok')"
    "torch-cpu|torch|run_torch.py|cpu|print('ok')"
    "torch-cuda|torch|run_torch.py|cuda|import torch; print('ok' if torch.cuda.is_available() else 'torch.cuda.is_available() is False')"
    "cupy|cupy|run_cupy.py --warm-up-jobs $(nproc 2>/dev/null || echo 1)|cuda:0|import cupy; cupy.zeros(1).sum(); print('ok')"
    "jax|jax|run_jax.py||print('ok')"
    "onnxruntime-cpu|onnxruntime|run_onnxruntime.py|cpu|print('ok')"
    "onnxruntime-cuda|onnxruntime|run_onnxruntime.py|cuda|import onnxruntime as o; print('ok' if 'CUDAExecutionProvider' in o.get_available_providers() else 'no CUDAExecutionProvider in ' + ','.join(o.get_available_providers()))"
)
skipped=()
reports=()
# bitcts's own CPU backend through `bitcts run`, the column to read the others against.
if selected bitcts-cpu; then
    log "running bitcts-cpu (bitcts run --backend cpu)"
    "$bitcts" run --backend cpu --tier "$tier" --report "$out/reports/bitcts-cpu" --quiet --force \
        >/dev/null
    rc=$?
    if [ $rc -le 1 ] && [ -f "$out/reports/bitcts-cpu/report.json" ]; then
        reports+=("bitcts-cpu=$out/reports/bitcts-cpu")
    else
        remark bitcts-cpu "bitcts run exited with status $rc"
    fi
fi
for entry in "${columns[@]}"; do
    IFS='|' read -r label module adapter device probe <<<"$entry"
    selected "$label" || continue
    why=$("$python" -c "import $module" 2>&1 | tail -n 1)
    if [ -n "$why" ]; then
        remark "$label" "$why"
        log "skipping $label: $why"
        continue
    fi
    said=$("$python" -c "$probe" 2>&1 | tail -n 1)
    if [ "$said" != "ok" ]; then
        remark "$label" "$said"
        log "skipping $label: $said"
        continue
    fi
    log "running $label"
    args=("$out/export" --results "$out/results/$label" --time-limit "$limit")
    [ -n "$device" ] && args+=(--device "$device")
    PYTHONPATH="$here/adapters${PYTHONPATH:+:$PYTHONPATH}" timeout "$((limit + 120))" \
        "$python" "$here/adapters/${adapter%% *}" "${args[@]}" ${adapter#"${adapter%% *}"}
    rc=$?
    if [ $rc -ne 0 ] || [ ! -f "$out/results/$label/results.json" ]; then
        remark "$label" "the adapter exited with status $rc (124: killed $((limit + 120)) s after its start)"
        log "$label failed with status $rc"
        continue
    fi
    "$bitcts" check "$out/export" --results "$out/results/$label" --report "$out/reports/$label" \
        --quiet
    rc=$?
    if [ $rc -gt 2 ] || [ ! -f "$out/reports/$label/report.json" ]; then
        remark "$label" "bitcts check exited with status $rc"
        continue
    fi
    [ $rc -eq 2 ] && remark "$label" "checked, but bitcts check found bad result entries (exit 2; see its report)"
    reports+=("$label=$out/reports/$label")
done

if [ ${#reports[@]} -eq 0 ]; then
    echo "conformance-matrix: error: no framework could be run" >&2
    printf '  %s\n' "${skipped[@]}" >&2
    exit 1
fi
"$bitcts" report matrix --out "$out/matrix.md" --html "$out/conformance-matrix.html" \
    --json "$out/matrix.json" "${reports[@]}" || exit 1

device=$("$python" - <<'EOF' 2>/dev/null
names = []
try:
    import torch
    if torch.cuda.is_available():
        names.append(torch.cuda.get_device_name(0))
except Exception:
    pass
if not names:
    try:
        import cupy
        n = cupy.cuda.runtime.getDeviceProperties(0)["name"]
        names.append(n.decode() if isinstance(n, bytes) else str(n))
    except Exception:
        pass
print(names[0] if names else "no GPU found by torch or cupy")
EOF
)
pyver=$("$python" -c 'import sys; print(sys.version.split()[0])')
cpu=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')
{
    echo "# Conformance matrix"
    echo
    echo "Generated by \`tools/conformance-matrix.sh\` on $(date -u +%Y-%m-%d): bitcts"
    echo "$("$bitcts" --version | sed 's/^bitcts //'), the \`$tier\` tier ($(grep -o '"case_count": [0-9]*' "$out/export/manifest.json" | grep -o '[0-9]*') cases),"
    echo "Python $pyver, GPU: $device; CPU: ${cpu:-unknown}. Each framework computed every case"
    echo "of the export through its adapter (adapters/), and \`bitcts check\` judged the results"
    echo "with the judge of \`bitcts run\` (docs/check.md); \`bitcts-cpu\` is bitcts's own CPU"
    echo "backend under \`bitcts run\`. Total time $(( $(date +%s) - start )) s."
    if [ ${#reused[@]} -gt 0 ]; then
        echo
        echo "Columns kept from an earlier run in the same folder (\`--keep\`): ${reused[*]}; the"
        echo "total time is this run's."
    fi
    echo
    if [ ${#skipped[@]} -gt 0 ]; then
        echo "Not run, or run with a remark:"
        echo
        for s in "${skipped[@]}"; do echo "* $s"; done
        echo
    fi
    cat "$out/matrix.md"
    echo
    echo "## Time per framework"
    echo
    echo "From the adapters' own timings (\`duration_ms\` of each case in its results.json): a case"
    echo "slower than 50 ms is almost always the framework compiling a kernel on its first use"
    echo "(CuPy compiles one per operator, type and rank, and keeps them in its kernel cache). An"
    echo "adapter run with \`--warm-up-jobs\` (CuPy here) first computed every case in one process"
    echo "per core, results thrown away, to fill that cache: its times exclude compilation."
    echo
    "$python" - "$out/results" <<'PYEOF'
import json, os, sys
root = sys.argv[1]
print("| framework | cases computed | total s | s in cases over 50 ms (first use) | cases over 50 ms |")
print("|---|---|---|---|---|")
for name in sorted(os.listdir(root)):
    try:
        with open(os.path.join(root, name, "results.json"), encoding="utf-8") as f:
            cases = json.load(f)["cases"]
    except (OSError, ValueError, KeyError, TypeError):
        continue
    ms = [float(c.get("duration_ms", 0)) for c in cases
          if isinstance(c, dict) and c.get("status") == "done"]
    slow = [m for m in ms if m > 50]
    print("| `%s` | %d | %.1f | %.1f | %d |" % (name, len(ms), sum(ms) / 1e3, sum(slow) / 1e3,
                                            len(slow)))
PYEOF
    echo
    echo "## Known deviations"
    echo
    echo "What the cells above show where these frameworks are involved (whether a deviation"
    echo "appears depends on the versions in the framework table):"
    echo
    echo "* PyTorch 1.13 shifts a uint8 as the 32-bit value it promotes it to, then truncates: counts"
    echo "  8 to 31 give 0, larger counts act modulo 32, not modulo 8 (policy \`other\` where both"
    echo "  occur). PyTorch 2.11 gives 0 for every count >= the width (\`saturate\`)."
    echo "* NumPy 2's \`bitwise_count\`, and CuPy's, which follows NumPy, count the bits of a signed"
    echo "  integer's absolute value, not of its two's complement representation: BIT_COUNT of"
    echo "  negative INT inputs fails."
    echo "* Shift counts >= the width are not asserted (DirectML leaves them undefined): each"
    echo "  framework's behaviour is recorded as \`mask\` (count modulo the width), \`saturate\` (0)"
    echo "  or \`other\`."
    echo "* JAX and ONNX Runtime have no strided views: they receive each input's logical elements"
    echo "  (ONNX Runtime with broadcast dimensions of size 1, expanded by its own broadcasting) and"
    echo "  return logical elements; NumPy, PyTorch and CuPy compute on strided views of the exported"
    echo "  buffers and return the whole output buffer, whose padding is checked too."
} >"$out/conformance-matrix.md"
log "wrote $out/conformance-matrix.md and conformance-matrix.html in $(( $(date +%s) - start )) s"
