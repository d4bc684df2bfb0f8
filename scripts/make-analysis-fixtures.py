#!/usr/bin/python3
"""Makes the analysis golden files, independently of Pyrometer's C++ code.

1. Records a small CPU model with Debian's python3-torch (no Kineto, so torch.profiler writes the
   legacy bare-array trace) and dumps prof.key_averages() next to it: the ops table must agree
   with it exactly.
2. For every real fixture trace, computes the tables from the JSON with plain Python (exact
   decimal timestamps, torch's own nesting rule) and writes them as golden CSV/text.

Outputs go to tests/fixtures/analysis/; run again after changing this script:
    /usr/bin/python3 scripts/make-analysis-fixtures.py [--no-record]
"""
import csv
import gzip
import json
import os
import re
import sys
from collections import defaultdict
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stepspans  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "analysis")
TRACES = os.path.join(ROOT, "tests", "fixtures", "traces")

# Fixture name -> path relative to tests/fixtures/traces (or to OUT for recorded ones).
FIXTURES = {
    "a100_alexnet": "benchmark_result_2869224_1695835535_trace.json.gz",
    "mi250_rocm": "mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "cpu_gloo": "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
    "h100_bert": "gaunernst_bert-small-uncased__1016001.json.gz",
    "kineto_unordered": "before_fix_trace.json",
    "v100_resnet50": "tb_logdir/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
}

OP_CATS = {"cpu_op", "user_annotation", "operator"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "runtime"}
GPU_CATS = {"kernel": "kernel", "gpu_memcpy": "memcpy", "memcpy": "memcpy", "gpu_memset": "memset", "memset": "memset"}


def record(out_dir):
    import torch
    import torch.nn as nn

    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(8 * 3 * 3, 16), nn.ReLU(), nn.Linear(16, 4))
    x = torch.randn(2, 3, 8, 8)
    for _ in range(3):
        model(x).sum().backward()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        for step in range(2):
            with torch.profiler.record_function("ProfilerStep#%d" % step):
                model(x).sum().backward()
    trace = os.path.join(out_dir, "torch_cpu_cnn.json")
    prof.export_chrome_trace(trace)
    with open(os.path.join(out_dir, "torch_cpu_cnn.key_averages.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["name", "calls", "total_us", "self_us"])
        for e in sorted(prof.key_averages(), key=lambda e: e.key):
            w.writerow([e.key, e.count, repr(float(e.cpu_time_total)), repr(float(e.self_cpu_time_total))])


def ns(value):
    return int((Decimal(str(value)) * 1000).to_integral_value())


def entity(v):
    if isinstance(v, str) and v.isdigit() and not v.startswith("0"):
        return int(v)
    return v


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        data = json.load(f, parse_float=Decimal)
    return data["traceEvents"] if isinstance(data, dict) else data


def fmt(value_ns):
    return "%.3f" % (Decimal(value_ns) / 1000)


def analyse(events):
    """Ops (torch's nesting rule), device time through correlation ids, memory attribution."""
    threads = defaultdict(list)
    gpu = []
    runtime_corr = {}
    mem = []
    for e in events:
        cat = (e.get("cat") or "").lower()
        ph = e.get("ph")
        if ph == "i" and e.get("name") == "[memory]":
            a = e.get("args", {})
            mem.append(e)
            continue
        if ph != "X":
            continue
        key = (entity(e.get("pid")), entity(e.get("tid")))
        start, dur = ns(e["ts"]), ns(e.get("dur", 0))
        if cat in OP_CATS or "cat" not in e:
            threads[key].append({"name": e["name"], "start": start, "end": start + dur, "dur": dur, "op": True,
                                 "self": dur, "dev_self": 0, "children": [], "parent": None})
        elif cat in RUNTIME_CATS:
            threads[key].append({"name": e["name"], "start": start, "end": start + dur, "dur": dur, "op": False,
                                 "corr": e.get("args", {}).get("correlation")})
        elif cat in GPU_CATS:
            a = e.get("args", {})
            gpu.append({"name": e["name"], "kind": GPU_CATS[cat], "start": start, "dur": dur,
                        "corr": a.get("correlation"), "device": a.get("device", e.get("pid")), "stream": a.get("stream")})
    ops = []
    for key, evs in threads.items():
        evs.sort(key=lambda x: (x["start"], -x["end"]))
        stack = []
        for ev in evs:
            if ev["op"]:
                while stack:
                    p = stack[-1]
                    if ev["start"] >= p["end"] or ev["end"] > p["end"]:
                        stack.pop()
                    else:
                        p["children"].append(ev)
                        ev["parent"] = p
                        p["self"] -= ev["dur"]
                        break
                stack.append(ev)
                ops.append(ev)
            else:
                while stack and ev["start"] >= stack[-1]["end"]:
                    stack.pop()
                owner = stack[-1] if stack and ev["end"] <= stack[-1]["end"] else None
                if ev["corr"] is not None and ev["corr"] not in runtime_corr:
                    runtime_corr[ev["corr"]] = owner
    for k in gpu:
        owner = runtime_corr.get(k["corr"]) if k["corr"] is not None else None
        k["op"] = owner["name"] if owner else ""
        if owner:
            owner["dev_self"] += k["dur"]

    def dev_total(op):
        if "dev_total" not in op:
            op["dev_total"] = op["dev_self"] + sum(dev_total(c) for c in op["children"])
        return op["dev_total"]

    sys.setrecursionlimit(100000)
    for op in ops:
        dev_total(op)
    return ops, gpu, threads


def fold_repeats(ops):
    """torch's EventList._remove_dup_nodes: an op whose parent has its name and no other child is
    dropped and its children become the parent's. Returns the ops key_averages() keeps, with the
    self time and device self time of those dropped added to the op they fold into."""
    kept = []
    for op in sorted(ops, key=lambda o: (o["start"], -o["end"])):  # parents before children
        op["kept"] = dict(op)
        op["into"] = None
        op["nchildren"] = len(op["children"])
        parent = op["parent"]
        if parent is not None and parent["into"] is not None:
            parent = parent["into"]
        if parent is not None and parent["name"] == op["name"] and parent["nchildren"] == 1:
            op["into"] = parent
            parent["nchildren"] = len(op["children"])
            parent["kept"]["self"] += op["self"]
            parent["kept"]["dev_self"] += op["dev_self"]
        else:
            kept.append(op)
    return [op["kept"] for op in kept]


def write_ops(path, ops):
    rows = defaultdict(lambda: {"calls": 0, "total": 0, "self": 0, "min": None, "max": None, "dself": 0, "dtotal": 0})
    for op in fold_repeats(ops):
        # key_averages() folds every ProfilerStep#N into one "ProfilerStep*" row.
        r = rows["ProfilerStep*" if re.fullmatch(r"ProfilerStep#\d+", op["name"]) else op["name"]]
        r["calls"] += 1
        r["total"] += op["dur"]
        r["self"] += op["self"]
        r["min"] = op["dur"] if r["min"] is None else min(r["min"], op["dur"])
        r["max"] = op["dur"] if r["max"] is None else max(r["max"], op["dur"])
        r["dself"] += op["dev_self"]
        r["dtotal"] += op["dev_total"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["name", "calls", "total_us", "self_us", "min_us", "max_us", "device_self_us", "device_total_us"])
        for name in sorted(rows):
            r = rows[name]
            w.writerow([name, r["calls"], fmt(r["total"]), fmt(r["self"]), fmt(r["min"]), fmt(r["max"]),
                        fmt(r["dself"]), fmt(r["dtotal"])])


def write_kernels(path, gpu):
    rows = defaultdict(lambda: {"count": 0, "total": 0, "min": None, "max": None})
    for k in gpu:
        r = rows[(k["kind"], k["name"])]
        r["count"] += 1
        r["total"] += k["dur"]
        r["min"] = k["dur"] if r["min"] is None else min(r["min"], k["dur"])
        r["max"] = k["dur"] if r["max"] is None else max(r["max"], k["dur"])
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kind", "name", "count", "total_us", "min_us", "max_us"])
        for key in sorted(rows):
            r = rows[key]
            w.writerow([key[0], key[1], r["count"], fmt(r["total"]), fmt(r["min"]), fmt(r["max"])])


def write_flame(path, ops):
    stacks = defaultdict(int)
    for op in ops:
        names = []
        p = op
        while p is not None:
            names.append(p["name"])
            p = p["parent"]
        stacks[";".join(reversed(names))] += op["self"]
    with open(path, "w") as f:
        for stack in sorted(stacks):
            f.write("%s %s\n" % (stack, fmt(stacks[stack])))


def write_memory(path, events):
    peaks = {}
    running = defaultdict(int)
    for e in sorted((e for e in events if e.get("ph") == "i" and e.get("name") == "[memory]"), key=lambda e: ns(e["ts"])):
        a = e.get("args", {})
        dtype, did = int(a.get("Device Type", 0)), int(a.get("Device Id", 0))
        device = "cpu" if dtype == 0 else ("cuda:%d" % did if dtype == 1 else "device%d:%d" % (dtype, did))
        running[device] += int(a.get("Bytes", 0))
        level = int(a["Total Allocated"]) if "Total Allocated" in a else running[device]
        peaks[device] = max(peaks.get(device, level), level)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["device", "peak_bytes"])
        for device in sorted(peaks):
            w.writerow([device, peaks[device]])


PRIORITY = ["kernel", "memcpy", "memset", "runtime", "dataloader", "cpu_exec"]


def write_steps(path, events, ops, gpu, threads):
    # Each step over its span on the GPU's clock (scripts/stepspans.py): from its CPU start, or
    # the previous step's end, to the later of its CPU end and the end of the device work it
    # launched; within it, whatever ran then counts, by the categories' priority.
    steps = stepspans.spans(events)[0]
    intervals = []  # (start, end, category)
    for k in gpu:
        intervals.append((k["start"], k["start"] + k["dur"], k["kind"]))
    for evs in threads.values():
        for ev in evs:
            if not ev["op"]:
                intervals.append((ev["start"], ev["end"], "runtime"))
            elif ev["name"].startswith("enumerate(DataLoader)"):
                intervals.append((ev["start"], ev["end"], "dataloader"))
            elif not re.fullmatch(r"ProfilerStep#\d+", ev["name"]):
                intervals.append((ev["start"], ev["end"], "cpu_exec"))
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["step", "duration_us"] + [c + "_us" for c in PRIORITY] + ["other_us"])
        for i, step in enumerate(steps):
            s, t = step["start"], step["end"]
            # Boundaries clipped to the step; at each elementary segment the highest category wins.
            points = []
            for a, b, c in intervals:
                a, b = max(a, s), min(b, t)
                if a < b:
                    points.append((a, 1, c))
                    points.append((b, -1, c))
            points.sort(key=lambda p: p[0])
            active = defaultdict(int)
            totals = defaultdict(int)
            last = s
            j = 0
            while j < len(points):
                x = points[j][0]
                if x > last:
                    cat = next((c for c in PRIORITY if active[c] > 0), "other")
                    totals[cat] += x - last
                    last = x
                while j < len(points) and points[j][0] == x:
                    active[points[j][2]] += points[j][1]
                    j += 1
            if t > last:
                totals["other"] += t - last
            w.writerow([step["name"], fmt(t - s)] + [fmt(totals[c]) for c in PRIORITY] + [fmt(totals["other"])])


def main():
    os.makedirs(OUT, exist_ok=True)
    if "--no-record" not in sys.argv:
        record(OUT)
    fixtures = dict(FIXTURES)
    fixtures["torch_cpu_cnn"] = os.path.join(OUT, "torch_cpu_cnn.json")
    for name, rel in fixtures.items():
        events = load(os.path.join(TRACES, rel))
        ops, gpu, threads = analyse(events)
        write_ops(os.path.join(OUT, name + ".ops.csv"), ops)
        write_kernels(os.path.join(OUT, name + ".kernels.csv"), gpu)
        write_flame(os.path.join(OUT, name + ".flame.txt"), ops)
        write_memory(os.path.join(OUT, name + ".memory.csv"), events)
        write_steps(os.path.join(OUT, name + ".steps.csv"), events, ops, gpu, threads)


if __name__ == "__main__":
    main()
