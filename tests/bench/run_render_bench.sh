#!/bin/sh
# Timeline frames at two scales, measured in one run so that both see the same machine: makes
# ~1 GB (about 2.5 M events) and ~3.9 GB (about 10 M events) Kineto traces from a fixture in
# /tmp (removed afterwards unless KEEP=1 or they were there already), then runs
# `pyrometer --render-benchmark` on each, alternating, RUNS times (default 2). Each run prints
# its frame times, the fit-all draw list and the timeline index's bytes per event, and ends
# with a line of JSON.
#   tests/bench/run_render_bench.sh BUILD_DIR [RUNS]
set -eu
build=${1:?build dir}
runs=${2:-2}
fixture="$(cd "$(dirname "$0")/../fixtures/traces" && pwd)/gaunernst_bert-small-uncased__1016001.json.gz"
sizes="1000 3930" # MB: the fixture replicated gives some 2,540 events a MB
made=""
trap 'for f in $made; do rm -f "$f"; done' EXIT INT TERM
for mb in $sizes; do
    trace=/tmp/pyrometer_bench_${mb}MB.json
    if [ ! -f "$trace" ]; then
        "$build/tests/bench/trace_bench_generate" "$fixture" "$trace" "$mb"
        [ "${KEEP:-0}" = 1 ] || made="$made $trace"
    fi
done
export QT_QPA_PLATFORM=offscreen
run=1
while [ "$run" -le "$runs" ]; do
    for mb in $sizes; do
        trace=/tmp/pyrometer_bench_${mb}MB.json
        cat "$trace" > /dev/null # warm the page cache: loading is not what is measured
        echo "== run $run: $trace"
        "$build/app/gui/pyrometer" --render-benchmark "$trace"
    done
    run=$((run + 1))
done
