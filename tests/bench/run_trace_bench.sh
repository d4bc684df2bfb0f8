#!/bin/sh
# Trace loading benchmark: generates a ~600 MB Kineto trace from a fixture (once, in /tmp),
# then times a bare simdjson On-Demand pass, Pyrometer's loader and Python's json.load on it.
#   tests/bench/run_trace_bench.sh BUILD_DIR [TARGET_MB]
set -eu
build=${1:?build dir}
mb=${2:-600}
here=$(cd "$(dirname "$0")" && pwd)
fixture="$here/../fixtures/traces/gaunernst_bert-small-uncased__1016001.json.gz"
big=/tmp/pyrometer_bench_${mb}MB.json
[ -f "$big" ] || "$build/tests/bench/trace_bench_generate" "$fixture" "$big" "$mb"
cat "$big" > /dev/null # warm the page cache: we measure parsing, not the disk
"$build/tests/bench/trace_bench_load" simdjson "$big"
"$build/tests/bench/trace_bench_load" pyrometer "$big"
/usr/bin/python3 -c "
import json, time, resource, sys
t = time.perf_counter(); d = json.load(open(sys.argv[1])); s = time.perf_counter() - t
print('python-json-load events=%d seconds=%.3f peak_rss_MB=%.0f' % (len(d['traceEvents']), s,
      resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))" "$big"
