#!/bin/sh
# Remakes the committed fuzzing seeds under tests/fixtures/fuzz from the fixture traces: what
# the smoke tests (ctest -L fuzz) and the libFuzzer runs start from.
#   tests/fuzz/make_fixture_seeds.sh BUILD_DIR     (BUILD_DIR holds app/cli/pyrometer-cli)
#  summary/        pyrometer-cli summarize of fixture traces (paths relative to
#                  tests/fixtures/traces), two merges, and a rank in the older format
#                  (five-column steps, six-column collectives, no process groups)
#  session/        sessions in the format session::toJson writes: a full one, an older one
#  memory/         memory files in the launcher's format (resources/recorder/pyrometer_record.py):
#                  its samples at step boundaries, the profiler's timeline, columns reordered
#  traced_inputs/  the dict {"forward": [inputs]} that torch.jit.trace keeps as traced_inputs.pkl,
#                  pickled by torch.save (the same persistent ids) with lists and dicts batched as
#                  libtorch's pickler batches them, then its tensors' storages,
#                  each after a "\n@record\n" line (fuzz_traced_inputs.cpp's framing)
#  logdir/         several fixture traces in one input, each followed by 0x1e, then the byte
#                  that picks the folder's layout (fuzz_logdir.cpp's framing)
# Needs Debian's /usr/bin/python3 with python3-torch.
set -eu
build=$(cd "${1:?build directory}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
fixtures=$here/../fixtures
out=$fixtures/fuzz
cli=$build/app/cli/pyrometer-cli
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
rm -rf "$out/summary" "$out/session" "$out/memory" "$out/traced_inputs" "$out/logdir"
mkdir -p "$out/summary" "$out/session" "$out/memory" "$out/traced_inputs" "$out/logdir"

# Summaries name their traces as given: relative paths, the same on every machine.
(
    cd "$fixtures/traces"
    for r in 0 1 2 3; do "$cli" summarize "groups/rank-$r.json" -o "$scratch/groups-$r.summary.json"; done
    "$cli" summarize multirank/sampled_rank-0.json.gz -o "$scratch/sampled-0.summary.json"
    "$cli" summarize multirank/sampled_rank-1.json.gz -o "$scratch/sampled-1.summary.json"
    "$cli" summarize collective_args.json -o "$out/summary/collective_args.summary.json"
    "$cli" summarize mi250_minitoy_train_ROCm6_2_kineto.json.gz -o "$out/summary/mi250.summary.json"
)
cp "$scratch/groups-0.summary.json" "$out/summary/groups-0.summary.json"
"$cli" merge "$scratch"/groups-?.summary.json -o "$out/summary/groups-job.json" 2>/dev/null
"$cli" merge "$scratch"/sampled-?.summary.json -o "$out/summary/sampled-job.json" 2>/dev/null

/usr/bin/python3 - "$out" <<'EOF'
import json, os, sys, zipfile, io
import torch

out = sys.argv[1]

# A rank as summaries were written before steps kept their GPU span and exposed communication
# and before collectives named their process group.
rank = json.load(open(os.path.join(out, "summary", "groups-0.summary.json")))
figures = rank["rank"]["figures"]
figures["steps"] = [s[:5] for s in figures["steps"]]
figures["collectives"] = [c[:6] for c in figures["collectives"]]
for key in ("collective_groups", "collective_groups_columns"):
    figures.pop(key, None)
with open(os.path.join(out, "summary", "older.summary.json"), "w") as f:
    json.dump(rank, f, separators=(",", ":"))

# Sessions, keys in toJson's order, indented as writeSession writes them.
full = {
    "pyrometer_session": 1,
    "traces": ["/data/runs/a.pt.trace.json", "/data/runs/b.json.gz"],
    "models": ["/data/models/model.pt"],
    "jobs": [{"files": ["/data/job/rank-0.json.gz", "/data/job/rank-1.json.gz"]}, {"files": ["/data/job2/r0.json"]}],
    "currentTrace": "/data/runs/b.json.gz",
    "currentPage": "timeline",
    "ranges": [{"trace": "/data/runs/a.pt.trace.json", "startNs": 1712195495519689047, "endNs": 1712195495519999000},
               {"trace": "/data/runs/b.json.gz", "startNs": -5, "endNs": 7}],
    "bookmarks": [{"trace": "/data/runs/a.pt.trace.json", "name": "slow step", "startNs": 100, "endNs": 2500},
                  {"trace": "/data/runs/b.json.gz", "name": "spike \u00b5", "startNs": 42, "endNs": 42}],
    "runs": [{"model": "/data/models/model.pt", "inputs": "1x3x224x224,1x10:int64", "mode": "train", "threads": 4,
              "warmup": 3, "iterations": 20, "coldMs": 81.5, "meanMs": 4.25, "stdMs": 0.125, "p50Ms": 4.0,
              "p90Ms": 5.5, "p99Ms": 6.75, "throughputPerSecond": 235.3, "forwardMs": 4.5,
              "peakMemoryBytes": 123456789, "totalFlops": 3.6e9, "tracePath": "/data/models/model-1.pt.trace.json"}],
    "comparison": {"baseline": "/data/runs/a.pt.trace.json", "other": "/data/runs/b.json.gz", "threshold": 5},
    "pages": {"flamegraph": {"focus": "aten::conv2d"}},
}
older = {"pyrometer_session": 1, "traces": ["/t.json"], "currentPage": "overview"}
for name, state in (("full.pyrometer", full), ("older.pyrometer", older)):
    with open(os.path.join(out, "session", name), "w") as f:
        f.write(json.dumps(state, indent=2, ensure_ascii=False) + "\n")

# Memory files.
categories = ["parameters", "gradients", "optimizer_state", "activations", "inputs", "temporaries", "other"]
samples = []
t = 0.0
for step in range(5):
    recorded = 2 <= step <= 3
    for phase, activations, gradients in (("forward_start", 0, 4096 if step else 0), ("forward_end", 65536, 4096 if step else 0), ("step_end", 0, 4096)):
        t += 0.0125
        sample = {"t": round(t, 6), "step": step, "phase": phase, "recorded": recorded,
                  "bytes": [4096, gradients, 8192 if step else 0, activations, 1536, 0, 512 * step]}
        if recorded:
            sample["profiler_step"] = step - 1
        samples.append(sample)
launcher = {"format": 1, "source": "launcher", "device": "cpu", "allocator": "torch.cuda.memory_allocated",
            "baseline_bytes": 1048576, "resolution": "3 samples per step (forward start, forward end, step end)",
            "categories": categories, "samples": samples}
profiler = {"format": 1, "source": "profiler", "device": "cuda:0", "allocator": "torch profiler memory timeline",
            "baseline_bytes": 0, "resolution": "every allocation and free of the recorded steps",
            "categories": categories,
            "samples": [{"t": round(i * 1.5e-5, 6), "step": -1, "phase": "event", "recorded": True,
                         "bytes": [4096, 4096 * (i % 2), 0, 1024 * i, 1536, 256 * (i % 3), 0]} for i in range(12)]}
reordered = {"format": 1, "source": "launcher", "categories": ["other", "parameters", "mystery"],
             "samples": [{"t": 0.5, "step": 2, "phase": "step_end", "recorded": True, "bytes": [10, 20, 5]}]}
for name, document in (("launcher.pt.memory.json", launcher), ("profiler.pt.memory.json", profiler),
                       ("reordered.pt.memory.json", reordered)):
    with open(os.path.join(out, "memory", name), "w") as f:
        json.dump(document, f)

# traced_inputs.pkl as torch.save pickles the dict, and its storages as records. libtorch's
# own pickler writes lists and dicts as MARK ... APPENDS / SETITEMS whatever their length (and
# nothing when empty), and libtorch 1.13 reads no APPEND or SETITEM: Python's pickler is told to
# batch as it does.
import pickle, types

class BatchingPickler(pickle._Pickler):
    def _batch_appends(self, items):
        items = list(items)
        if not items:
            return
        self.write(pickle.MARK)
        for item in items:
            self.save(item)
        self.write(pickle.APPENDS)

    def _batch_setitems(self, items):
        items = list(items)
        if not items:
            return
        self.write(pickle.MARK)
        for key, value in items:
            self.save(key)
            self.save(value)
        self.write(pickle.SETITEMS)

batching = types.SimpleNamespace(Pickler=BatchingPickler, __name__="pickle")

def traced(name, value):
    buffer = io.BytesIO()
    torch.save(value, buffer, pickle_module=batching)
    archive = zipfile.ZipFile(io.BytesIO(buffer.getvalue()))
    names = archive.namelist()
    pickle = archive.read(next(n for n in names if n.endswith("/data.pkl")))
    storages = sorted((n for n in names if "/data/" in n), key=lambda n: int(n.rsplit("/", 1)[1]))
    with open(os.path.join(out, "traced_inputs", name), "wb") as f:
        f.write(pickle)
        for storage in storages:
            f.write(b"\n@record\n" + archive.read(storage))

traced("one_image.bin", {"forward": [torch.zeros(1, 3, 8, 8)]})
traced("two_inputs.bin", {"forward": [torch.zeros(3, 8), torch.zeros(3, 5, dtype=torch.int64)]})
traced("dtypes.bin", {"forward": [torch.zeros(2, dtype=torch.bool), torch.zeros(2, 2, dtype=torch.float16),
                                  torch.zeros(4, dtype=torch.uint8), torch.zeros((), dtype=torch.float64)]})
traced("not_tensors.bin", {"forward": [torch.zeros(2, 2), 3, "text"], "other": []})
EOF

# Log folders: rank traces that make a job (names rank-N, plain, then gzipped), and two
# small traces in two runs with the folder's odd things.
sep=$(printf '\036')
join() { # join SELECTOR FILE...: the files cut by 0x1e, then 0x1e and the selector byte
    selector=$1
    shift
    for f in "$@"; do
        cat "$f"
        printf '%s' "$sep"
    done
    printf "\\$(printf '%03o' "$selector")"
}
t=$fixtures/traces
join 2 "$t"/groups/rank-0.json "$t"/groups/rank-1.json "$t"/groups/rank-2.json "$t"/groups/rank-3.json >"$out/logdir/groups.bin"
join 18 "$t"/groups/rank-0.json "$t"/groups/rank-1.json >"$out/logdir/groups-gzipped.bin"
join 200 "$t"/debian_legacy_linear.json "$t"/collective_args.json "$t"/diff_base.json >"$out/logdir/two-runs.bin"
join 40 "$t"/diff_base.json "$t"/diff_other.json >"$out/logdir/gz-names.bin"
du -sh "$out"
