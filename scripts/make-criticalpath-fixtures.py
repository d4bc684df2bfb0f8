#!/usr/bin/python3
"""Makes the critical-path goldens, independently of Pyrometer's C++ code.

For every fixture trace, the window each critical path must cover, computed from the raw JSON:
per ProfilerStep#N op (in time order), the step's span on the GPU's clock (scripts/stepspans.py:
from the later of its CPU start and the previous step's end to the later of its CPU end and the
end of the device work it launched), and how many device events the step launched (matched by
correlation id from the runtime / driver calls that begin in the step on a CPU thread); for the
whole trace, its first start and its last end.

Outputs tests/fixtures/analysis/<fixture>.criticalpath.csv; run again after changing this script:
    /usr/bin/python3 scripts/make-criticalpath-fixtures.py
"""
import csv
import gzip
import json
import os
import re
import sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stepspans  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "analysis")
TRACES = os.path.join(ROOT, "tests", "fixtures", "traces")

FIXTURES = {
    "torch_cpu_cnn": os.path.join(OUT, "torch_cpu_cnn.json"),
    "a100_alexnet": os.path.join(TRACES, "benchmark_result_2869224_1695835535_trace.json.gz"),
    "mi250_rocm": os.path.join(TRACES, "mi250_minitoy_train_ROCm6_2_kineto.json.gz"),
    "cpu_gloo": os.path.join(TRACES, "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"),
    "h100_bert": os.path.join(TRACES, "gaunernst_bert-small-uncased__1016001.json.gz"),
    "kineto_unordered": os.path.join(TRACES, "before_fix_trace.json"),
    "v100_resnet50": os.path.join(TRACES, "tb_logdir/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"),
}

OP_CATS = {"cpu_op", "user_annotation", "operator"}
CALL_CATS = {"cuda_runtime", "cuda_driver", "runtime", "cuda_sync"}
DEVICE_CATS = {"kernel", "gpu_memcpy", "memcpy", "gpu_memset", "memset"}


def ns(value):
    return int((Decimal(str(value)) * 1000).to_integral_value())


def fmt(value_ns):
    return "%.3f" % (Decimal(value_ns) / 1000)


def entity(v):
    if isinstance(v, str) and v.isdigit() and not v.startswith("0"):
        return int(v)
    return v


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        data = json.load(f, parse_float=Decimal)
    return data["traceEvents"] if isinstance(data, dict) else data


def windows(events):
    """Rows (step, start_ns, end_ns, device_events): each ProfilerStep op, then the whole trace."""
    slices = []
    device_tracks = set()
    for e in events:
        if e.get("ph") != "X":
            continue
        cat = (e.get("cat") or "").lower()
        track = (entity(e.get("pid")), entity(e.get("tid")))
        start = ns(e["ts"])
        end = start + ns(e.get("dur", 0))
        corr = e.get("args", {}).get("correlation")
        if cat in DEVICE_CATS:
            device_tracks.add(track)
            kind = "device"
        elif cat in OP_CATS or "cat" not in e:
            kind = "op"
        elif cat in CALL_CATS:
            kind = "call"
        else:
            continue
        slices.append({"kind": kind, "name": e.get("name", ""), "track": track, "start": start, "end": end,
                       "corr": corr})
    cpu = [s for s in slices if s["kind"] != "device" and s["track"] not in device_tracks]
    device = [s for s in slices if s["kind"] == "device"]
    steps = sorted((s for s in cpu if s["kind"] == "op" and re.fullmatch(r"ProfilerStep#\d+", s["name"])),
                   key=lambda s: s["start"])
    spans = stepspans.spans(events)[0]
    assert [s["name"] for s in spans] == [s["name"] for s in steps]
    rows = []
    for step, span in zip(steps, spans):
        start, end = step["start"], step["end"]
        calls = [s for s in cpu if s["kind"] == "call" and start <= s["start"] < end]
        corrs = {s["corr"] for s in calls if s["corr"] is not None and s["corr"] >= 0}
        launched = [d for d in device if d["corr"] in corrs and d["start"] >= start]
        rows.append((step["name"], span["start"], span["end"], len(launched)))
    # The whole trace: every CPU op and call, every device event.
    everything = [s for s in cpu if s["kind"] in ("op", "call")] + device
    if everything:
        rows.append(("trace", min(s["start"] for s in everything), max(s["end"] for s in everything), len(device)))
    return rows


def main():
    for name, path in FIXTURES.items():
        rows = windows(load(path))
        out = os.path.join(OUT, name + ".criticalpath.csv")
        with open(out, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["step", "start_us", "end_us", "device_events"])
            for step, start, end, count in rows:
                w.writerow([step, fmt(start), fmt(end), count])
        print(out, len(rows), "rows")


if __name__ == "__main__":
    main()
