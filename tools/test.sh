#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tests: everything CI runs (.ci/run), as lanes, each in its own build folder:
#   default   -Werror build, every CTest test (fuzz replays over the committed corpus included)
#   asan      AddressSanitizer + UndefinedBehaviorSanitizer build (halting on the first finding),
#             the CTest suite but the slow CPU conformance runs and the lint; every process,
#             worker processes included, reports into a folder that must stay empty
#   valgrind  memcheck over bitcts run --backend cpu:scalar and cpu:avx2, smoke tier, worker
#             processes included, leaks checked
#   tsan      ThreadSanitizer build: the threaded CPU backend (its unit test and bitcts run
#             --threads 4 over tensors large enough to be split)
# docs/fuzzing.md describes the lanes and their times.
# Usage: tools/test.sh [--lane default|asan|valgrind|tsan]...   (no --lane: all of them)
set -euo pipefail
cd "$(dirname "$0")/.."
all_lanes=(default asan valgrind tsan)
lanes=()
while [ $# -gt 0 ]; do
    case "$1" in
    --lane)
        [ $# -ge 2 ] || { echo "test.sh: --lane needs a name (${all_lanes[*]})" >&2; exit 2; }
        case " ${all_lanes[*]} " in *" $2 "*) ;; *) echo "test.sh: unknown lane '$2'" >&2; exit 2 ;; esac
        lanes+=("$2")
        shift 2
        ;;
    *) echo "usage: tools/test.sh [--lane ${all_lanes[*]// /|}]..." >&2; exit 2 ;;
    esac
done
[ ${#lanes[@]} -gt 0 ] || lanes=("${all_lanes[@]}")
# Slurm for nightly.slurm_night, which runs a night as a real array job (and fails under CI=true
# when Slurm is missing, rather than skipping).
setup_flags=(--with-browser --with-slurm)
for lane in "${lanes[@]}"; do
    [ "$lane" = default ] || setup_flags=(--with-browser --with-slurm --with-lanes)
done
bash tools/setup.sh "${setup_flags[@]}"
jobs=$(nproc)
# CTest runs one test more than there are cores: many tests wait on purpose (watchdogs of plugins
# that hang, resumed runs, a browser), and with one test a core the cores sat idle an eighth of
# the time. Every test's verdict holds on a loaded machine (docs/fuzzing.md).
ctest_jobs=$((jobs + 1))

configure() { # configure BUILD_DIR [cmake options...]
    local dir=$1
    shift
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBITCTS_WERROR=ON "$@" >/dev/null
}

lane_default() {
    configure build-test
    cmake --build build-test -j"$jobs"
    (cd build-test && ctest --output-on-failure -j"$ctest_jobs" --timeout 900)
}

# Reports of every process go to files (a worker's stderr is the harness's to capture); any
# file there fails the lane. No test runs a backend that the sanitizers would flag on purpose:
# the broken plugins crash by signal, abort() or a hang, which ASan does not report.
lane_asan() {
    # Line tables only (-g1): a report still names every frame's function, file and line, and
    # the build takes a fifth less time than with full debug information.
    configure build-asan -DBITCTS_SANITIZE=address,undefined \
        "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
    cmake --build build-asan -j"$jobs"
    local logs
    logs=$(cd build-asan && pwd)/sanitizer-logs
    rm -rf "$logs" && mkdir -p "$logs"
    local rc=0
    # cpu_sweeps and cpu_variants (the CPU backend over every variant and 2^32 values, ~5 min
    # unsanitized) are covered here by unit.cpu_backend's differential test of every variant;
    # the default tier is exported once, by vectors.export_default (export_determinism builds
    # bitcts again at -O0, which says nothing about this build).
    # harness.hostile_plugins is not run here: its plugins crash on purpose and it asserts the
    # signal each one dies of, which the sanitizer runtime turns into its own report and exit
    # status 1 (even with handle_segv=0 in both option sets), and one limits the address space,
    # leaving ASan's shadow memory no room. The harness meets crashing, hanging and aborting
    # plugins here in harness.broken_plugins, harness.explore and harness.kill_resume.
    # vulkan.gpu_run_quick and nightly.site (with nightly.chromium, which reads its site) test
    # two scripts end to end (tools/gpu-run.sh, tools/nightly.py); the C they reach is run here
    # by the tests of each command: conformance.vulkan and unit.vk_backend (the Vulkan backend,
    # its timed executions included), cli.isolation and cli.bench_quick (sweep and bench),
    # harness.resume_shard and harness.bad_input (shards and report merge),
    # vectors.golden_verify (vectors verify). Under the sanitizers they repeated those commands
    # for a third of the lane's time. cli.html_chromium, vectors.rebuild_from_docs,
    # vectors.doc_claims and check.adapters_smoke spend their time in a browser and in Python
    # (NumPy, the adapters); the C they reach (report rendering, export, list, check) is run
    # here by unit.report, vectors.export_default, cli.options and check.results.
    # harness.explore_plan runs the default tier through a plugin and explores cases twice to
    # compare them, which harness.broken_plugins and harness.explore do here once.
    # harness.explanations runs fifteen plugins to check the analysis's sentences: the analysis
    # is unit.report_analysis's here, and every run writes the case descriptions it reads.
    # harness.shard_engines reads engine variables and balances shards: unit.shard runs that C
    # here, harness.resume_shard the runner's shard selection and report merge.
    # harness.shrink_kinds asserts, like harness.hostile_plugins, the signal each hostile plugin
    # dies of, which the sanitizer runtime turns into an exit; the shrinker's C runs here in
    # harness.explore and unit.shrink_repro. harness.regressions_regenerate explores and shrinks
    # for two minutes what harness.explore and harness.regressions run here once.
    (cd build-asan &&
        ASAN_OPTIONS="log_path=$logs/asan:detect_leaks=1:abort_on_error=0:strict_string_checks=1" \
        UBSAN_OPTIONS="log_path=$logs/ubsan:print_stacktrace=1:halt_on_error=1" \
        ctest --output-on-failure -j"$ctest_jobs" --timeout 1800 \
            -E '^(conformance\.cpu_sweeps|conformance\.cpu_variants|cli\.export_determinism|cli\.html_chromium|harness\.hostile_plugins|harness\.explore_plan|harness\.explanations|harness\.shard_engines|harness\.shrink_kinds|harness\.regressions_regenerate|vulkan\.gpu_run_quick|vectors\.(rebuild_from_docs|doc_claims)|check\.adapters_smoke|nightly\..*|lint\..*)$') ||
        rc=1
    if compgen -G "$logs/*" >/dev/null; then
        echo "asan lane: sanitizer reports:"
        head -n 40 "$logs"/*
        rc=1
    fi
    return $rc
}

# Workers are forked (--trace-children also follows an exec); each process checks its own
# leaks at exit and its log must say "ERROR SUMMARY: 0 errors". Only definite leaks count:
# a forked worker ends with _exit and still holds what the harness allocated before the fork.
lane_valgrind() {
    configure build-test
    cmake --build build-test -j"$jobs" --target bitcts
    local out
    out=$(cd build-test && pwd)/valgrind
    rm -rf "$out" && mkdir -p "$out"
    local rc=0
    for backend in cpu:scalar cpu:avx2; do
        local tag=${backend#cpu:}
        valgrind --tool=memcheck --trace-children=yes --error-exitcode=99 --leak-check=full \
            --show-leak-kinds=definite --errors-for-leak-kinds=definite --track-origins=no \
            --log-file="$out/$tag.%p.log" \
            build-test/bitcts run --backend "$backend" --tier smoke --jobs "$jobs" --timeout 120 \
            --report "$out/report-$tag" --quiet || { echo "valgrind lane: $backend failed ($?)"; rc=1; }
    done
    local bad
    bad=$(grep -L "ERROR SUMMARY: 0 errors" "$out"/*.log || true)
    if [ -n "$bad" ]; then
        echo "valgrind lane: memcheck errors in $(wc -w <<<"$bad") processes:"
        for f in $bad; do head -n 60 "$f"; done
        rc=1
    fi
    echo "valgrind lane: $(ls "$out"/*.log | wc -l) processes checked"
    return $rc
}

# The harness forks its workers before any thread exists; the pool's threads live in the
# workers (and in the unit test).
lane_tsan() {
    # Only the threaded code is instrumented: the CPU backend (its pool and kernels) and its
    # unit test. The harness around it is single-threaded in every process, so it has no race
    # to find, and instrumented it took most of the lane's time.
    configure build-tsan -DBITCTS_SANITIZE=thread -DBITCTS_ENABLE_VULKAN=OFF \
        "-DBITCTS_SANITIZE_TARGETS=bitcts_backend_cpu;cpu_backend_test"
    cmake --build build-tsan -j"$jobs" --target bitcts cpu_backend_test
    local rc=0 unit
    export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
    # The two at once: the unit test is mostly one thread, the run four.
    build-tsan/tests/cpu_backend_test >build-tsan/cpu_backend_test.log 2>&1 &
    unit=$!
    build-tsan/bitcts run --backend cpu --threads 4 --jobs 1 --tier large --filter '*.large_*' \
        --timeout 300 --report build-tsan/tsan-report --quiet || { echo "tsan lane: bitcts run failed"; rc=1; }
    wait "$unit" || { echo "tsan lane: cpu_backend_test failed:"; tail -n 40 build-tsan/cpu_backend_test.log; rc=1; }
    unset TSAN_OPTIONS
    return $rc
}

failed=0
times=()
for lane in "${lanes[@]}"; do
    echo "==== lane $lane"
    start=$(date +%s)
    status=passed
    set +e
    (set -e && "lane_$lane") # a subshell of its own, so that set -e stops the lane, not the rest
    rc=$?
    set -e
    [ $rc -eq 0 ] || { status=FAILED; failed=1; }
    times+=("$lane: $status in $(($(date +%s) - start)) s")
    echo "==== lane $lane: $status"
done
echo "test lanes:"
printf '  %s\n' "${times[@]}"
exit $failed
