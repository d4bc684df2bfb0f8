#!/bin/sh
# Frames and loading, each beside its baseline, in one run on one machine:
#   tests/bench/run_smooth_fast.sh BUILD_DIR [BASELINE_BUILD_DIR]
# BUILD_DIR (and the optional BASELINE_BUILD_DIR, a build of an older commit) are release
# builds with the targets pyrometer, pyrometer-cli, trace_bench_load and trace_bench_generate.
# A baseline build without pyrometer (the GUI) is left out of the frames; one without
# pyrometer-cli loads the big trace through trace_bench_load alone, as BUILD_DIR then does too.
# Traces are made from a fixture in $TMPDIR (default /tmp) when missing and kept there:
#   ~1 GB (about 2.5 M events) and ~7.6 GB (about 19 M events) for the timeline's frames;
#   ~630 MB and its gzip for loading; ~10 GB for the big load (set BIG_MB to change it).
# It prints:
#   frames   median and max frame of `pyrometer --render-benchmark`, and max / median, at both
#            sizes, builds alternating (RUNS runs each, default 5); then, per build and size, the
#            same of each frame's median over the runs: on a shared machine one run's slowest
#            frame is often another process's time slice, where a frame slow in most runs is
#            the frame's own cost;
#   load     the loader's seconds against a bare simdjson pass over the same file, and the
#            gzip's against `zcat` alone (ratios: lower is better), each the fastest of
#            LOAD_RUNS runs (default 3);
#   big      the 10 GB trace through `pyrometer-cli info` (or trace_bench_load, see above): wall
#            time, peak RSS and RSS / file, beside the loader's MB/s on the 630 MB trace.
set -eu
build=${1:?build dir}
baseline=${2:-}
runs=${RUNS:-5}
load_runs=${LOAD_RUNS:-3}
big_mb=${BIG_MB:-10240}
tmp=${TMPDIR:-/tmp}
here=$(cd "$(dirname "$0")" && pwd)
fixture="$here/../fixtures/traces/gaunernst_bert-small-uncased__1016001.json.gz"
export QT_QPA_PLATFORM=offscreen

trace_of() { echo "$tmp/pyrometer_bench_$1MB.json"; }
for mb in 600 1000 7600 "$big_mb"; do
    [ -f "$(trace_of "$mb")" ] || "$build/tests/bench/trace_bench_generate" "$fixture" "$(trace_of "$mb")" "$mb"
done
small=$(trace_of 600)
[ -f "$small.gz" ] || gzip -c "$small" > "$small.gz"

builds="$build"
[ -n "$baseline" ] && builds="$baseline $build"
name_of() { if [ "$1" = "$baseline" ]; then echo baseline; else echo now; fi; }
# seconds COMMAND...: the wall time of a command, its output dropped.
seconds() {
    start=$(date +%s.%N)
    "$@" > /dev/null
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'
}
# field NAME LINE: the value of NAME=... in a line of trace_bench_load.
field() { echo "$2" | tr ' ' '\n' | sed -n "s|^$1=||p"; }

echo "== frames (ms), pyrometer --render-benchmark at 1920x1080"
frames_of() { echo "$tmp/pyrometer_bench_frames_$(name_of "$1")_$2.json"; }
for mb in 1000 7600; do
    for b in $builds; do rm -f "$(frames_of "$b" "$mb")"; done
    trace=$(trace_of "$mb")
    run=1
    while [ "$run" -le "$runs" ]; do
        for b in $builds; do
            [ -x "$b/app/gui/pyrometer" ] || continue
            cat "$trace" > /dev/null
            json=$("$b/app/gui/pyrometer" --render-benchmark "$trace" 2>/dev/null | tail -n 1)
            echo "$json" >> "$(frames_of "$b" "$mb")"
            echo "$json" | jq -r --arg who "$(name_of "$b")" --arg run "$run" \
                '"\($who) run \($run): events \(.events)  median \(.median_ms * 100 | round / 100)  max \(.max_ms * 100 | round / 100)  max/median \(.max_ms / .median_ms * 100 | round / 100)"'
        done
        run=$((run + 1))
    done
    for b in $builds; do
        [ -f "$(frames_of "$b" "$mb")" ] || continue
        jq -s -r --arg who "$(name_of "$b")" '
            map(.frames_ms // empty) as $runs
            | if ($runs | length) == 0 then "\($who): no frame times in its JSON (an older build)" else
              ($runs | transpose | map(sort | .[length / 2 | floor])) as $f
              | ($f | sort | .[length / 2 | floor]) as $median | ($f | max) as $max
              | "\($who): each frame'"'"'s median of \($runs | length) runs: median \($median * 100 | round / 100)  max \($max * 100 | round / 100) (frame \($f | index($max) + 1) of \($f | length))  max/median \($max / $median * 100 | round / 100)" end' \
            "$(frames_of "$b" "$mb")"
        rm -f "$(frames_of "$b" "$mb")"
    done
done

echo "== load: seconds (the fastest of $load_runs runs each), and ratios to a bare simdjson pass and to zcat (lower is better)"
# fastest COMMAND...: the output of trace_bench_load's fastest of load_runs runs. Where the page
# cache fills the memory (the bench's own traces do), a run that must first reclaim its buffers
# from it takes up to ten times as long: the bare pass took 0.2 s or 1.1-2.7 s, run after run.
fastest() {
    best=""
    run=0
    while [ "$run" -lt "$load_runs" ]; do
        line=$("$@")
        if [ -z "$best" ] || awk -v a="$(field seconds "$line")" -v b="$(field seconds "$best")" 'BEGIN { exit !(a < b) }'; then
            best=$line
        fi
        run=$((run + 1))
    done
    echo "$best"
}
cat "$small" "$small.gz" > /dev/null
zcat_s=$(seconds zcat "$small.gz")
run=1
while [ "$run" -lt "$load_runs" ]; do
    again=$(seconds zcat "$small.gz")
    zcat_s=$(awk -v a="$zcat_s" -v b="$again" 'BEGIN { print (b < a ? b : a) }')
    run=$((run + 1))
done
for b in $builds; do
    bare=$(fastest "$b/tests/bench/trace_bench_load" simdjson "$small")
    ours=$(fastest "$b/tests/bench/trace_bench_load" pyrometer "$small")
    gz=$(fastest "$b/tests/bench/trace_bench_load" pyrometer "$small.gz")
    awk -v who="$(name_of "$b")" -v bare="$(field seconds "$bare")" -v ours="$(field seconds "$ours")" \
        -v gz="$(field seconds "$gz")" -v zcat="$zcat_s" -v rate="$(field MB/s "$ours")" 'BEGIN {
        printf "%s: 630 MB: simdjson pass %.3f s, loader %.3f s (%s MB/s): %.2fx\n", who, bare, ours, rate, ours / bare
        printf "%s: its gzip: zcat %.3f s, loader %.3f s: %.2fx\n", who, zcat, gz, gz / zcat }'
done

echo "== big: pyrometer-cli info on $(trace_of "$big_mb")"
bytes=$(stat -c %s "$(trace_of "$big_mb")")
big_with="app/cli/pyrometer-cli info"
for b in $builds; do
    [ -x "$b/app/cli/pyrometer-cli" ] || big_with="tests/bench/trace_bench_load pyrometer"
done
echo "   (through $big_with)"
for b in $builds; do
    cat "$(trace_of "$big_mb")" > /dev/null
    # shellcheck disable=SC2086 # the command and its subcommand are two words
    /usr/bin/time -f '%e %M' -o "$tmp/pyrometer_bench_time" "$b/"$big_with "$(trace_of "$big_mb")" > /dev/null
    read -r wall kib < "$tmp/pyrometer_bench_time"
    awk -v who="$(name_of "$b")" -v wall="$wall" -v kib="$kib" -v bytes="$bytes" 'BEGIN {
        printf "%s: %.0f MB in %.2f s, peak RSS %.0f MB, %.2fx the file\n", who, bytes / 1e6, wall, kib * 1024 / 1e6,
               kib * 1024 / bytes }'
done
