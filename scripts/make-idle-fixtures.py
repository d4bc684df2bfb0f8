#!/usr/bin/python3
"""Makes the idle-cause goldens, independently of Pyrometer's C++ code.

For every real GPU fixture trace, per ProfilerStep over its span on the GPU's clock
(scripts/stepspans.py: from its CPU start, or the previous step's end, to the later of its CPU
end and the end of the device work it launched; without steps: the span of the device events)
and per stream with device events in it, sweeps the stream's device events clipped to the step
and classifies every idle gap by the rule of core/analysis/idlecauses.h:
  - the event that ends the gap has a launching call (make-launch-fixtures.py's matching) that
    started at or after the gap's start: host wait; one that started before: kernel wait;
  - no call, or the gap runs to the step's end: other.
Events of zero length are left out; touching events leave no gap.

Writes NAME.idle.csv: step, device, stream, span_ns, busy_ns, host_wait_ns, kernel_wait_ns,
other_ns, gaps; rows by step start, then device, then stream.
    /usr/bin/python3 scripts/make-idle-fixtures.py
"""
import csv
import importlib.util
import os
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("launch_fixtures", os.path.join(HERE, "make-launch-fixtures.py"))
launch = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(launch)
sys.path.insert(0, HERE)
import stepspans  # noqa: E402


def write(name):
    events = launch.load(name)
    calls, device, _ = launch.read(events)
    launch.match(calls, device)
    device = [d for d in device if d["end"] > d["start"]]
    steps = stepspans.spans(events)[0]
    if steps:
        windows = [(s["start"], s["end"], s["name"]) for s in steps]
    else:
        windows = [(min(d["start"] for d in device), max(d["end"] for d in device), "")]
    by_stream = defaultdict(list)
    for order, d in enumerate(device):
        by_stream[(d["device"], d["stream"])].append(d)
    rows = []
    for s, e, step in windows:
        for key in sorted(by_stream):
            inside = sorted((d for d in by_stream[key] if d["start"] < e and d["end"] > s),
                            key=lambda d: (d["start"], -d["end"]))
            if not inside:
                continue
            idle = {"host": 0, "kernel": 0, "other": 0}
            gaps = 0
            covered = s  # everything before this is busy or already classified
            busy = 0
            for d in inside:
                a, b = max(d["start"], s), min(d["end"], e)
                if a > covered:
                    call = d["call"]
                    cause = "other" if call is None else ("host" if call["start"] >= covered else "kernel")
                    idle[cause] += a - covered
                    gaps += 1
                if b > covered:
                    busy += b - max(a, covered)
                    covered = b
            if covered < e:
                idle["other"] += e - covered
                gaps += 1
            rows.append([step, key[0], key[1], e - s, busy, idle["host"], idle["kernel"], idle["other"], gaps])
    with open(os.path.join(launch.OUT, name + ".idle.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["step", "device", "stream", "span_ns", "busy_ns", "host_wait_ns", "kernel_wait_ns", "other_ns",
                    "gaps"])
        w.writerows(rows)
    print("%s: %d rows" % (name, len(rows)))


def main():
    for name in launch.GPU_FIXTURES:
        write(name)


if __name__ == "__main__":
    main()
