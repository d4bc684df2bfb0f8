#!/bin/sh
# Fills DIR with fuzzing seeds: every fixture trace, decompressed, plus a few gzipped ones.
#   tests/fuzz/make_seed_corpus.sh DIR
set -eu
dir=${1:?directory}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
for f in "$here"/../fixtures/traces/*.json "$here"/../fixtures/traces/*.json.gz; do
    name=$(basename "$f")
    case "$f" in
    *.gz) cp "$f" "$dir/$name"; zcat "$f" | head -c 65536 > "$dir/${name%.gz}.head" ;;
    *) head -c 65536 "$f" > "$dir/$name" ;;
    esac
done
