#!/usr/bin/env python3
"""An independent reading of a CUDA allocator snapshot, in plain Python: a restricted
pickle.Unpickler (it refuses every class and global) and the figures pyrometer-cli snapshot
gives, by the same definitions, written as JSON. The tests compare the C++ reader with it; run it
by hand on a real snapshot to check one.

usage: read-snapshot.py SNAPSHOT[.gz] [--top N]
"""
import gzip
import io
import json
import pickle
import sys


class Restricted(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"refuses the global {module}.{name}")


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return Restricted(io.BytesIO(data)).load()


def as_int(v):
    """The reader's integer: 64-bit two's complement (torch writes 2^64-1 for an unknown line)."""
    if v is None:
        return 0
    v = int(v)
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


def frame_text(f):
    text = f.get("name", "")
    path = f.get("filename", "")
    base = path.rsplit("/", 1)[-1]
    if base and base != "??":
        text += " " + base
        line = as_int(f.get("line", 0))
        if line > 0:
            text += f":{line}"
    return text


def folded(frames):
    if not frames:
        return "(no stack)"
    python = [f for f in frames if f.get("filename", "").endswith(".py")]
    chosen = python if python else frames
    return ";".join(frame_text(f) for f in reversed(chosen))


def replay(snap, device, events):
    """Active bytes after each event, from what was live before the trace (see replay.h)."""
    touched, live = set(), {}
    for e in events:
        if e["action"] in ("alloc", "free_requested", "free_completed"):
            addr = as_int(e.get("addr"))
            if addr not in touched:
                touched.add(addr)
                if e["action"] != "alloc":
                    live[addr] = (as_int(e.get("size")), folded(e.get("frames", [])), None)
    for seg in snap.get("segments", []):
        if seg.get("device", 0) != device:
            continue
        for b in seg.get("blocks", []):
            addr = as_int(b.get("address"))
            if b.get("state") in ("active_allocated", "active_pending_free") and addr not in touched and addr not in live:
                live[addr] = (as_int(b.get("size")), folded(b.get("frames", [])), None)
    start = sum(size for size, _, _ in live.values())
    return live, start


def walk(events, live, upto):
    active = sum(size for size, _, _ in live.values())
    curve = []
    for p, e in enumerate(events[: upto + 1]):
        addr = as_int(e.get("addr"))
        if e["action"] == "alloc":
            if addr in live:
                active -= live[addr][0]
            live[addr] = (as_int(e.get("size")), folded(e.get("frames", [])), p)
            active += as_int(e.get("size"))
        elif e["action"] == "free_completed" and addr in live:
            active -= live.pop(addr)[0]
        curve.append(active)
    return curve


def main():
    path = sys.argv[1]
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 10
    snap = load(path)
    if isinstance(snap, list):
        snap = {"segments": snap, "device_traces": []}
    segments = snap.get("segments", [])
    traces = snap.get("device_traces", [])

    def seg_sum(key, states):
        total = 0
        for s in segments:
            if key in s:
                total += as_int(s[key])
            else:
                total += sum(as_int(b["size"]) for b in s.get("blocks", []) if b.get("state") in states)
        return total

    def requested(s):
        # What the tensors asked for: the segment's sum, else its allocated blocks' (their size when
        # they do not say).
        if "requested_size" in s:
            return as_int(s["requested_size"])
        return sum(as_int(b.get("requested_size", b["size"])) for b in s.get("blocks", [])
                   if b.get("state") == "active_allocated")

    free = [as_int(b["size"]) for s in segments for b in s.get("blocks", []) if b.get("state") == "inactive"]
    out = {
        "segments": len(segments),
        "blocks": sum(len(s.get("blocks", [])) for s in segments),
        "reserved_bytes": sum(as_int(s["total_size"]) for s in segments),
        "allocated_bytes": seg_sum("allocated_size", ("active_allocated",)),
        "active_bytes": seg_sum("active_size", ("active_allocated", "active_pending_free")),
        "requested_bytes": sum(requested(s) for s in segments),
        "free_bytes": sum(free),
        "largest_free_block": max(free, default=0),
        "events": sum(len(t) for t in traces),
        "devices": [],
        "ooms": [],
    }
    ndev = max([len(traces)] + [s.get("device", 0) + 1 for s in segments])
    for device in range(ndev):
        events = traces[device] if device < len(traces) else []
        live, start = replay(snap, device, events)
        curve = walk(events, dict(live), len(events) - 1)
        peak, peak_at = start, -1
        for p, v in enumerate(curve):
            if v > peak:
                peak, peak_at = v, p
        at_peak = dict(live)
        walk(events, at_peak, peak_at)
        groups = {}
        for size, key, _ in at_peak.values():
            g = groups.setdefault(key, [0, 0])
            g[0] += size
            g[1] += 1
        ranked = sorted(groups.items(), key=lambda kv: (-kv[1][0], kv[0]))[:top]
        out["devices"].append({
            "device": device,
            "events": len(events),
            "active_bytes_at_start": start,
            "active_bytes_at_trace_end": curve[-1] if curve else start,
            "peak_active_bytes": peak,
            "peak_event": peak_at,
            "top_at_peak": [{"key": k, "bytes": v[0], "blocks": v[1]} for k, v in ranked],
        })
        for p, e in enumerate(events):
            if e["action"] == "oom":
                out["ooms"].append({"device": device, "event": p, "requested_bytes": as_int(e.get("size")),
                                    "device_free_bytes": as_int(e.get("device_free", e.get("addr"))),
                                    "active_bytes": curve[p]})
    out["peak_active_bytes"] = max((d["peak_active_bytes"] for d in out["devices"]), default=0)
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
