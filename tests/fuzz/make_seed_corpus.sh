#!/bin/sh
# Fills DIR with fuzzing seeds for one target (default trace_loader):
#   tests/fuzz/make_seed_corpus.sh DIR [trace_loader|summary|job|session|memory|snapshot|traced_inputs|logdir|worker_protocol|mcp_protocol]
# trace_loader: every fixture trace, decompressed, plus a few gzipped ones. logdir: those, each
# one file of a folder, and the folders of tests/fixtures/fuzz/logdir. The others: their seeds
# in tests/fixtures/fuzz (remade by tests/fuzz/make_fixture_seeds.sh) and the inputs that once
# crashed their reader (tests/fixtures/fuzz/regressions).
set -eu
dir=${1:?directory}
target=${2:-trace_loader}
here=$(cd "$(dirname "$0")" && pwd)
fixtures=$here/../fixtures
mkdir -p "$dir"

traces() {
    for f in "$fixtures"/traces/*.json "$fixtures"/traces/*.json.gz; do
        name=$(basename "$f")
        case "$f" in
        *.gz) cp "$f" "$dir/$name"; zcat "$f" | head -c 65536 > "$dir/${name%.gz}.head" ;;
        *) head -c 65536 "$f" > "$dir/$name" ;;
        esac
    done
}

case "$target" in
trace_loader) traces ;;
logdir) traces; cp "$fixtures"/fuzz/logdir/* "$dir/" ;;
summary | job) cp "$fixtures"/fuzz/summary/* "$fixtures"/fuzz/regressions/summary/* "$dir/" ;;
session | memory) cp "$fixtures/fuzz/$target"/* "$fixtures/fuzz/regressions/$target"/* "$dir/" ;;
traced_inputs | worker_protocol | snapshot | mcp_protocol) cp "$fixtures/fuzz/$target"/* "$dir/" ;;
*) echo "make_seed_corpus.sh: no seeds for '$target'" >&2; exit 2 ;;
esac
