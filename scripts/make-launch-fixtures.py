#!/usr/bin/python3
"""Makes the launch-statistics goldens, independently of Pyrometer's C++ code.

For every real GPU fixture trace, matches each device event (kernel, memcpy, memset) with the
runtime or driver call of the same correlation id, straight from the JSON (exact decimal
timestamps), and writes:
  NAME.launches.csv       per kernel name: count, median / p90 / max / total launch delay (ns),
                          mean call and kernel time (ns, truncated), outliers
  NAME.launchqueues.csv   per (device, stream): launches, the longest queue and when it began,
                          the window (first to last queue change), the time in it with nothing
                          queued, and the integral of the queue's length over it (ns x launches)
  NAME.launchdevices.csv  per device: the window over its streams (first to last queue change of
                          any) and the time in it with nothing queued on any stream (the window
                          less the union of the streams' queued stretches)

Rules (the same as core/analysis/launches.h documents, written again here):
  - correlation ids <= 0 match nothing; of several calls with one id, the one that started last
    at or before the device event started, else the one that started first;
  - delay = device event start - call end; median and p90 by nearest rank;
  - outlier: delay > 4 x median of its name and delay - median >= 50 us, a negative median
    counting as 0;
  - queue: +1 at the call's start (the kernel's start when the call began after the kernel
    ended), -1 at the kernel's end, changes at one ns netted.

Outputs go to tests/fixtures/analysis/; run again after changing this script:
    /usr/bin/python3 scripts/make-launch-fixtures.py
"""
import csv
import gzip
import json
import math
import os
import re
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "analysis")
TRACES = os.path.join(ROOT, "tests", "fixtures", "traces")

GPU_FIXTURES = {
    "a100_alexnet": "benchmark_result_2869224_1695835535_trace.json.gz",
    "h100_bert": "gaunernst_bert-small-uncased__1016001.json.gz",
    "mi250_rocm": "mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "kineto_unordered": "before_fix_trace.json",
    "v100_resnet50": "tb_logdir/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
}

RUNTIME = {"cuda_runtime", "cuda_driver", "Runtime", "runtime"}
DEVICE = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
OPS = {"cpu_op", "user_annotation", "Operator", "operator"}

OUTLIER_FACTOR = 4
OUTLIER_MIN_NS = 50000


def ns(us):
    """Microseconds as written (a Decimal, an int) -> ns, rounded half away from zero."""
    return int((Decimal(str(us)) * 1000).to_integral_value(rounding=ROUND_HALF_UP))


def number(value):
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value):
        return int(value)
    return None


def load(name):
    path = os.path.join(TRACES, GPU_FIXTURES[name])
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        data = json.load(f, parse_float=Decimal)
    return data["traceEvents"] if isinstance(data, dict) else data


def read(events):
    """(calls, device events, steps) as dicts with ns times."""
    calls, device, steps = [], [], []
    for e in events:
        if e.get("ph") != "X":
            continue
        cat = e.get("cat")
        args = e.get("args") or {}
        start = ns(e["ts"])
        end = start + ns(e.get("dur", 0))
        if cat in RUNTIME:
            corr = number(args.get("correlation"))
            if corr is not None and corr > 0:
                calls.append({"corr": corr, "start": start, "end": end, "name": e["name"]})
        elif cat in DEVICE:
            dev = number(args.get("device"))
            if dev is None or dev < 0:
                dev = number(e.get("pid"))
            stream = number(args.get("stream"))
            if stream is None or stream < 0:
                stream = number(e.get("tid"))
            device.append({"name": e["name"], "start": start, "end": end, "device": dev, "stream": stream,
                           "corr": number(args.get("correlation"))})
        elif (cat is None or cat in OPS) and re.fullmatch(r"ProfilerStep#\d+", e.get("name", "")):
            steps.append({"name": e["name"], "start": start, "end": end})
    return calls, device, steps


def match(calls, device):
    """Sets d["call"] for every device event with a launching call."""
    by_corr = defaultdict(list)
    for c in calls:
        by_corr[c["corr"]].append(c)
    for d in device:
        d["call"] = None
        candidates = by_corr.get(d["corr"], []) if d["corr"] is not None and d["corr"] > 0 else []
        if not candidates:
            continue
        before = [c for c in candidates if c["start"] <= d["start"]]
        if before:
            d["call"] = max(before, key=lambda c: c["start"])
        else:
            d["call"] = min(candidates, key=lambda c: c["start"])


def rank(values, percent):
    ordered = sorted(values)
    return ordered[max(1, math.ceil(Decimal(percent) * len(ordered) / 100)) - 1]


def launches_of(name):
    calls, device, _ = read(load(name))
    match(calls, device)
    launches = []
    for d in device:
        c = d["call"]
        if c is None:
            continue
        launches.append({"name": d["name"], "device": d["device"], "stream": d["stream"],
                         "delay": d["start"] - c["end"], "call": c["end"] - c["start"],
                         "kernel": d["end"] - d["start"], "call_start": c["start"], "start": d["start"],
                         "end": d["end"]})
    return launches


def write(name):
    launches = launches_of(name)
    by_name = defaultdict(list)
    for l in launches:
        by_name[l["name"]].append(l)
    with open(os.path.join(OUT, name + ".launches.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["name", "count", "delay_median_ns", "delay_p90_ns", "delay_max_ns", "delay_total_ns",
                    "call_mean_ns", "kernel_mean_ns", "outliers"])
        for kernel in sorted(by_name):
            group = by_name[kernel]
            delays = [l["delay"] for l in group]
            median = rank(delays, 50)
            judged = max(median, 0)
            outliers = sum(1 for d in delays if d > OUTLIER_FACTOR * judged and d - judged >= OUTLIER_MIN_NS)
            w.writerow([kernel, len(group), median, rank(delays, 90), max(delays), sum(delays),
                        sum(l["call"] for l in group) // len(group), sum(l["kernel"] for l in group) // len(group),
                        outliers])
    by_stream = defaultdict(list)
    for l in launches:
        by_stream[(l["device"], l["stream"])].append(l)
    queued = defaultdict(list)  # device -> [start, end) stretches with work queued on a stream
    bounds = {}                 # device -> (first, last) queue change
    with open(os.path.join(OUT, name + ".launchqueues.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["device", "stream", "launches", "max_queue", "max_at_ns", "window_ns", "empty_ns", "depth_ns_sum"])
        for key in sorted(by_stream):
            delta = defaultdict(int)
            for l in by_stream[key]:
                delta[l["call_start"] if l["call_start"] <= l["end"] else l["start"]] += 1
                delta[l["end"]] -= 1
            level, best, best_at = 0, 0, 0
            times = sorted(delta)
            empty = depth = 0
            for i, t in enumerate(times):
                level += delta[t]
                if level > best:
                    best, best_at = level, t
                if i + 1 < len(times):
                    span = times[i + 1] - t
                    if level <= 0:
                        empty += span
                    else:
                        depth += level * span
                        queued[key[0]].append((t, times[i + 1]))
            first, last = bounds.get(key[0], (times[0], times[-1]))
            bounds[key[0]] = (min(first, times[0]), max(last, times[-1]))
            w.writerow([key[0], key[1], len(by_stream[key]), best, best_at, times[-1] - times[0], empty, depth])
    with open(os.path.join(OUT, name + ".launchdevices.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["device", "window_ns", "empty_ns"])
        for device in sorted(bounds):
            first, last = bounds[device]
            covered, end = 0, first
            for a, b in sorted(queued[device]):
                a = max(a, end)
                if b > a:
                    covered += b - a
                    end = b
            w.writerow([device, last - first, (last - first) - covered])
    print("%s: %d launches, %d names, %d streams" % (name, len(launches), len(by_name), len(by_stream)))


def main():
    for name in GPU_FIXTURES:
        write(name)


if __name__ == "__main__":
    main()
