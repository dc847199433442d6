#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# lint.deps: the tree follows docs/layout.md's dependency rules (tools/check-deps.sh), and the
# check is real: a copy of the tree with a forbidden edge planted (reports/ including a harness
# header, a backend including the reference) must fail, naming the file and the rule.
# Usage: check_deps.sh SOURCE_DIR
set -u
src=$1
bash "$src/tools/check-deps.sh" "$src" || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for folder in include reference generators vectors reports backends harness tools; do
    cp -r "$src/$folder" "$work/"
done
plant() { # file, include line, expected message
    sed -i "0,/^#include \"/s//$2\n#include \"/" "$work/$1"
    out=$(bash "$work/tools/check-deps.sh" "$work" 2>&1)
    rc=$?
    if [ $rc -ne 1 ] || ! grep -q "$3" <<<"$out"; then
        echo "FAIL: planting '$2' in $1 was not caught (rc $rc): $out"
        exit 1
    fi
    echo "ok: planted '$2' in $1: $(grep "$3" <<<"$out" | head -1)"
    cp "$src/$1" "$work/$1"
}
plant reports/report_model.c '#include "runner.h"' 'reports/report_model.c:.*reports includes "runner.h" (harness'
plant backends/cpu/cpu_walk.c '#include "ref_ops.h"' 'backend:cpu includes "ref_ops.h" (reference'
plant reference/ref_ops.c '#include <jansson.h>' 'reference includes <jansson.h>'
plant harness/worker.c '#include "cpu_backend.h"' 'harness includes "cpu_backend.h" (backend:cpu'
echo "ok: the checker catches every planted edge"
