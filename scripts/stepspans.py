"""Steps on the GPU's clock, for the golden-making scripts, written again in plain Python from the
rule that core/analysis/stepspans.h documents (not from its code):

  - a step is a ProfilerStep#N op (cpu_op, user_annotation, a 2021 Operator or an event without
    category); its CPU span is the op's;
  - a device event (kernel, memcpy, memset) belongs to the step that launched it: the step whose
    CPU span contains the start of its launching call, the runtime or driver event with the same
    correlation id (ids <= 0 match nothing; of several calls with one id, the one that started
    last at or before the device event started, else the one that started first);
  - a device event with no launching call in the trace belongs to the step whose CPU span
    contains its own start;
  - a step's GPU span runs from the first start to the last end of its device events;
  - a step's span runs from the later of its CPU start and the previous step's end (the first
    step: its CPU start) to the later of its CPU end and its GPU end.

When the CPU runs ahead of the GPU, a step's kernels run during the next step's CPU span: the
old rule (device time is whatever runs during the CPU span) charged them to the wrong step.

    steps, step_of = spans(events)
steps: dicts name, cpu_start, cpu_end, gpu_start, gpu_end (None without device events), start,
end, in ns, by CPU start. step_of: id(raw device event dict) -> index into steps, or None.
"""
import bisect
import re
from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal

OPS = {"cpu_op", "user_annotation", "Operator", "operator"}
RUNTIME = {"cuda_runtime", "cuda_driver", "Runtime", "runtime"}
DEVICE = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}


def ns(us):
    return int((Decimal(str(us)) * 1000).to_integral_value(rounding=ROUND_HALF_UP))


def correlation(e):
    value = (e.get("args") or {}).get("correlation")
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value):
        value = int(value)
    return value if isinstance(value, int) and value > 0 else None


def is_device(e):
    return e.get("ph") == "X" and e.get("cat") in DEVICE


def spans(events):
    steps = []
    calls = defaultdict(list)  # correlation -> call starts
    device = []
    for e in events:
        if e.get("ph") != "X":
            continue
        cat = e.get("cat")
        start = ns(e["ts"])
        if (cat is None or cat in OPS) and re.fullmatch(r"ProfilerStep#\d+", e.get("name", "")):
            steps.append({"name": e["name"], "cpu_start": start, "cpu_end": start + ns(e.get("dur", 0))})
        elif cat in RUNTIME and correlation(e) is not None:
            calls[correlation(e)].append(start)
        elif cat in DEVICE:
            device.append(e)
    steps.sort(key=lambda s: s["cpu_start"])
    starts = [s["cpu_start"] for s in steps]

    def at_cpu(time):
        i = bisect.bisect_right(starts, time) - 1
        return i if i >= 0 and time < steps[i]["cpu_end"] else None

    step_of = {}
    for s in steps:
        s["gpu_start"] = s["gpu_end"] = None
    for e in device:
        start = ns(e["ts"])
        end = start + ns(e.get("dur", 0))
        candidates = calls.get(correlation(e), [])
        if candidates:
            before = [c for c in candidates if c <= start]
            i = at_cpu(max(before) if before else min(candidates))
        else:
            i = at_cpu(start)
        step_of[id(e)] = i
        if i is not None:
            s = steps[i]
            s["gpu_start"] = start if s["gpu_start"] is None else min(s["gpu_start"], start)
            s["gpu_end"] = end if s["gpu_end"] is None else max(s["gpu_end"], end)
    previous_end = None
    for s in steps:
        s["start"] = s["cpu_start"] if previous_end is None else max(s["cpu_start"], previous_end)
        s["end"] = max(s["cpu_end"], s["start"], s["gpu_end"] if s["gpu_end"] is not None else s["start"])
        previous_end = s["end"]
    return steps, step_of
