#!/usr/bin/python3
"""Makes the CUDA-graph goldens, independently of Pyrometer's C++ code.

For the real vLLM trace that replays CUDA graphs (tests/fixtures/traces2026), straight from the
JSON, writes tests/fixtures/analysis/vllm_gb10_cudagraphs.graphs.json:
  launches_per_stream   per "device:stream": launches counted as Pyrometer documents them (an
                        eager device event with a runtime/driver call of its correlation id is one
                        launch; the device events of one graph replay, those sharing the
                        correlation id of a *GraphLaunch call, are one launch together)
  replays_per_stream    the replays among them
  graph_events          device events replays ran; eager_events the others
  graph_ids             every graph id > 0, ascending
  graph_kernels         per graph id: device events over all its replays
  device_busy_us        the union of every device event over the trace (the GPU's busy time)
  device_sum_us         the device events' summed durations
  span_us               the trace's span (first start to last end of timed events)
  first_device_us, last_device_us: the device's first start and last end

Rules (the same as core/analysis/graphreplays.h and launches.h document, written again here):
  - correlation ids <= 0 match nothing; a device event is a graph's when its "graph id" > 0 or
    its call is named *GraphLaunch*.

Run again after changing this script:
    /usr/bin/python3 scripts/make-graph-fixtures.py
"""
import gzip
import json
import os
from collections import defaultdict
from decimal import Decimal

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRACE = os.path.join(ROOT, "tests", "fixtures", "traces2026", "vllm_gb10_cudagraphs.pt.trace.json.gz")
OUT = os.path.join(ROOT, "tests", "fixtures", "analysis", "vllm_gb10_cudagraphs.graphs.json")

DEVICE = {"kernel", "gpu_memcpy", "gpu_memset"}
CALLS = {"cuda_runtime", "cuda_driver"}


def ns(value):
    return int((Decimal(str(value)) * 1000).to_integral_value())


def main():
    with gzip.open(TRACE, "rb") as f:
        events = json.loads(f.read(), parse_float=Decimal)["traceEvents"]
    calls = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in CALLS:
            c = e.get("args", {}).get("correlation", -1)
            if c > 0:
                calls.setdefault(c, []).append(e["name"])
    launches = defaultdict(int)
    replays = defaultdict(set)
    graph_events = eager_events = 0
    graph_kernels = defaultdict(int)
    spans = []
    device_sum = 0
    span_start, span_end = None, None
    for e in events:
        if e.get("ph") != "X" or "ts" not in e:
            continue
        start = ns(e["ts"])
        end = start + ns(e.get("dur", 0))
        if e.get("cat") != "Trace":
            span_start = start if span_start is None else min(span_start, start)
            span_end = end if span_end is None else max(span_end, end)
        if e.get("cat") not in DEVICE:
            continue
        args = e.get("args", {})
        spans.append((start, end))
        device_sum += end - start
        c = args.get("correlation", -1)
        names = calls.get(c, []) if c > 0 else []
        graph = args.get("graph id", 0) > 0 or any("GraphLaunch" in n for n in names)
        key = "%d:%d" % (args.get("device", -1), args.get("stream", -1))
        if graph:
            graph_events += 1
            if args.get("graph id", 0) > 0:
                graph_kernels[args["graph id"]] += 1
            if names:
                replays[key].add(c)
        else:
            eager_events += 1
            if names:
                launches[key] += 1
    for key, ids in replays.items():
        launches[key] += len(ids)
    spans.sort()
    busy = 0
    cursor = None
    for start, end in spans:
        if cursor is None or start >= cursor:
            busy += end - start
            cursor = end
        elif end > cursor:
            busy += end - cursor
            cursor = end
    out = {
        "launches_per_stream": dict(sorted(launches.items())),
        "replays_per_stream": {k: len(v) for k, v in sorted(replays.items())},
        "graph_events": graph_events,
        "eager_events": eager_events,
        "graph_ids": sorted(graph_kernels),
        "graph_kernels": {str(k): v for k, v in sorted(graph_kernels.items())},
        "device_busy_us": busy / 1000,
        "device_sum_us": device_sum / 1000,
        "span_us": (span_end - span_start) / 1000,
        "first_device_us": spans[0][0] / 1000,
        "last_device_us": max(e for _, e in spans) / 1000,
    }
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
