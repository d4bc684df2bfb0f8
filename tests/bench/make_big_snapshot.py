#!/usr/bin/env python3
"""A large allocator snapshot from a real one: its events repeated (each a dict and frames list of
its own, sharing the frame dicts, as torch writes them), shifted in time, until the pickle
reaches SIZE bytes.   usage: make_big_snapshot.py SOURCE OUT SIZE_MB"""
import gzip
import io
import pickle
import sys


class Restricted(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"refuses {module}.{name}")


src, out, size_mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
data = open(src, "rb").read()
if data[:2] == b"\x1f\x8b":
    data = gzip.decompress(data)
snap = Restricted(io.BytesIO(data)).load()
events = snap["device_traces"][0]
times = [e["time_us"] for e in events if "time_us" in e]
span = (max(times) - min(times) + 1000) if times else 0
copies = max(1, int(size_mb * 1e6 / len(data)))
trace = []
for k in range(copies):
    for e in events:
        c = dict(e)
        c["frames"] = list(e.get("frames", []))
        if "time_us" in c:
            c["time_us"] += k * span
        trace.append(c)
snap["device_traces"][0] = trace
with open(out, "wb") as f:
    pickle.dump(snap, f, protocol=4)
print(f"{out}: {len(trace)} events, {copies} copies of {len(events)}")
