#!/usr/bin/python3
"""Makes the golden files of the kernel-type breakdown and the repeated kernel sequences,
independently of Pyrometer's C++ code (stdlib only, exact decimal timestamps).

For h100_bert, a100_alexnet, mi250_rocm and v100_resnet50 it writes into tests/fixtures/analysis/:
  <fixture>.kerneltypes.csv       type,calls,total_ns over the whole trace
  <fixture>.kerneltypes-step.csv  step,type,calls,total_ns of the device events the first
                                  ProfilerStep#N launched (scripts/stepspans.py: through the
                                  launching call's correlation id, wherever they run; without a
                                  call, those that start in its CPU span), when the trace has one
and for h100_bert and v100_resnet50 <fixture>.sequences.csv, the most frequent runs of kernels
per stream, counted naively with tuples (no hashing); rotations of one run are one cycle (the
rotation with most occurrences, then the first to occur, stands for it), and a run that is a
shorter one repeated is left out; rows are then taken in rank order, each counting only its
occurrences on kernels no row before it holds (so no kernel is counted twice).

The kernel types follow the rules written at the top of core/analysis/kerneltypes.cpp; they are
written again here as regular expressions. Run again after changing the rules:
    /usr/bin/python3 scripts/make-kerneltype-fixtures.py [--names]
(--names prints every device event name of every GPU fixture with the type it gets.)
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

FIXTURES = {
    "a100_alexnet": "benchmark_result_2869224_1695835535_trace.json.gz",
    "mi250_rocm": "mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "h100_bert": "gaunernst_bert-small-uncased__1016001.json.gz",
    "v100_resnet50": "tb_logdir/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
}
# Every GPU trace of tests/fixtures/traces, for --names.
ALL_GPU = list(FIXTURES.values()) + [
    "multirank/sampled_rank-0.json.gz", "multirank/sampled_rank-1.json.gz", "triton_example.json.gz",
    "collective_args.json",
]

# Categories exactly as core/analysis/eventkind.cpp knows them.
DEVICE_CATS = {"kernel": "kernel", "Kernel": "kernel", "gpu_memcpy": "memcpy", "Memcpy": "memcpy",
               "gpu_memset": "memset", "Memset": "memset"}
OP_CATS = {"cpu_op", "user_annotation", "Operator", "operator"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime", "runtime"}

TYPE_ORDER = ["communication", "memory", "gemm", "convolution", "attention", "normalization", "reduction",
              "elementwise", "triton", "other"]

# (type, pattern) in the order they are tried, on the lower-cased name; the first match wins.
RULES = [
    ("triton", r"^triton_"),
    ("communication", r"nccl|rccl|deep_ep|intranode|internode|notify_dispatch|notify_combine|pplx|"
                      r"cross_device_reduce|nvshmem|msccl|allreduce|all_reduce|allgather|all_gather|"
                      r"reduce_scatter|reducescatter|alltoall|all_to_all"),
    ("attention", r"flash|fmha|sdpa|mem_efficient|attention|attn"),
    ("convolution", r"conv(?!ert)|fprop|dgrad|wgrad|winograd|fft1d|fft2d|im2col|col2im|scudnn|"
                    r"884cudnn|1688cudnn|16816cudnn|cask_cudnn|igemm"),
    ("gemm", r"(?<!fb)gemm|gemv|cutlass|cublas|xmma|wgmma|cijk_|hipblaslt|rocblas|matmul|nvjet|splitkreduce"),
    ("normalization", r"layer_?norm|batch_?norm|group_?norm|instance_?norm|rms_?norm|bn_fw|bn_bw|cudnn::bn|"
                      r"gammabeta|rowwisemoments|softmax"),
    ("reduction", r"reduc|sum_|_sum|cumsum|mean|argmax|argmin|max_?pool|avg_?pool|average_pool|devicescan"),
    ("elementwise", r"elementwise|fill|copy|dropout|multi_tensor_apply|nchwtonhwc|nhwctonchw|transpose|"
                    r"index_?select|scale|relu|gelu|silu|sigmoid|tanh"),
]
COMPILED = [(t, re.compile(p)) for t, p in RULES]


def classify(kind, name):
    if kind in ("memcpy", "memset"):
        return "memory"
    lower = name.lower()
    for t, pattern in COMPILED:
        if pattern.search(lower):
            return t
    return "other"


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


def device_events(events):
    """Complete (ph X) kernels, memcpy and memset, with their launching op through correlation."""
    out = []
    ops = defaultdict(list)  # thread -> ops and runtime calls
    for e in events:
        if e.get("ph") != "X":
            continue
        cat = e.get("cat")
        start, dur = ns(e["ts"]), ns(e.get("dur", 0))
        args = e.get("args") or {}
        if cat in DEVICE_CATS:
            device = args.get("device")
            if device is None:
                device = entity(e.get("pid"))
            stream = args.get("stream")
            if stream is None:
                stream = entity(e.get("tid"))
            out.append({"id": id(e), "kind": DEVICE_CATS[cat], "name": e["name"], "start": start, "dur": dur,
                        "device": device if isinstance(device, int) else -1,
                        "stream": stream if isinstance(stream, int) else -1, "corr": args.get("correlation")})
        elif cat in OP_CATS or cat is None or cat in RUNTIME_CATS:
            ops[(entity(e.get("pid")), entity(e.get("tid")))].append(
                {"name": e["name"], "start": start, "end": start + dur, "op": cat not in RUNTIME_CATS,
                 "corr": args.get("correlation")})
    # A runtime call belongs to the innermost op that encloses it (torch's nesting rule).
    launcher = {}
    for evs in ops.values():
        evs.sort(key=lambda x: (x["start"], -x["end"]))
        stack = []
        for ev in evs:
            while stack and (ev["start"] >= stack[-1]["end"] or ev["end"] > stack[-1]["end"]):
                stack.pop()
            if ev["op"]:
                stack.append(ev)
            elif ev["corr"] is not None and ev["corr"] not in launcher:
                launcher[ev["corr"]] = stack[-1]["name"] if stack else ""
    for k in out:
        k["op"] = launcher.get(k["corr"], "") if k["corr"] is not None else ""
    return out


def write_types(path, device, step=None):
    rows = defaultdict(lambda: [0, 0])
    for k in device:
        r = rows[classify(k["kind"], k["name"])]
        r[0] += 1
        r[1] += k["dur"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow((["step"] if step else []) + ["type", "calls", "total_ns"])
        for t in sorted(rows, key=lambda t: (-rows[t][1], TYPE_ORDER.index(t))):
            w.writerow(([step] if step else []) + [t, rows[t][0], rows[t][1]])


def sequences(device, min_length=2, max_length=16, min_occurrences=3, top=20):
    """Every run of kernels per stream counted naively: non-overlapping, greedy from the left."""
    streams = defaultdict(list)
    for k in device:
        if k["kind"] == "kernel":
            streams[(k["device"], k["stream"])].append(k)
    candidates = []
    for key, ks in streams.items():
        ks.sort(key=lambda k: (k["start"], -k["dur"]))
        names = [k["name"] for k in ks]
        kept = []
        for length in range(min_length, max_length + 1):
            found = {}  # run -> [count, next free position, first position, total, gap]
            for i in range(len(names) - length + 1):
                run = tuple(names[i:i + length])
                f = found.setdefault(run, [0, 0, i, 0, 0])
                if i >= f[1]:
                    f[0] += 1
                    f[1] = i + length
                    f[3] += sum(k["dur"] for k in ks[i:i + length])
                    f[4] += sum(max(0, ks[j + 1]["start"] - (ks[j]["start"] + ks[j]["dur"]))
                                for j in range(i, i + length - 1))
            kept += [(run, f) for run, f in found.items() if f[0] >= min_occurrences]

        def inside(small, big):
            return any(big[j:j + len(small)] == small for j in range(len(big) - len(small) + 1))

        def shorter_cycle(run):
            """A run that is a shorter one (of min_length or more) repeated."""
            return any(len(run) % p == 0 and run == run[:p] * (len(run) // p)
                       for p in range(min_length, len(run)))

        cycles = {}  # (length, least rotation) -> the rotation kept: most occurrences, then first
        for run, f in kept:
            if any(len(b) > len(run) and g[0] == f[0] and inside(run, b) for b, g in kept):
                continue
            if shorter_cycle(run):
                continue
            key_ = (len(run), min(run[r:] + run[:r] for r in range(len(run))))
            if key_ not in cycles or (f[0], -f[2]) > (cycles[key_][1][0], -cycles[key_][1][2]):
                cycles[key_] = (run, f)
        for run, f in cycles.values():
            candidates.append({"device": key[0], "stream": key[1], "run": run, "count": f[0], "first": f[2],
                               "total": f[3], "gap": f[4], "ops": [k["op"] for k in ks[f[2]:f[2] + len(run)]]})
    candidates.sort(key=lambda c: (-c["count"] * len(c["run"]), -c["total"], -len(c["run"]), c["device"],
                                   c["stream"], c["first"]))
    # Rows in rank order, each counting only its occurrences (non-overlapping, from the left) on
    # kernels no row before it holds; of the best top * 8 + 64 candidates.
    claimed = defaultdict(set)
    rows = []
    for c in candidates[:top * 8 + 64]:
        if len(rows) >= top:
            break
        ks = streams[(c["device"], c["stream"])]
        taken = claimed[(c["device"], c["stream"])]
        length = len(c["run"])
        found = []
        i = 0
        while i + length <= len(ks):
            if all(i + k not in taken and ks[i + k]["name"] == c["run"][k] for k in range(length)):
                found.append(i)
                i += length
            else:
                i += 1
        if len(found) < min_occurrences:
            continue
        c = dict(c, count=len(found), total=0, gap=0)
        for i in found:
            for k in range(length):
                taken.add(i + k)
                c["total"] += ks[i + k]["dur"]
                if k + 1 < length:
                    c["gap"] += max(0, ks[i + k + 1]["start"] - (ks[i + k]["start"] + ks[i + k]["dur"]))
        rows.append(c)
    return rows


def write_sequences(path, found):
    for c in found:
        assert not any(";" in n for n in c["run"] + tuple(c["ops"]))
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["device", "stream", "occurrences", "length", "total_ns", "gap_ns", "kernels", "ops"])
        for c in found:
            w.writerow([c["device"], c["stream"], c["count"], len(c["run"]), c["total"], c["gap"], ";".join(c["run"]),
                        ";".join(c["ops"])])


def main():
    if "--names" in sys.argv:
        for rel in ALL_GPU:
            seen = {}
            for k in device_events(load(os.path.join(TRACES, rel))):
                seen[(k["kind"], k["name"])] = classify(k["kind"], k["name"])
            print("=====", rel)
            for (kind, name), t in sorted(seen.items(), key=lambda x: (x[1], x[0])):
                print("%-13s %s" % (t, name[:160]))
        return
    for name, rel in FIXTURES.items():
        events = load(os.path.join(TRACES, rel))
        device = device_events(events)
        write_types(os.path.join(OUT, name + ".kerneltypes.csv"), device)
        steps, step_of = stepspans.spans(events)
        step_path = os.path.join(OUT, name + ".kerneltypes-step.csv")
        if steps:
            write_types(step_path, [k for k in device if step_of[k["id"]] == 0], steps[0]["name"])
        elif os.path.exists(step_path):
            os.remove(step_path)
        if name in ("h100_bert", "v100_resnet50"):
            write_sequences(os.path.join(OUT, name + ".sequences.csv"), sequences(device))
        print("wrote", name)


if __name__ == "__main__":
    main()
