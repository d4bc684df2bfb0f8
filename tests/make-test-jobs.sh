#!/bin/sh
# Makes the distributed jobs that tests read, from one committed rank trace:
#   make-test-jobs.sh SCRIPT SOURCE OUT
# OUT/job8: 8 ranks, rank 5 computing 1.5x longer; OUT/job16: 16 ranks, rank 11 so (the Slurm
# job array's test); OUT/job64: 64 ranks, rank 17 so.
# Stale ranks are removed first, so a job never mixes two generations.
set -eu
script=$1
source=$2
out=$3
rm -rf "$out/job8" "$out/job16" "$out/job64"
mkdir -p "$out"
/usr/bin/python3 "$script" "$source" "$out/job8" --ranks 8 --slow-rank 5 --slow-factor 1.5 --seed 8
/usr/bin/python3 "$script" "$source" "$out/job16" --ranks 16 --slow-rank 11 --slow-factor 1.5 --seed 16
/usr/bin/python3 "$script" "$source" "$out/job64" --ranks 64 --slow-rank 17 --slow-factor 1.5 --seed 64
