#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The committed regression set is what tools/regressions_generate.sh makes: regenerated into
# WORK_DIR, it equals vectors/regressions/ byte for byte (explore, shrinking and the case file
# are deterministic; docs/regressions.md).
# usage: regressions_regenerate.sh BITCTS SET_DIR WORK_DIR name=plugin...
set -euo pipefail
bitcts=$1
set_dir=$2
work=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
bash "$here/../../tools/regressions_generate.sh" "$bitcts" "$work/set" "$work/explore" "$@"
if ! diff -r "$set_dir" "$work/set"; then
    echo "FAIL: the regenerated set differs from $set_dir"
    exit 1
fi
echo "regenerated: $(ls "$set_dir" | wc -l) cases, identical"
