#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tests: everything CI runs (.ci/run), as lanes, each in its own build folder:
#   default   -Werror build, every CTest test (fuzz replays over the committed corpus included)
#             but harness.batch_plugins_no_signals (a part of harness.batch_plugins); run with
#             the asan lane, only the tests that lane leaves out (each test runs once)
#   asan      AddressSanitizer + UndefinedBehaviorSanitizer build (halting on the first finding),
#             the CTest tests that together reach the C the whole suite reaches (measured:
#             tools/lane_coverage.py); every process, worker processes included, reports into a
#             folder that must stay empty
#   valgrind  memcheck over bitcts run --backend cpu:scalar and cpu:avx2, smoke tier, worker
#             processes included, leaks checked
#   tsan      ThreadSanitizer build: the threaded CPU backend (its unit test and bitcts run
#             --threads 4 over tensors large enough to be split) and the cases built ahead (their
#             unit test and a run of a batching plugin)
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

# The tests the asan lane leaves out (why: lane_asan). When both lanes run, each test runs once:
# these in the default lane, every other one in the asan lane, under AddressSanitizer and
# UndefinedBehaviorSanitizer (the same assertions, in the stricter build). The default lane
# alone runs every test.
asan_left_out='^(conformance\.(cpu_sweeps|cpu_variants|vulkan\..*|cpu\..*)|cli\.(export_determinism|html_chromium|options)|harness\.(hostile_plugins|batch_plugins|shrink_kinds|broken_plugins|explore|explore_plan|explanations|kill_resume|shard_engines|regressions_regenerate)|vulkan\.gpu_run_quick|vectors\.(rebuild_from_docs|doc_claims|golden_verify|mixed_broken_plugins|export_default)|check\.(results|adapters_smoke)|nightly\..*|lint\..*)$'

lane_default() {
    # Line tables only (-g1), as the asan lane: backtraces and valgrind's reports still name
    # every frame's function, file and line; the build takes a sixth less time.
    configure build-test "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
    cmake --build build-test -j"$jobs"
    local only=()
    case " ${lanes[*]} " in *" asan "*) only=(-R "$asan_left_out") ;; esac
    # harness.batch_plugins_no_signals is a part of harness.batch_plugins: the asan lane's.
    (cd build-test && ctest --output-on-failure -j"$ctest_jobs" --timeout 900 \
        ${only[@]+"${only[@]}"} -E '^harness\.batch_plugins_no_signals$')
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
    # The lane runs the suite's C under the sanitizers, not every test again: a test whose lines
    # of C other tests reach here is left to the default lane. What stays covers every line of
    # C that the whole suite reaches in this lane's former selection but 10 (measured with
    # gcov, per test: docs/fuzzing.md, "The asan lane's selection"). Left out:
    # - tests of scripts and of other builds, whose C the tests of each command run here:
    #   conformance.cpu_sweeps and cpu_variants (the CPU backend over every variant and 2^32
    #   values; unit.cpu_backend's differential test runs every variant), the conformance
    #   groups of the host's best variant, conformance.cpu.* (the scalar variant's groups,
    #   conformance.cpu_scalar.*, run the same harness code here), cli.export_determinism
    #   (bitcts again at -O0), vulkan.gpu_run_quick (tools/gpu-run.sh), nightly.* (tools/
    #   nightly.py), cli.html_chromium, vectors.rebuild_from_docs, vectors.doc_claims and
    #   check.adapters_smoke (a browser, Python, the adapters), lint.*;
    # - tests that assert the signal a plugin dies of or limit the address space, which the
    #   sanitizer runtime turns into its own report and exit, or leaves no room for its shadow
    #   memory: harness.hostile_plugins, harness.shrink_kinds, harness.batch_plugins (its
    #   scenarios without a signal run here as harness.batch_plugins_no_signals);
    # - end-to-end tests over whole tiers whose lines harness.sanitizer_paths reaches at a small
    #   scale (every broken plugin, the report matrix, damaged result sets for check, explore
    #   and shrink, vectors verify and regen, the command line's refusals):
    #   harness.broken_plugins, harness.explore, harness.explore_plan, harness.explanations,
    #   harness.kill_resume, harness.shard_engines, harness.regressions_regenerate,
    #   cli.options, check.results, conformance.vulkan.* (unit.vk_backend runs the backend's C
    #   here, batches included), vectors.golden_verify, vectors.mixed_broken_plugins and
    #   vectors.export_default (a fixture: what needs it pulls it in).
    (cd build-asan &&
        ASAN_OPTIONS="log_path=$logs/asan:detect_leaks=1:abort_on_error=0:strict_string_checks=1" \
        UBSAN_OPTIONS="log_path=$logs/ubsan:print_stacktrace=1:halt_on_error=1" \
        ctest --output-on-failure -j"$ctest_jobs" --timeout 1800 \
            -E "$asan_left_out") ||
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
    configure build-test "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
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

# The harness forks its workers before any thread exists; the threads live in the workers (the
# CPU backend's pool, the thread that builds a device or batching backend's cases ahead), in the
# unit tests, and in the parent: one thread renders report.json after the last worker, joined
# before the report is written (it and the views only read the report).
lane_tsan() {
    # Only the threaded code is instrumented: the CPU backend (its pool and kernels), the run
    # room (the worker and the cases built ahead) and their unit tests. The rest of the harness
    # runs on one thread in every process but for that read-only rendering, and instrumented it
    # took most of the lane's time.
    configure build-tsan -DBITCTS_SANITIZE=thread -DBITCTS_ENABLE_VULKAN=OFF \
        "-DBITCTS_SANITIZE_TARGETS=bitcts_backend_cpu;cpu_backend_test;bitcts_harness_run;worker_prefetch_test"
    cmake --build build-tsan -j"$jobs" --target bitcts cpu_backend_test worker_prefetch_test \
        bitcts_batch_none
    local rc=0 unit
    # Huge pages for the shadow memory: the run's large tensors and the unit tests' buffers
    # otherwise fault it in 4 KiB at a time, each fault a TLB shootdown across the threads
    # (measured: 97 -> 77 processor seconds for the lane's three programs).
    export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:no_huge_pages_for_shadow=0"
    # The unit test (mostly one thread, the longest) beside the other three in turn: the run
    # (four threads), then the cases built ahead (their unit test and a batching plugin, whose
    # workers build cases ahead on a second thread).
    build-tsan/tests/cpu_backend_test >build-tsan/cpu_backend_test.log 2>&1 &
    unit=$!
    build-tsan/bitcts run --backend cpu --threads 4 --jobs 1 --tier large --filter '*.large_*' \
        --timeout 300 --report build-tsan/tsan-report --quiet || { echo "tsan lane: bitcts run failed"; rc=1; }
    build-tsan/tests/worker_prefetch_test >build-tsan/worker_prefetch_test.log 2>&1 ||
        { echo "tsan lane: worker_prefetch_test failed:"; tail -n 40 build-tsan/worker_prefetch_test.log; rc=1; }
    build-tsan/bitcts run --backend build-tsan/tests/plugins/libbitcts_batch_none.so --jobs 2 \
        --tier smoke --timeout 300 --report build-tsan/tsan-batch-report --quiet ||
        { echo "tsan lane: bitcts run of a batching plugin failed"; rc=1; }
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
