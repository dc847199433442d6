# SPDX-License-Identifier: MIT
# Shared by the harness test scripts (sourced, not run): the name=plugin arguments CTest passes
# into the associative array `plugin`, a fresh work folder, and fail().
# usage: harness_start WORK_DIR name=plugin...   (then the script runs inside WORK_DIR)
declare -A plugin
harness_start() {
    local work=$1
    shift
    for a in "$@"; do plugin[${a%%=*}]=${a#*=}; done
    rm -rf "$work"
    mkdir -p "$work"
    cd "$work"
}
fail() {
    echo "FAIL: $*"
    exit 1
}
