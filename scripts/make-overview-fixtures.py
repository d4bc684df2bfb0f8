#!/usr/bin/python3
"""Makes the golden files of the module, per-op memory and GPU utilization tables, from the JSON
of the real fixture traces with plain Python, independently of Pyrometer's C++ code.

    /usr/bin/python3 scripts/make-overview-fixtures.py

Writes tests/fixtures/analysis/NAME.modules.csv, NAME.opmemory.csv and NAME.utilization.csv.
"""
import csv
import importlib.util
import os
import re
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("analysis_fixtures", os.path.join(HERE, "make-analysis-fixtures.py"))
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)
stepspans = base.stepspans

MODULE_PREFIX = "nn.Module: "


def nest(items):
    """torch's rule: in (start, -end) order, the child of the innermost open item containing it."""
    stack = []
    for it in sorted(items, key=lambda x: (x["start"], -x["end"])):
        it["parent"] = None
        while stack:
            top = stack[-1]
            if it["start"] >= top["end"] or it["end"] > top["end"]:
                stack.pop()
            else:
                it["parent"] = top
                break
        stack.append(it)


def thread_events(events):
    threads = defaultdict(lambda: {"ops": [], "frames": [], "runtime": []})
    gpu = []
    for e in events:
        if e.get("ph") != "X":
            continue
        cat = (e.get("cat") or "").lower()
        start, dur = base.ns(e["ts"]), base.ns(e.get("dur", 0))
        item = {"name": e["name"], "start": start, "end": start + dur, "dur": dur, "args": e.get("args", {})}
        key = (base.entity(e.get("pid")), base.entity(e.get("tid")))
        if cat in base.OP_CATS or "cat" not in e:
            item["kind"] = "op"
            threads[key]["ops"].append(item)
        elif cat == "python_function":
            item["kind"] = "frame"
            threads[key]["frames"].append(item)
        elif cat in base.RUNTIME_CATS:
            threads[key]["runtime"].append(item)
        elif cat in base.GPU_CATS:
            item["device"] = item["args"].get("device", e.get("pid"))
            gpu.append(item)
    return threads, gpu


def innermost_op(ops_sorted, time, end=None):
    """The innermost op with start <= time < end (or containing [time, end])."""
    best = None
    for op in ops_sorted:
        if op["start"] > time:
            break
        inside = time < op["end"] if end is None else end <= op["end"]
        if inside:
            best = op  # later starts (and shorter at equal starts) are deeper
    return best


def modules(events):
    threads, gpu = thread_events(events)
    launch = {}
    rows = {}
    order = []

    def module_parent(item):
        p = item["frame_parent"]
        while p is not None and not (p["kind"] == "frame" and p["name"].startswith(MODULE_PREFIX)):
            p = p["frame_parent"]
        return p

    def path_of(frame):
        names = []
        p = frame
        while p is not None:
            names.append(p["name"][len(MODULE_PREFIX):])
            p = module_parent(p)
        return "/".join(reversed(names))

    def row(path):
        if path not in rows:
            if "/" in path:
                row(path.rsplit("/", 1)[0])
            rows[path] = {"calls": 0, "total": 0, "self": 0, "dtotal": 0, "dself": 0}
            order.append(path)
        return rows[path]

    for t in threads.values():
        both = t["ops"] + t["frames"]
        nest(both)
        for it in both:
            it["frame_parent"] = it.pop("parent")
        ops = sorted(t["ops"], key=lambda x: (x["start"], -x["end"]))
        nest(ops)
        for r in t["runtime"]:
            corr = r["args"].get("correlation")
            if corr is not None and corr not in launch:
                launch[corr] = innermost_op(ops, r["start"], r["end"])
        for f in sorted(t["frames"], key=lambda x: (x["start"], -x["end"])):
            if not f["name"].startswith(MODULE_PREFIX):
                continue
            r = row(path_of(f))
            r["calls"] += 1
            r["total"] += f["dur"]
            r["self"] += f["dur"]
            outer = module_parent(f)
            if outer is not None:
                rows[path_of(outer)]["self"] -= f["dur"]
    for k in gpu:
        op = launch.get(k["args"].get("correlation"))
        if op is None:
            continue
        m = module_parent(op)
        if m is None:
            continue
        rows[path_of(m)]["dself"] += k["dur"]
        while m is not None:
            rows[path_of(m)]["dtotal"] += k["dur"]
            m = module_parent(m)
    return [(p, rows[p]) for p in order]


def op_memory(events):
    threads, _ = thread_events(events)
    ops_by_thread = {}
    for key, t in threads.items():
        ops = sorted(t["ops"], key=lambda x: (x["start"], -x["end"]))
        nest(ops)
        ops_by_thread[key] = ops
    mem = [e for e in events if e.get("ph") == "i" and e.get("name") == "[memory]"]
    mem.sort(key=lambda e: base.ns(e["ts"]))
    rows = defaultdict(lambda: {"allocs": 0, "frees": 0, "alloc": 0, "freed": 0, "peak": 0})
    running = defaultdict(int)
    peak = {}
    entries = []
    for pos, e in enumerate(mem):
        a = e.get("args", {})
        dtype, did = int(a.get("Device Type", 0)), int(a.get("Device Id", 0))
        device = "cpu" if dtype == 0 else ("cuda:%d" % did if dtype == 1 else "device%d:%d" % (dtype, did))
        key = (base.entity(e.get("pid")), base.entity(e.get("tid")))
        op = innermost_op(ops_by_thread.get(key, []), base.ns(e["ts"]))
        name = op["name"] if op else "(outside any op)"
        b = int(a.get("Bytes", 0))
        r = rows[(device, name)]
        if b > 0:
            r["allocs"] += 1
            r["alloc"] += b
        elif b < 0:
            r["frees"] += 1
            r["freed"] -= b
        running[device] += b
        level = int(a["Total Allocated"]) if "Total Allocated" in a else running[device]
        if device not in peak or level > peak[device][0]:
            peak[device] = (level, pos)
        entries.append((device, name, b, int(a.get("Addr", 0))))
    if any(addr for *_, addr in entries):
        live = defaultdict(dict)
        for pos, (device, name, b, addr) in enumerate(entries):
            if pos > peak[device][1]:
                continue
            if b > 0:
                live[device][addr] = (name, b)
            elif b < 0:
                live[device].pop(addr, None)
        for device, blocks in live.items():
            for name, b in blocks.values():
                rows[(device, name)]["peak"] += b
    return rows


def merged(spans):
    """The union of (start, end) spans as sorted disjoint spans."""
    out = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        elif b > a:
            out.append((a, b))
    return out


def utilization(events):
    """Per device: (busy over the whole trace, busy inside the steps' spans, the sum of the step
    times); the step figures are None without steps. A step's span is on the GPU's clock
    (scripts/stepspans.py): from its CPU start, or the previous step's end, to the later of its
    CPU end and the end of the device work it launched."""
    threads, gpu = thread_events(events)
    steps = merged([(s["start"], s["end"]) for s in stepspans.spans(events)[0]])
    step_time = sum(b - a for a, b in steps)
    spans = defaultdict(list)
    for k in gpu:
        spans[int(k["device"])].append((k["start"], k["end"]))
    busy = {}
    for device, s in spans.items():
        union = merged(s)
        inside = sum(max(0, min(b, d) - max(a, c)) for a, b in union for c, d in steps)
        busy[device] = (sum(b - a for a, b in union), inside if steps else None, step_time if steps else None)
    return busy


def main():
    fixtures = dict(base.FIXTURES)
    fixtures["torch_cpu_cnn"] = os.path.join(base.OUT, "torch_cpu_cnn.json")
    for name, rel in fixtures.items():
        events = base.load(os.path.join(base.TRACES, rel))
        with open(os.path.join(base.OUT, name + ".modules.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["path", "calls", "total_us", "self_us", "device_total_us", "device_self_us"])
            for path, r in modules(events):
                w.writerow([path, r["calls"], base.fmt(r["total"]), base.fmt(r["self"]), base.fmt(r["dtotal"]),
                            base.fmt(r["dself"])])
        with open(os.path.join(base.OUT, name + ".opmemory.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["device", "name", "allocations", "frees", "allocated_bytes", "freed_bytes", "peak_bytes"])
            rows = op_memory(events)
            for key in sorted(rows):
                r = rows[key]
                w.writerow([key[0], key[1], r["allocs"], r["frees"], r["alloc"], r["freed"], r["peak"]])
        with open(os.path.join(base.OUT, name + ".utilization.csv"), "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["device", "busy_us", "step_busy_us", "step_time_us"])
            for device, (total, inside, step_time) in sorted(utilization(events).items()):
                w.writerow([device, base.fmt(total)] + (["", ""] if inside is None else [base.fmt(inside), base.fmt(step_time)]))


if __name__ == "__main__":
    main()
