#!/usr/bin/python3
"""Makes the golden per-rank figures of the two real ranks in tests/fixtures/traces/multirank
with plain Python, independently of Pyrometer's C++ code.

    /usr/bin/python3 scripts/make-distributed-fixtures.py

Writes tests/fixtures/analysis/multirank.ranks.json: per rank, the steps (ProfilerStep#N CPU
annotations) with the computation and communication each launched (scripts/stepspans.py: a
kernel belongs to the step whose CPU span contains its launching call, not to the one it runs
in), the window (first step's start to last step's span end: the later of its CPU end and the
end of its device work), and the unions over all streams, clipped to the window, of computation (kernels without nccl/rccl in their name),
communication (kernels with it) and memory (gpu_memcpy, gpu_memset); idle is the window less
their union, overlap the length of computation intersected with communication. Times are in
nanoseconds, from the file's microseconds (read as decimals) rounded to the nearest nanosecond;
instants since the epoch are written as strings, which JSON readers keep exact.
"""
import decimal
import gzip
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TRACES = os.path.join(ROOT, "tests", "fixtures", "traces", "multirank")
OUT = os.path.join(ROOT, "tests", "fixtures", "analysis", "multirank.ranks.json")
sys.path.insert(0, HERE)
import stepspans  # noqa: E402


def ns(us):
    # Decimal: epoch microseconds have more digits than a double keeps.
    return int((decimal.Decimal(us) * 1000).to_integral_value(decimal.ROUND_HALF_EVEN))


def union(intervals):
    merged = []
    for a, b in sorted(intervals):
        if b <= a:
            continue
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return merged


def length(spans):
    return sum(b - a for a, b in spans)


def clip(spans, lo, hi):
    return [[max(a, lo), min(b, hi)] for a, b in spans if min(b, hi) > max(a, lo)]


def intersect(x, y):
    out = []
    for a, b in x:
        for c, d in y:
            lo, hi = max(a, c), min(b, d)
            if lo < hi:
                out.append([lo, hi])
    return union(out)


def figures(path):
    with gzip.open(path, "rt") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    events = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
    steps, step_of = stepspans.spans(events)
    compute, comm, memory = [], [], []
    own = [([], []) for _ in steps]  # per step: its computation, its communication
    for e in events:
        span = (ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]))
        cat = e.get("cat")
        if cat == "kernel":
            name = e["name"].lower()
            kind = 1 if "nccl" in name or "rccl" in name else 0
            (comm if kind else compute).append(span)
            if step_of[id(e)] is not None:
                own[step_of[id(e)]][kind].append(span)
        elif cat in ("gpu_memcpy", "gpu_memset"):
            memory.append(span)
    lo, hi = steps[0]["start"], steps[-1]["end"]
    c = clip(union(compute), lo, hi)
    m = clip(union(comm), lo, hi)
    mem = clip(union(memory), lo, hi)
    busy = union(c + m + mem)
    info = doc["distributedInfo"]
    return {
        "file": os.path.basename(path),
        "rank": info["rank"],
        "world_size": info["world_size"],
        "steps": [{"name": s["name"], "start_ns": str(s["cpu_start"]), "duration_ns": s["cpu_end"] - s["cpu_start"],
                   "compute_ns": length(union(own[i][0])), "communication_ns": length(union(own[i][1]))}
                  for i, s in enumerate(steps)],
        "window_start_ns": str(lo),
        "window_end_ns": str(hi),
        "compute_ns": length(c),
        "communication_ns": length(m),
        "memory_ns": length(mem),
        "idle_ns": (hi - lo) - length(busy),
        "overlap_ns": length(intersect(c, m)),
        "annotated_collectives": sorted(e["name"] for e in events if e["name"].startswith("nccl:")),
    }


def main():
    ranks = [figures(os.path.join(TRACES, name)) for name in sorted(os.listdir(TRACES))]
    with open(OUT, "w") as f:
        json.dump({"ranks": ranks}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
