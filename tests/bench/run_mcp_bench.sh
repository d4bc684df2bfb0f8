#!/bin/sh
# The MCP server against the CLI on a big trace: generates a ~1 GB Kineto trace from the H100
# BERT fixture (in $TMPDIR, removed afterwards unless KEEP=1 or it was there already), then runs
# mcp_bench: the server opens it once and answers ops twice, critical_path and summary; the CLI
# reparses it for ops twice. Use a release build.
#   tests/bench/run_mcp_bench.sh BUILD_DIR [TARGET_MB]
set -eu
build=${1:?build dir}
mb=${2:-1024}
here=$(cd "$(dirname "$0")" && pwd)
fixture="$here/../fixtures/traces/gaunernst_bert-small-uncased__1016001.json.gz"
big=${TMPDIR:-/tmp}/pyrometer_bench_${mb}MB.json
generated=0
cleanup() { if [ "$generated" = 1 ] && [ "${KEEP:-0}" != 1 ]; then rm -f "$big"; fi; }
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ ! -f "$big" ]; then
    generated=1
    "$build/tests/bench/trace_bench_generate" "$fixture" "$big" "$mb"
fi
cat "$big" > /dev/null # warm the page cache
"$build/tests/bench/mcp_bench" "$build/app/cli/pyrometer-cli" "$big"
