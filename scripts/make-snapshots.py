#!/usr/bin/env python3
"""Writes CUDA allocator snapshots with the structure torch.cuda.memory._dump_snapshot() writes
(segments with blocks, device_traces of events with shared frame dicts, allocator_settings,
external_annotations), from a small simulation of the caching allocator, plus damaged and
malicious ones; and the torch.profiler trace of one step of the same run (its [memory] instants
at the allocator's addresses, inside the ops that allocated, on the profiler's own clock). Beside each good snapshot, NAME.expected.json: its figures as
scripts/read-snapshot.py reads them (a restricted pickle.Unpickler), for the tests to compare.

usage: make-snapshots.py OUT_DIR
"""
import gzip
import json
import os
import pickle
import random
import subprocess
import sys

MiB = 1 << 20
CPP = [
    {"name": "torch::unwind::unwind()", "filename": "??", "line": 0},
    {"name": "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(signed char, unsigned long, CUstream_st*)",
     "filename": "CUDACachingAllocator.cpp", "line": 0},
]
TORCH = "/usr/lib/python3/dist-packages/torch/nn/modules"


def frame(name, filename, line):
    return {"name": name, "filename": filename, "line": line}


# Frames are shared dicts, as torch shares them: the pickle refers back to them by memo.
MAIN = frame("<module>", "/work/train.py", 80)
STEP = frame("train_step", "/work/train.py", 55)
BUILD = frame("build", "/work/train.py", 30)
LINEAR = frame("linear", TORCH + "/linear.py", 116)
FWD_MLP = frame("forward", "/work/model.py", 40)
FWD_ATTN = frame("forward", "/work/model.py", 61)
EINSUM = frame("einsum", "/usr/lib/python3/dist-packages/torch/functional.py", 402)
BACKWARD = frame("backward", "/usr/lib/python3/dist-packages/torch/_tensor.py", 521)
ADAM = frame("step", "/usr/lib/python3/dist-packages/torch/optim/adam.py", 166)
UNKNOWN_LINE = frame("run", "/work/train.py", 2**64 - 1)  # torch writes 2^64-1 for "no line"

# The profiler's clock: its microseconds count from here on the allocator's, and it reports an
# allocation this much after the allocator recorded it.
PROFILER_CLOCK = 1_700_000_000_000_000 - 4_000_000
PROFILER_LAG_US = 2
# The op each stack's allocations are made in, as the profiler names it.
OPS = {"weights": "aten::randn", "mlp": "aten::linear", "attn_q": "aten::einsum", "attn_k": "aten::einsum",
       "grad": "autograd::engine::evaluate_function: AddmmBackward0", "adam": "Optimizer.step#Adam.step",
       "none": "aten::zeros"}

STACKS = {
    "weights": CPP + [frame("__init__", "/work/model.py", 12), BUILD, MAIN],
    "mlp": CPP + [LINEAR, FWD_MLP, STEP, MAIN],
    "attn_q": CPP + [EINSUM, FWD_ATTN, STEP, MAIN],
    "attn_k": CPP + [EINSUM, FWD_MLP, STEP, MAIN],  # same innermost user frame, another caller
    "grad": CPP + [BACKWARD, STEP, MAIN],
    "adam": CPP + [ADAM, STEP, UNKNOWN_LINE, MAIN],
    "none": [],
}


class Allocator:
    """A caching allocator in miniature: segments split into blocks, best fit, merge on free."""

    def __init__(self, device, expandable=False, times=True, context=True):
        self.device = device
        self.expandable = expandable
        self.times = times
        self.context = context
        self.segments = []  # dicts: address, size, stream, blocks [dict address size requested state stack]
        self.trace = []
        self.recording = False
        self.clock = 1_700_000_000_000_000 + device * 1000
        self.next_address = 0x7F0000000000 + device * 0x10000000000
        self.profile = None  # the trace's events while a step is profiled
        self.profiled = []  # (time_us, address, op) of each allocation the profiler saw
        self.jitter = None  # from the profiled step on, steps take a little more or less time, as real ones do

    def event(self, action, addr, size, stack, stream=0, context="N/A", metadata=""):
        if not self.recording:
            return
        self.clock += 37 + (self.jitter.randrange(9) if self.jitter else 0)
        e = {"action": action, "addr": addr, "size": size, "stream": stream}
        if self.times:
            e["time_us"] = self.clock
        if self.context:
            e["compile_context"] = context
            e["user_metadata"] = metadata
        e["frames"] = list(STACKS[stack])  # a list of its own, of shared frame dicts
        self.trace.append(e)
        if self.profile is not None and action in ("alloc", "free_requested"):
            self.profiler_event(action, addr, size, stack)
        return e

    def profiler_event(self, action, addr, size, stack):
        """What torch.profiler records of it: a [memory] instant a few microseconds later, on its
        own clock, inside the op that asked (an aten::empty inside it)."""
        ts = self.clock - PROFILER_CLOCK + PROFILER_LAG_US
        live = sum(b["size"] for s in self.segments for b in s["blocks"] if b["state"] == "active_allocated")
        ev = self.profile
        if action == "alloc":
            ev.append({"ph": "X", "cat": "cpu_op", "name": OPS[stack], "pid": 1, "tid": 1, "ts": ts - 5, "dur": 15})
            ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": ts - 1, "dur": 3})
            self.profiled.append((self.clock, addr, OPS[stack]))
        ev.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": ts,
                   "args": {"Total Reserved": sum(s["size"] for s in self.segments), "Total Allocated": live,
                            "Bytes": size if action == "alloc" else -size, "Addr": addr, "Device Id": self.device,
                            "Device Type": 1}})

    def new_segment(self, size, stream):
        size = (size + 2 * MiB - 1) // (2 * MiB) * (2 * MiB)
        seg = {"address": self.next_address, "size": size, "stream": stream,
               "blocks": [{"address": self.next_address, "size": size, "requested": 0, "state": "inactive", "stack": "none"}]}
        self.next_address += size + 64 * MiB
        self.segments.append(seg)
        self.event("segment_map" if self.expandable else "segment_alloc", seg["address"], size, "none", stream)
        return seg

    def malloc(self, requested, stack, stream=0, context="N/A", metadata=""):
        size = max(512, (requested + 511) // 512 * 512)
        best = None
        for seg in self.segments:
            if seg["stream"] != stream:
                continue
            for i, b in enumerate(seg["blocks"]):
                if b["state"] == "inactive" and b["size"] >= size and (best is None or b["size"] < best[2]["size"]):
                    best = (seg, i, b)
        if best is None:
            seg = self.new_segment(size, stream)
            best = (seg, 0, seg["blocks"][0])
        seg, i, b = best
        if b["size"] > size:
            seg["blocks"].insert(i + 1, {"address": b["address"] + size, "size": b["size"] - size, "requested": 0,
                                         "state": "inactive", "stack": "none"})
            b["size"] = size
        b.update(requested=requested, state="active_allocated", stack=stack)
        self.event("alloc", b["address"], size, stack, stream, context, metadata)
        return b["address"]

    def free(self, address):
        for seg in self.segments:
            for i, b in enumerate(seg["blocks"]):
                if b["address"] == address and b["state"] == "active_allocated":
                    self.event("free_requested", address, b["size"], b["stack"], seg["stream"])
                    self.event("free_completed", address, b["size"], b["stack"], seg["stream"])
                    b.update(state="inactive", requested=0, stack="none")
                    # merge with inactive neighbours, as the allocator does
                    blocks = seg["blocks"]
                    j = i
                    if j + 1 < len(blocks) and blocks[j + 1]["state"] == "inactive":
                        b["size"] += blocks.pop(j + 1)["size"]
                    if j > 0 and blocks[j - 1]["state"] == "inactive":
                        blocks[j - 1]["size"] += blocks.pop(j)["size"]
                    return
        raise ValueError("free of an address not allocated")

    def release_empty(self):
        for seg in list(self.segments):
            if all(b["state"] == "inactive" for b in seg["blocks"]):
                self.event("segment_unmap" if self.expandable else "segment_free", seg["address"], seg["size"], "none", seg["stream"])
                self.segments.remove(seg)

    def oom(self, requested, device_free, stream=0):
        self.clock += 37
        e = {"action": "oom", "device_free": device_free, "size": requested, "stream": stream}
        if self.times:
            e["time_us"] = self.clock
        if self.context:
            e["compile_context"] = "N/A"
            e["user_metadata"] = ""
        e["frames"] = list(STACKS["mlp"])
        self.trace.append(e)

    def dump_segments(self, legacy=False):
        out = []
        for seg in self.segments:
            blocks = []
            for b in seg["blocks"]:
                block = {"address": b["address"], "size": b["size"], "state": b["state"]}
                if not legacy:
                    block["requested_size"] = b["requested"]
                    block["frames"] = list(STACKS[b["stack"]]) if b["state"] != "inactive" else []
                blocks.append(block)
            s = {"device": self.device, "address": seg["address"], "total_size": seg["size"], "stream": seg["stream"],
                 "segment_type": "large" if seg["size"] > MiB else "small", "blocks": blocks}
            if not legacy:
                active = sum(b["size"] for b in seg["blocks"] if b["state"] == "active_allocated")
                s.update(allocated_size=active, active_size=active,
                         requested_size=sum(b["requested"] for b in seg["blocks"] if b["state"] == "active_allocated"),
                         segment_pool_id=(0, 0), is_expandable=self.expandable, frames=[])
            out.append(s)
        return out


def training(alloc, steps=3, oom=False, profile_step=None):
    """Weights before recording, then steps of forward, backward and optimizer; the profiler on
    for step profile_step."""
    weights = [alloc.malloc(3 * MiB + 1000 * i, "weights") for i in range(4)]
    early = alloc.malloc(5 * MiB, "weights")  # allocated before recording, freed during it
    alloc.recording = True
    alloc.free(early)
    state = []
    for step in range(steps):
        if step == profile_step:
            alloc.profile = []
            alloc.jitter = random.Random(alloc.device)
            begin = alloc.clock - PROFILER_CLOCK
        acts = [alloc.malloc(6 * MiB, "mlp", metadata=f"step{step}") for _ in range(3)]
        acts += [alloc.malloc(2 * MiB + 4096, "attn_q", context="compiled_region_0"),
                 alloc.malloc(2 * MiB + 4096, "attn_k", context="compiled_region_0")]
        acts.append(alloc.malloc(700, "none"))
        grads = [alloc.malloc(3 * MiB + 1000 * i, "grad") for i in range(4)]
        for a in reversed(acts):
            alloc.free(a)
        if step == 0:
            state = [alloc.malloc(6 * MiB + 2000 * i, "adam") for i in range(4)]
        for g in grads:
            alloc.free(g)
        if step == profile_step:
            alloc.profile.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "pid": 1,
                                  "tid": 1, "ts": begin, "dur": alloc.clock - PROFILER_CLOCK + 20 - begin})
            alloc.trace_events, alloc.profile = alloc.profile, None
    if oom:
        # Fragment: many small live blocks between free ones, then ask for more than any piece.
        pairs = [(alloc.malloc(MiB, "mlp"), alloc.malloc(MiB, "attn_q")) for _ in range(24)]
        for _, b in pairs:
            alloc.free(b)
        alloc.oom(24 * MiB, device_free=12 * MiB)
    else:
        alloc.release_empty()
    return weights, state


def snapshot(allocators, legacy=False, annotations=True):
    snap = {"segments": [s for a in allocators for s in a.dump_segments(legacy)],
            "device_traces": [a.trace for a in allocators]}
    if not legacy:
        snap["allocator_settings"] = {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": -1,
                                      "garbage_collection_threshold": 0.0,
                                      "expandable_segments": any(a.expandable for a in allocators),
                                      "roundup_power2_divisions": {"1": 0, "2": 0}}
        if annotations:
            t0 = allocators[0].trace[0]["time_us"]
            snap["external_annotations"] = [
                {"stage": "START", "name": "forward", "device": 0, "time_us": t0 + 50},
                {"stage": "END", "name": "forward", "device": 0, "time_us": t0 + 900},
            ]
    return snap


def write_traces(out, alloc):
    """basic_trace.json: the profiled step of basic's device 0, and what joining it must find;
    unrelated_trace.json: the same step of another run (other addresses), which joins nothing."""
    meta = [{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "python3"}},
            {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}}]
    events = sorted(alloc.trace_events, key=lambda e: (e["ts"], -e.get("dur", 0)))
    trace = {"schemaVersion": 1, "baseTimeNanoseconds": PROFILER_CLOCK * 1000, "traceEvents": meta + events}
    with open(os.path.join(out, "basic_trace.json"), "w") as f:
        json.dump(trace, f)
    expected = {"device": alloc.device, "offset_us": PROFILER_LAG_US - PROFILER_CLOCK,
                "allocations": [{"time_us": t, "address": a, "op": op} for t, a, op in alloc.profiled]}
    with open(os.path.join(out, "basic_trace.expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
    for e in events:
        if e["name"] == "[memory]":
            e["args"]["Addr"] += 0x1000000000
    with open(os.path.join(out, "unrelated_trace.json"), "w") as f:
        json.dump(trace, f)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    good = {}

    a0, a1 = Allocator(0), Allocator(1)
    training(a0, profile_step=1)
    training(a1, steps=1)
    basic = snapshot([a0, a1])
    for protocol in (2, 4, 5):
        good[f"basic_p{protocol}.pickle"] = pickle.dumps(basic, protocol=protocol)

    oom = Allocator(0)
    training(oom, steps=2, oom=True)
    good["oom.pickle"] = pickle.dumps(snapshot([oom]), protocol=4)

    # A side stream (a collective's, say) keeps a live block in a segment whose rest lies free: the
    # main stream's request cannot use it, and the allocator cannot give it back to the device.
    streams = Allocator(0)
    training(streams, steps=1)
    side = streams.malloc(40 * MiB, "attn_q", stream=7)
    streams.free(side)
    streams.malloc(4 * MiB, "attn_k", stream=7)
    streams.oom(24 * MiB, device_free=10 * MiB)
    good["stream_oom.pickle"] = pickle.dumps(snapshot([streams]), protocol=4)

    exp = Allocator(0, expandable=True)
    training(exp, steps=2)
    good["expandable.pickle"] = pickle.dumps(snapshot([exp]), protocol=4)

    old = Allocator(0, times=False, context=False)
    training(old, steps=2)
    good["legacy.pickle"] = pickle.dumps(snapshot([old], legacy=True), protocol=2)

    for name, data in good.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    with gzip.open(os.path.join(out, "basic_p4.pickle.gz"), "wb") as f:
        f.write(good["basic_p4.pickle"])
    good["basic_p4.pickle.gz"] = None

    write_traces(out, a0)

    bad = {
        "truncated.pickle": good["basic_p4.pickle"][: len(good["basic_p4.pickle"]) // 2],
        # a class where data should be: what a malicious pickle needs to run code
        "class_ref.pickle": pickle.dumps({"segments": [], "device_traces": [[os.stat_result((0,) * 10)]]}, protocol=4),
        # a string that claims 2^60 bytes
        "huge_length.pickle": b"\x80\x04\x8d" + (1 << 60).to_bytes(8, "little") + b"abc",
        "not_a_snapshot.pickle": pickle.dumps({"hello": [1, 2, 3]}, protocol=4),
        # sizes no allocation has: their sums would overflow
        "negative_size.pickle": pickle.dumps({"segments": [], "device_traces": [[
            {"action": "alloc", "addr": 4096, "size": -512, "stream": 0, "frames": []}]]}, protocol=4),
        "huge_size.pickle": pickle.dumps({"segments": [], "device_traces": [[
            {"action": "alloc", "addr": 4096 * i, "size": 1 << 62, "stream": 0, "frames": []} for i in range(4)]]},
            protocol=4),
        "not_a_pickle.pickle": b'{"traceEvents": []}',
    }
    for name, data in bad.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    gz = gzip.compress(good["basic_p4.pickle"])
    with open(os.path.join(out, "truncated.pickle.gz"), "wb") as f:
        f.write(gz[: len(gz) * 2 // 3])

    reader = os.path.join(os.path.dirname(os.path.abspath(__file__)), "read-snapshot.py")
    for name in good:
        figures = subprocess.run([sys.executable, reader, os.path.join(out, name)], check=True,
                                 capture_output=True, text=True).stdout
        with open(os.path.join(out, name + ".expected.json"), "w") as f:
            f.write(figures)


if __name__ == "__main__":
    main()
