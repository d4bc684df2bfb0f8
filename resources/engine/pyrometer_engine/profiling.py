"""What one forward runs: its operators with their arguments (for FLOPs) and, under
torch.profiler, their times, modules, memory and device time."""

import json
import os
import tempfile

from pyrometer_engine.protocol import Failure, STATUS, finite
from pyrometer_engine.loading import module_tree, torch_version_at_least
from pyrometer_engine.variants import build_variant


# ---------------------------------------------------------------------------------------------
# Module frames: forward hooks keep the stack of running modules


class ModuleFrames:
    """Pushes "name(Type)::forward" frames as hooked modules run (as libtorch's module hierarchy
    writes them), and optionally a profiler range per module call."""

    def __init__(self, torch, model, ranges=False, root=None):
        self.torch = torch
        self.stack = []
        self.calls = {}
        self.handles = []
        self.ranges = ranges
        self.open_ranges = []
        if model.hooked is None:
            return
        root = root if root is not None else model.hooked
        types = {row["name"]: row["type"] for row in module_tree(torch, model)}
        for name, module in root.named_modules():
            attribute = name.rsplit(".", 1)[-1] if name else "TOP"
            frame = f"{attribute}({types.get(name, type(module).__name__)})::forward"
            self.handles.append(module.register_forward_pre_hook(self._pre(frame, name)))
            self.handles.append(module.register_forward_hook(self._post()))

    def _pre(self, frame, name):
        def hook(module, inputs):
            # A module called again is told apart by its call count, as TorchScript's module
            # hierarchy tells calls apart.
            count = self.calls.get(name, 0) + 1
            self.calls[name] = count
            self.stack.append(frame if count == 1 else f"{frame}#{count}")
            if self.ranges:
                handle = self.torch.autograd.profiler.record_function("pyrometer.module:" + "/".join(self.stack))
                handle.__enter__()
                self.open_ranges.append(handle)
        return hook

    def _post(self):
        def hook(module, inputs, output):
            if self.ranges and self.open_ranges:
                self.open_ranges.pop().__exit__(None, None, None)
            if self.stack:
                self.stack.pop()
        return hook

    def remove(self):
        for handle in self.handles:
            handle.remove()
        self.handles = []


# A dtype as torch.profiler's "Input type" writes it (the C++ type's name), so that both engines
# and traces name precisions alike.
TRACE_DTYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                     "int8": "signed char", "uint8": "unsigned char", "int16": "short int", "int32": "int",
                     "int64": "long int", "bool": "bool", "float8_e4m3fn": "c10::Float8_e4m3fn",
                     "float8_e5m2": "c10::Float8_e5m2", "qint8": "c10::qint8", "quint8": "c10::quint8"}


def trace_dtype_name(dtype):
    name = str(dtype).replace("torch.", "")
    return TRACE_DTYPE_NAMES.get(name, name)


def describe_arg(torch, value):
    if isinstance(value, torch.Tensor):
        return {"k": "t", "s": list(value.shape), "e": value.element_size(), "d": trace_dtype_name(value.dtype)}
    if isinstance(value, bool):
        return {"k": "b", "v": int(value)}
    if isinstance(value, int):
        return {"k": "i", "v": value}
    if isinstance(value, float):
        return {"k": "d", "v": finite(value) if finite(value) is not None else 0.0}
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, bool) for v in value):
            return {"k": "o"}
        if all(isinstance(v, int) for v in value):
            return {"k": "il", "v": list(value)}
        if value and all(isinstance(v, torch.Tensor) or v is None for v in value):
            return {"k": "tl", "s": [list(v.shape) if v is not None else [] for v in value]}
        try:
            return {"k": "il", "v": [int(v) for v in value]}
        except (TypeError, ValueError):
            return {"k": "o"}
    if value is None:
        return {"k": "n"}
    try:  # SymInt and the like
        return {"k": "i", "v": int(value)}
    except (TypeError, ValueError):
        return {"k": "o"}


def output_shapes(torch, out):
    if isinstance(out, torch.Tensor):
        return [list(out.shape)]
    if isinstance(out, (list, tuple)):
        shapes = []
        for item in out:
            if isinstance(item, torch.Tensor):
                shapes.append(list(item.shape))
        return shapes
    return []


def record_ops(runner):
    """Every top-level aten operator of one forward pass, with its arguments, outputs and module."""
    torch = runner.torch
    model = runner.model
    try:
        from torch.utils._python_dispatch import TorchDispatchMode
    except ImportError:
        raise Failure("too_old", f"torch {torch.__version__} has no TorchDispatchMode: FLOPs need torch 1.13 or newer")
    frames = ModuleFrames(torch, model)
    ops = []
    script_marks = model.kind == "torchscript" and profiler_writes_module_hierarchy(torch)

    class Recorder(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            index = len(ops)
            record = {"name": func._schema.name, "frames": list(frames.stack),
                      "args": [describe_arg(torch, a) for a in schema_arguments(func, args, kwargs)]}
            ops.append(record)
            if script_marks:
                with torch.autograd.profiler.record_function(f"pyrometer.op#{index}"):
                    out = func(*args, **kwargs)
            else:
                out = func(*args, **kwargs)
            shapes = output_shapes(torch, out)
            if auxiliary_outputs(record["name"]):
                shapes = shapes[:1]
            record["outputs"] = shapes
            return out

    try:
        if script_marks:
            hierarchy = {}
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], with_modules=True) as prof:
                with Recorder():
                    runner.run_checked()
            for event in exported_events(torch, prof):
                name = event.get("name", "")
                if name.startswith("pyrometer.op#"):
                    hierarchy[int(name[len("pyrometer.op#"):])] = split_hierarchy(event.get("args", {}).get("Module Hierarchy", ""))
            for index, record in enumerate(ops):
                record["frames"] = hierarchy.get(index, [])
        else:
            with Recorder():
                runner.run_checked()
    finally:
        frames.remove()
    return ops


def auxiliary_outputs(name):
    """Ops below autograd that return what their composite op keeps to itself (batch norm's
    statistics, max pooling's indices, attention's log-sum-exp): only the first output is the
    module's."""
    return (name.startswith(("aten::native_", "aten::_native_", "aten::_scaled_dot_product"))
            or name.endswith("_with_indices"))


def schema_arguments(func, args, kwargs):
    """The call's arguments in schema order, defaults filled in, as libtorch's RecordFunction
    hands them to the embedded engine."""
    values = list(args)
    try:
        schema = func._schema.arguments
    except AttributeError:
        return values + list(kwargs.values())
    for argument in schema[len(values):]:
        if argument.name in kwargs:
            values.append(kwargs[argument.name])
        elif getattr(argument, "has_default_value", lambda: False)():
            values.append(argument.default_value)
        else:
            values.append(None)
    return values


def split_hierarchy(text):
    # "TOP(Sequential)::forward.0(Conv2d)::forward." -> ["TOP(Sequential)::forward", "0(Conv2d)::forward"]
    parts = []
    for piece in text.split("::forward"):
        piece = piece.strip("./")
        if piece:
            parts.append(piece + "::forward")
    return parts


def profiler_writes_module_hierarchy(torch):
    return torch_version_at_least(torch, 2, 0) and kineto_available(torch)


def kineto_available(torch):
    try:
        return bool(torch.autograd.kineto_available())
    except Exception:
        return False


def exported_events(torch, prof, path=None):
    remove = path is None
    if path is None:
        handle, path = tempfile.mkstemp(suffix=".json", prefix="pyrometer-engine-")
        os.close(handle)
    try:
        prof.export_chrome_trace(path)
        with open(path) as stream:
            document = json.load(stream)
    finally:
        if remove:
            os.unlink(path)
    return document["traceEvents"] if isinstance(document, dict) else document


def run_profile(runner, task):
    """iterations runs under torch.profiler, each a ProfilerStep#N range; the trace is written to
    task["trace"] and its operators are sent with their module."""
    torch = runner.torch
    iterations = max(1, int(task.get("iterations", 5)))
    warmup = max(0, int(task.get("warmup", 3)))
    variant = task.get("variant") or "baseline"
    base_inputs = list(runner.inputs)
    note = build_variant(torch, runner, variant, base_inputs)
    try:
        return profile_runs(runner, task, iterations, warmup, note)
    finally:
        build_variant(torch, runner, "baseline", base_inputs)


def running_module(runner):
    """The module a variant runs, whose calls the layers are: a channels_last copy, an int8 one
    (layers of the same names), the module torch.compile wraps; the model's own otherwise."""
    forward = getattr(runner.forward, "_orig_mod", runner.forward)
    return forward if isinstance(forward, runner.torch.nn.Module) else None


def profile_runs(runner, task, iterations, warmup, note):
    torch = runner.torch
    for _ in range(warmup):
        runner.run_checked()
    frames = ModuleFrames(torch, runner.model, ranges=True, root=running_module(runner))
    activities = [torch.profiler.ProfilerActivity.CPU]
    if runner.cuda:
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    peak = 0
    try:
        if runner.cuda:
            torch.cuda.reset_peak_memory_stats()
            base = torch.cuda.memory_allocated()
        with torch.profiler.profile(activities=activities, record_shapes=True, profile_memory=True,
                                    with_modules=runner.model.kind == "torchscript") as prof:
            for i in range(iterations):
                with torch.autograd.profiler.record_function(f"ProfilerStep#{i + 1}"):
                    runner.run_checked()
                    runner.sync()
                STATUS.emit("progress", done=i + 1, total=iterations, text="profile")
        if runner.cuda:
            peak = torch.cuda.max_memory_allocated() - base
    finally:
        frames.remove()
    trace = task.get("trace") or None
    events = exported_events(torch, prof, trace)
    ops, memory = profiled_ops(events, runner.cuda)
    return {"ops": ops, "memory": memory, "iterations": iterations, "trace": trace or "", "device_peak": int(peak), "note": note}


DEVICE_CATEGORIES = ("kernel", "gpu_memcpy", "gpu_memset")
LAUNCH_CATEGORIES = ("cuda_runtime", "cuda_driver")


def device_time_by_correlation(events):
    """The device time (ns) of the kernels, copies and sets each launch correlation id ran."""
    device = {}
    for event in events:
        if not isinstance(event, dict) or event.get("ph") != "X" or event.get("cat") not in DEVICE_CATEGORIES:
            continue
        correlation = (event.get("args") or {}).get("correlation")
        if isinstance(correlation, int):
            device[correlation] = device.get(correlation, 0) + int(round(float(event.get("dur", 0)) * 1000))
    return device


def profiled_ops(events, on_device=False):
    """The trace's CPU operators and user ranges as the host's profile rows: module frames from
    the enclosing pyrometer.module ranges, or TorchScript's Module Hierarchy. On CUDA each op
    (on_device) carries the device time of what it launched itself ("device", ns): the kernels
    whose runtime call (same correlation id) lies directly in it."""
    device = device_time_by_correlation(events)
    spans = []
    memory = []
    for event in events:
        if not isinstance(event, dict):
            continue
        name = event.get("name", "")
        args = event.get("args") or {}
        if event.get("ph") == "i" and name == "[memory]":
            memory.append({"t": int(float(event.get("ts", 0)) * 1000), "tid": str(event.get("tid", "")),
                           "bytes": int(args.get("Bytes", 0)), "total": int(args.get("Total Allocated", 0)),
                           "device_type": int(args.get("Device Type", 0)), "device": int(args.get("Device Id", -1))})
            continue
        if event.get("ph") != "X":
            continue
        category = str(event.get("cat", ""))
        if category in LAUNCH_CATEGORIES:
            correlation = (event.get("args") or {}).get("correlation")
            if correlation not in device:
                continue
        elif category not in ("cpu_op", "user_annotation", "Operator", "operator", "cpu_instant_event") and category:
            continue
        start = int(round(float(event.get("ts", 0)) * 1000))
        duration = int(round(float(event.get("dur", 0)) * 1000))
        spans.append((start, -duration, name, category, event, duration))
    spans.sort(key=lambda s: (str(s[4].get("tid", "")), s[0], s[1]))
    ops = []
    stacks = {}
    for start, _, name, category, event, duration in spans:
        tid = str(event.get("tid", ""))
        stack = stacks.setdefault(tid, [])
        while stack and stack[-1][0] <= start:
            stack.pop()
        args = event.get("args") or {}
        if category in LAUNCH_CATEGORIES:
            launcher = next((entry[2] for entry in reversed(stack) if entry[2] is not None), None)
            if launcher is not None and "device" in launcher:
                launcher["device"] += device[args["correlation"]]
            continue
        module_ranges = [entry[1] for entry in stack if entry[1] is not None]
        if name.startswith("pyrometer.module:"):
            stack.append((start + duration, name[len("pyrometer.module:"):].split("/"), None))
            continue
        depth = len(stack)
        if name.startswith("ProfilerStep#") or category == "user_annotation":
            scope = 7  # a user range
        elif "::" in name:
            scope = 0  # an operator (aten::, quantized::, ...)
        else:
            scope = 2  # a TorchScript method ("forward"): the ops inside it are what it ran
        frames = module_ranges[-1] if module_ranges else split_hierarchy(args.get("Module Hierarchy", ""))
        shapes = args.get("Input Dims") or []
        op = {"name": name, "start": start, "dur": duration, "tid": tid, "scope": scope, "depth": depth,
              "seq": int(args.get("Sequence number", -1)) if str(args.get("Sequence number", "-1")).lstrip("-").isdigit() else -1,
              "shapes": [s if isinstance(s, list) and all(isinstance(d, int) for d in s) else [] for s in shapes],
              "types": [str(t) for t in (args.get("Input type") or [])], "frames": frames}
        if on_device:
            op["device"] = 0
        stack.append((start + duration, None, op if scope != 7 else None))
        ops.append(op)
    ops.sort(key=lambda o: (o["start"], -o["dur"]))
    memory.sort(key=lambda m: m["t"])
    return ops, memory
