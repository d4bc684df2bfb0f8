"""Variants of the loaded model (dtypes, layouts, compile, quantization) timed in turns
against the baseline, and batch-size sweeps."""

import math
import os

from pyrometer_engine.protocol import Failure, STATUS, finite
from pyrometer_engine.loading import dtype_name, make_inputs, torch_version_at_least
from pyrometer_engine.running import first_line


# ---------------------------------------------------------------------------------------------
# Variants


def build_variant(torch, runner, name, base):
    """Sets runner up for the variant; returns a note on what it applied."""
    model = runner.model
    runner.forward = model.module
    runner.autocast = None
    runner.inputs = list(base)
    if name == "baseline":
        return ""
    if name in ("bf16", "fp16"):
        dtype = torch.bfloat16 if name == "bf16" else torch.float16
        if not hasattr(torch, "autocast"):
            raise Failure("variant", f"torch {torch.__version__} has no torch.autocast")
        if not runner.cuda and name == "fp16" and not torch_version_at_least(torch, 2, 1):
            raise Failure("variant", f"fp16 autocast on the CPU needs torch 2.1 or newer (this is torch {torch.__version__})")
        runner.autocast = dtype
        return f"torch.autocast({'cuda' if runner.cuda else 'cpu'}, {dtype_name(torch, dtype)})"
    if name == "channels_last":
        if model.kind == "torchscript":
            runner.inputs = [t.contiguous(memory_format=torch.channels_last) if t.dim() == 4 else t for t in base]
            return "inputs in channels_last (a TorchScript module keeps its weights' layout)"
        import copy
        module = copy.deepcopy(model.module).to(memory_format=torch.channels_last)
        runner.forward = module
        runner.inputs = [t.contiguous(memory_format=torch.channels_last) if t.dim() == 4 else t for t in base]
        return "weights and 4-D inputs in channels_last"
    if name == "int8":
        if model.kind == "torchscript" or model.hooked is None:
            raise Failure("variant", "dynamic int8 (torch.ao) quantizes an nn.Module's Linear layers: a TorchScript module has none to swap")
        if model.kind == "export":
            raise Failure("variant", "dynamic int8 (torch.ao) swaps nn.Linear modules, and a torch.export program's layers are graph "
                          "operators: quantize it before export (torch.ao's PT2E flow), or open the model.py:build that makes it")
        if runner.cuda:
            raise Failure("variant", "dynamic int8 runs on the CPU only")
        try:
            from torch.ao.quantization import quantize_dynamic
        except ImportError:
            from torch.quantization import quantize_dynamic
        source = model.module
        quantized = quantize_dynamic(source, {torch.nn.Linear, torch.nn.LSTM, torch.nn.GRU}, dtype=torch.qint8)
        count = sum(1 for m in quantized.modules()
                    if ".dynamic" in type(m).__module__ and type(m).__name__ in ("Linear", "LSTM", "GRU"))
        if count == 0:
            raise Failure("variant", "dynamic int8 found no Linear, LSTM or GRU layer to quantize")
        runner.forward = quantized
        return f"{count} layer{'s' if count != 1 else ''} on dynamic int8 weights (torch.ao, engine {torch.backends.quantized.engine})"
    if name in ("compile", "reduce_overhead"):
        if not hasattr(torch, "compile"):
            raise Failure("variant", f"torch.compile needs torch 2.0 or newer (this is torch {torch.__version__})")
        if name == "reduce_overhead" and not runner.cuda:
            raise Failure("variant", "CUDA graphs (mode=\"reduce-overhead\") need a CUDA device")
        if not runner.cuda:
            import shutil
            compiler = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")
            if not compiler:
                raise Failure("variant", "torch.compile's Inductor needs a C++ compiler on the CPU and this machine has none "
                              "(install g++, or build-essential)")
        mode = "reduce-overhead" if name == "reduce_overhead" else None
        runner.forward = torch.compile(model.module, mode=mode) if mode else torch.compile(model.module)
        return f"torch.compile (Inductor{', mode=reduce-overhead' if mode else ''})"
    raise Failure("variant", f"unknown variant {name}")


def outputs_of(torch, out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        tensors = []
        for item in out:
            tensors.extend(outputs_of(torch, item))
        return tensors
    if isinstance(out, dict):
        tensors = []
        for item in out.values():
            tensors.extend(outputs_of(torch, item))
        return tensors
    return []


def difference(torch, out, base):
    a = outputs_of(torch, out)
    b = outputs_of(torch, base)
    if len(a) != len(b) or not a or any(x.shape != y.shape for x, y in zip(a, b)):
        return None, None
    worst = 0.0
    num = 0.0
    den = 0.0
    for x, y in zip(a, b):
        if not (x.is_floating_point() and y.is_floating_point()):
            x = x.double()
            y = y.double()
        x = x.detach().double().cpu()
        y = y.detach().double().cpu()
        worst = max(worst, float((x - y).abs().max()) if x.numel() else 0.0)
        num += float(((x - y) ** 2).sum())
        den += float((y ** 2).sum())
    return finite(worst), finite(math.sqrt(num) / math.sqrt(den)) if den > 0 else None


def count_parameters(module):
    try:
        return int(sum(p.numel() for p in module.parameters()))
    except Exception:
        return None


def time_in_turns(runner, states, iterations):
    """The timed runs of every variant (its runner state: forward, autocast, inputs), taking turns
    run by run (round r starts at variant r mod n), so that whatever drifts on the machine falls on
    every variant alike, as a fair A/B does. Per variant, its samples in ms."""
    samples = [[] for _ in states]
    total = iterations * len(states)
    for r in range(iterations):
        for j in range(len(states)):
            k = (r + j) % len(states)
            runner.forward, runner.autocast, runner.inputs = states[k]
            ms, _ = runner.timed()
            samples[k].append(ms)
        STATUS.emit("progress", done=(r + 1) * len(states), total=total, text="timed runs in turns")
    return samples


def run_compare(runner, task):
    """Each variant built, checked against the baseline's outputs and warmed up; then their timed
    runs in turns; a row each, in order."""
    torch = runner.torch
    base_inputs = list(runner.inputs)
    variants = ["baseline"] + [v for v in task.get("variants", []) if v != "baseline"]
    warmup = max(0, int(task.get("warmup", 10)))
    iterations = max(1, int(task.get("iterations", 50)))
    baseline_out = None
    rows = []
    states = []  # of the rows that run: (row, (forward, autocast, inputs))
    for index, name in enumerate(variants):
        row = {"name": name, "error": "", "note": ""}
        try:
            row["note"] = build_variant(torch, runner, name, base_inputs)
            STATUS.emit("progress", done=index, total=len(variants), text=f"variant {name}")
            try:
                out = runner.run_checked()  # compiles where it compiles
            except Failure as failure:
                if name in ("compile", "reduce_overhead") and failure.kind == "run":
                    raise Failure("variant", "torch.compile could not build the model: " + failure.message.split(": ", 1)[-1]
                                  + " (Inductor builds CPU kernels with g++, Python's headers and setuptools: on Debian, "
                                  "apt install g++ python3-dev python3-setuptools)")
                raise
            row["cold_ms"], _ = runner.timed()
            for _ in range(warmup):
                runner.timed()
            states.append((row, (runner.forward, runner.autocast, list(runner.inputs))))
            if name == "baseline":
                baseline_out = out
            else:
                row["max_abs_diff"], row["relative_error"] = difference(torch, out, baseline_out)
            row["params"] = count_parameters(runner.forward)
        except Failure as failure:
            if name == "baseline":
                raise
            row["error"] = failure.message
        except Exception as error:
            if name == "baseline":
                raise
            row["error"] = f"{type(error).__name__}: {first_line(error)}"
        if row["error"] and states and states[-1][0] is row:
            states.pop()
        rows.append(row)
    try:
        samples = time_in_turns(runner, [state for _, state in states], iterations)
        for (row, _), timed in zip(states, samples):
            row["samples_ms"] = timed
    finally:
        build_variant(torch, runner, "baseline", base_inputs)
    for row in rows:
        STATUS.emit("variant", **row)


def rebatch(specs, batch):
    """The inputs at another batch: every input whose first dimension equals the first input's."""
    if not specs or not specs[0]["shape"]:
        return specs
    first = specs[0]["shape"][0]
    return [dict(s, shape=[batch] + list(s["shape"][1:])) if s["shape"] and s["shape"][0] == first else s for s in specs]


def run_sweep(runner, task):
    torch = runner.torch
    variants = task.get("variants") or ["baseline"]
    points = task.get("points") or []
    fixed = runner.model.fixed_batch
    for name in variants:
        try:
            build_variant(torch, runner, name, runner.inputs)
        except Failure as failure:
            STATUS.emit("sweep_stop", variant=name, batch=0, error=failure.message, note="")
            continue
        for point in points:
            batch = int(point["batch"])
            if fixed is not None and batch != fixed:
                STATUS.emit("sweep_skip", variant=name, batch=batch, note=runner.model.batch_note)
                continue
            span = runner.model.batch_range
            if span and (batch < span[0] or (span[1] is not None and batch > span[1])):
                STATUS.emit("sweep_skip", variant=name, batch=batch,
                            note=f"exported for batches {span[0]} to {span[1] if span[1] is not None else 'any'}: "
                                 f"batch {batch} left out")
                continue
            inputs = make_inputs(torch, point.get("inputs") or rebatch(runner.specs, batch), runner.device)
            if name == "channels_last":
                inputs = [t.contiguous(memory_format=torch.channels_last) if t.dim() == 4 else t for t in inputs]
            try:
                if runner.cuda:
                    torch.cuda.reset_peak_memory_stats()
                for _ in range(max(1, int(task.get("warmup", 3)))):
                    runner.timed(inputs)
                samples = [runner.timed(inputs)[0] for _ in range(max(1, int(task.get("iterations", 10))))]
                peak = torch.cuda.max_memory_allocated() if runner.cuda else 0
                STATUS.emit("sweep_point", variant=name, batch=batch, samples_ms=samples, peak_bytes=int(peak))
            except Failure as failure:
                if failure.kind == "oom":
                    if runner.cuda:
                        torch.cuda.empty_cache()
                    STATUS.emit("sweep_stop", variant=name, batch=batch, error="", note=f"out of memory at batch {batch}: {failure.message}")
                    break
                STATUS.emit("sweep_stop", variant=name, batch=batch, error=failure.message, note="")
                break
    build_variant(torch, runner, "baseline", runner.inputs)
