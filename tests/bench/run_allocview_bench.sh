#!/bin/sh
# The allocations view's frames (allocview_bench) on a large snapshot, beside a baseline build's
# (an older commit's) in the same run, alternating so that both meet the same machine.
#   tests/bench/run_allocview_bench.sh BUILD_DIR SNAPSHOT [BASELINE_BUILD_DIR] [ROUNDS=2]
# BUILD_DIR is a release build (cmake --preset release; cmake --build build/release --target allocview_bench).
set -e
build=$1; snapshot=$2; baseline=$3; rounds=${4:-2}
export QT_QPA_PLATFORM=offscreen
i=0
while [ "$i" -lt "$rounds" ]; do
    echo "== this build, round $((i + 1))"
    "$build/tests/bench/allocview_bench" "$snapshot" 3 2>/dev/null
    if [ -n "$baseline" ]; then
        echo "== baseline, round $((i + 1))"
        "$baseline/tests/bench/allocview_bench" "$snapshot" 3 2>/dev/null
    fi
    i=$((i + 1))
done
