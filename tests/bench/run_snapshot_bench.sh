#!/bin/sh
# Python's pickle.load against Pyrometer's reader on the same large snapshot, same run.
#   tests/bench/run_snapshot_bench.sh BUILD_DIR SOURCE_SNAPSHOT [SIZE_MB=1000]
# BUILD_DIR is a release build (cmake --preset release; cmake --build build/release --target snapshot_bench).
set -e
build=$1; src=$2; size=${3:-1000}
big=${TMPDIR:-/tmp}/pyrometer-big-snapshot.pickle
[ -f "$big" ] || /usr/bin/python3 "$(dirname "$0")/make_big_snapshot.py" "$src" "$big" "$size"
ls -l "$big"
echo "== python3 pickle.load"
/usr/bin/time -f "python: %e s wall, %M KiB peak RSS" /usr/bin/python3 -c "import pickle,sys; pickle.load(open(sys.argv[1],'rb'))" "$big"
echo "== pyrometer"
/usr/bin/time -f "pyrometer: %e s wall, %M KiB peak RSS" "$build/tests/bench/snapshot_bench" "$big"
