#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# lint.deps: the tree follows docs/layout.md's dependency rules (tools/check-deps.py) and has no
# file circle, and the check is real: the tree with one forbidden edge planted (reports/ including
# a harness header, a backend including the reference, the reference including jansson, the
# harness naming a backend, a room of harness/ including a higher room or a sibling, a C file of
# harness/ outside its rooms, a library printing, C in adapters/) or one file circle planted
# (rng.c calling back into case_build.c) must fail, naming the file and the rule. Each plant is
# one changed file in an overlay (check-deps.py --overlay), not a copy of the tree.
# Usage: check_deps.sh SOURCE_DIR
set -u
src=$1
check=(python3 "$src/tools/check-deps.py")
out=$("${check[@]}" --cycles "$src" 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || exit 1
# The circle check ran, and found none (a circle fails the check above).
grep -q "check-deps: 0 file circles within a folder" <<<"$out" || { echo "FAIL: no circle count"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
plant() { # file, line to add (before its first #include "...", or at its end), expected message
    local file=$1 line=$2 expect=$3 ov="$work/$((++n))"
    mkdir -p "$ov/$(dirname "$file")"
    if [ -f "$src/$file" ] && grep -q '^#include "' "$src/$file"; then
        sed "0,/^#include \"/s//${line//\//\\/}\n#include \"/" "$src/$file" >"$ov/$file"
    else
        { cat "$src/$file" 2>/dev/null; printf '%s\n' "$line"; } >"$ov/$file"
    fi
    out=$("${check[@]}" --overlay "$ov" "$src" 2>&1)
    rc=$?
    if [ $rc -ne 1 ] || ! grep -q "$expect" <<<"$out" || ! grep -q "check-deps: 1 forbidden edges" <<<"$out"; then
        echo "FAIL: planting '$line' in $file was not caught alone (rc $rc): $out"
        exit 1
    fi
    echo "ok: planted '$line' in $file: $(grep "$expect" <<<"$out" | head -1)"
}
n=0
plant reports/report_model.c '#include "runner.h"' 'reports/report_model.c:.*reports includes "runner.h" (harness'
plant backends/cpu/cpu_walk.c '#include "ref_ops.h"' 'backends/cpu/cpu_walk.c:.*backend:cpu includes "ref_ops.h" (reference'
plant reference/ref_ops.c '#include <jansson.h>' 'reference/ref_ops.c:.*reference includes <jansson.h>'
plant harness/run/worker.c '#include "cpu_backend.h"' 'harness/run/worker.c:.*harness:run includes "cpu_backend.h" (backend:cpu'
plant harness/base/clock.c '#include "runner.h"' 'harness/base/clock.c:.*harness:base includes "runner.h" (harness:run, harness/run/)'
plant harness/perf/sweep.c '#include "shrink.h"' 'harness/perf/sweep.c:.*harness:perf includes "shrink.h" (harness:explore, harness/explore/)'
plant harness/judge/compare.c '#include "backend.h"' 'harness/judge/compare.c:.*harness:judge includes "backend.h" (harness:sandbox, harness/sandbox/)'
plant harness/stray.c 'int bitcts_stray;' 'harness/stray.c: harness/.s C files live in its rooms'
plant reference/validate.c '#include "bitcts/bitcts_backend_kit.h"' 'reference/validate.c:.*reference includes "bitcts/bitcts_backend_kit.h": the backend kit is for backends'
plant generators/rng.c 'void bitcts_rng_say(void) { puts("hi"); }' 'generators/rng.c:.*generators calls puts: only harness/cli'
plant generators/rng.c 'int bitcts_rng_back(void) { return bitcts_case_build(0, 0, 0); }' 'file circle in generators/ ([0-9]* files): .*rng.c -> (bitcts_case_build) case_build.c'
plant adapters/run_numpy.py 'import tools.nightly' 'adapters/run_numpy.py:.*imports tools.nightly: adapters use only'
plant adapters/native.c 'int x;' 'adapters/native.c: adapters/ holds Python only'
# A macro's body is not a call: a name on a directive's continuation line makes no circle.
ov="$work/macro"
mkdir -p "$ov/generators"
{ cat "$src/generators/rng.c"; printf '#define BITCTS_PLANTED_MACRO \\\n    bitcts_case_build(0, 0, 0)\n'; } >"$ov/generators/rng.c"
out=$("${check[@]}" --cycles --overlay "$ov" "$src" 2>&1) || { echo "FAIL: a macro body taken for a call: $out"; exit 1; }
grep -q "check-deps: 0 file circles within a folder" <<<"$out" || { echo "FAIL: a macro body made a circle: $out"; exit 1; }
echo "ok: a macro body naming another file's function makes no circle"
echo "ok: the checker catches every planted edge and circle"
