#!/bin/sh
# Loading a big trace end to end: generates a ~4 GB Kineto trace from a fixture (in /tmp, and
# removed afterwards unless KEEP=1 or it was there already), then prints, for pyrometer-cli info,
# pyrometer-cli ops (which also builds the analysis index), the window's Overview and Timeline
# pages and the loader alone, the wall time, the peak RSS (MB of 10^6 bytes) and its ratio to the
# file's size.
#   tests/bench/run_big_load.sh BUILD_DIR [TARGET_MB]
# Each program runs once, so figures vary by a few percent from run to run; peak RSS includes
# the program's own code and libraries (the base line, measured on a tiny trace).
set -eu
build=${1:?build dir}
mb=${2:-4096}
here=$(cd "$(dirname "$0")" && pwd)
fixture="$here/../fixtures/traces/gaunernst_bert-small-uncased__1016001.json.gz"
tiny="$here/../fixtures/traces/debian_legacy_linear.json"
big=${TMPDIR:-/tmp}/pyrometer_bench_${mb}MB.json
scratch=$(mktemp -d)
generated=0
cleanup() {
    rm -rf "$scratch"
    if [ "$generated" = 1 ] && [ "${KEEP:-0}" != 1 ]; then rm -f "$big"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ ! -f "$big" ]; then
    generated=1
    "$build/tests/bench/trace_bench_generate" "$fixture" "$big" "$mb"
fi
cat "$big" > /dev/null # warm the page cache: we measure loading, not the disk
bytes=$(stat -c %s "$big")

# run NAME COMMAND...: runs it under /usr/bin/time; its output is in $scratch/out.
run() {
    name=$1
    shift
    if ! /usr/bin/time -f '%e %M' -o "$scratch/time" "$@" > "$scratch/out" 2> "$scratch/err"; then
        echo "$name: failed" >&2
        cat "$scratch/err" >&2
        return 1
    fi
}
# report NAME [MORE]: the wall time, peak RSS and RSS / file size of the last run.
report() {
    read -r wall kib < "$scratch/time"
    awk -v name="$1" -v wall="$wall" -v kib="$kib" -v bytes="$bytes" -v more="${2:-}" 'BEGIN {
        printf "%-14s wall_s=%-7s peak_rss_MB=%-5.0f rss/file=%.2f %s\n", name, wall, kib * 1024 / 1e6,
               kib * 1024 / bytes, more }'
}

cli="$build/app/cli/pyrometer-cli"
gui="$build/app/gui/pyrometer"
run "cli info" "$cli" info --format json "$big"
awk -v bytes="$bytes" -v events="$(jq .events "$scratch/out")" 'BEGIN {
    printf "file size_MB=%.0f events=%s\n", bytes / 1e6, events }'
report "cli info" "load_s=$(jq .load_seconds "$scratch/out")"
run "cli ops" "$cli" ops "$big" --top 10 && report "cli ops" "(load + index + table)"
run "cli base" "$cli" info "$tiny" && report "cli base" "(a tiny trace)"
if [ -x "$gui" ]; then
    export QT_QPA_PLATFORM=offscreen
    for view in overview timeline; do
        run "gui $view" "$gui" --screenshot "$scratch/$view.png" --view "$view" "$big"
        report "gui $view" "(load + page)"
    done
    run "gui base" "$gui" --screenshot "$scratch/tiny.png" --view overview "$tiny" && report "gui base" "(a tiny trace)"
fi
# The loader alone, in a process of its own: its peak, what stays, the model's own count.
"$build/tests/bench/trace_bench_load" pyrometer "$big"
