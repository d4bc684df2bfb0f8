#!/usr/bin/env python3
"""Pyrometer's Python model engine: profiles a model in the user's own interpreter.

    python pyrometer_engine.py REQUEST.json

The request names the model and the tasks to run on it, in order; the model is loaded once.
Models: a torch.export program (.pt2), TorchScript of any version (.pt), or a Python file and a
factory, "model.py:build", returning an nn.Module or (module, example inputs). A state_dict is
refused: it holds weights without a model.

    {"model": "...", "device": "cpu"|"cuda", "inputs": [{"shape": [1, 3, 224, 224], "dtype": "float32"}],
     "threads": 0, "tasks": [{"task": "latency", "warmup": 10, "iterations": 50}, ...]}

Tasks: "latency" (timed runs), "ops" (every top-level operator of one forward with its argument
and output shapes and its module, for the FLOPs formulas Pyrometer shares between its engines),
"profile" (runs under torch.profiler, their operators with module and memory, and the trace),
"sweep" (latency per batch size and variant) and "compare" (variants against the baseline).

Everything the host reads goes as JSON lines to the file descriptor PYROMETER_STATUS_FD names,
one record per line (protocol PROTOCOL, said in "hello"; a list of results is streamed as
"begin", one "item" per element and "end"); the model's own output is left alone. Exit status:
0 done, 2 the request failed (the "error" event says why), 3 no torch in this interpreter.
"""

import importlib.util
import json
import math
import os
import platform
import sys
import tempfile
import time
import traceback

PROTOCOL = 1
EXIT_FAILED = 2
EXIT_NO_TORCH = 3


class Status:
    def __init__(self):
        self._out = None
        fd = os.environ.pop("PYROMETER_STATUS_FD", "")
        if fd.isdigit():
            try:
                os.set_inheritable(int(fd), False)
                self._out = os.fdopen(int(fd), "w", buffering=1)
            except OSError:
                self._out = None

    def emit(self, event, **fields):
        line = json.dumps(dict(event=event, **fields), allow_nan=False, default=str)
        if self._out is None:
            print(line, flush=True)
            return
        try:
            self._out.write(line + "\n")
            self._out.flush()
        except (OSError, ValueError):
            self._out = None

    def stream(self, event, lists, **fields):
        """An event whose lists may be long, one record per line: the host assembles them."""
        self.emit("begin", of=event, **fields)
        for name, items in lists.items():
            for item in items:
                self.emit("item", of=event, list=name, item=item)
        self.emit("end", of=event)


STATUS = Status()


class Failure(Exception):
    """A request that cannot be served: kind names the case, message says what to do."""

    def __init__(self, kind, message, detail=None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.detail = detail or []


def traceback_tail(limit=6):
    lines = traceback.format_exc().strip().splitlines()
    return lines[-limit:]


def finite(value):
    return value if value is None or math.isfinite(value) else None


# ---------------------------------------------------------------------------------------------
# Loading


DTYPES = {
    "float32": "float32", "float": "float32", "float64": "float64", "double": "float64",
    "float16": "float16", "half": "float16", "bfloat16": "bfloat16",
    "int64": "int64", "long": "int64", "int32": "int32", "int": "int32", "int8": "int8",
    "uint8": "uint8", "bool": "bool",
}


def dtype_name(torch, dtype):
    return str(dtype).replace("torch.", "")


def make_inputs(torch, specs, device, seed=0):
    generator = torch.Generator().manual_seed(seed)
    tensors = []
    for spec in specs:
        dtype = getattr(torch, DTYPES.get(spec.get("dtype", "float32"), "float32"))
        shape = [int(d) for d in spec["shape"]]
        if dtype.is_floating_point:
            tensor = torch.randn(shape, generator=generator).to(dtype)
        elif dtype == torch.bool:
            tensor = torch.randint(0, 2, shape, generator=generator).to(torch.bool)
        else:
            tensor = torch.randint(0, int(spec.get("high", 2)), shape, generator=generator).to(dtype)
        tensors.append(tensor.to(device))
    return tensors


def specs_of(torch, tensors):
    return [{"shape": list(t.shape), "dtype": dtype_name(torch, t.dtype)} for t in tensors if isinstance(t, torch.Tensor)]


class Model:
    """The loaded model: what runs (module), what names its layers (hooked), and its inputs."""

    def __init__(self):
        self.kind = ""
        self.module = None          # what forward runs
        self.hooked = None          # the nn.Module tree hooks attach to (None: TorchScript)
        self.types = {}             # qualified name -> type name (export: from nn_module_stack)
        self.example = []           # example inputs given with the model
        self.fixed_batch = None     # a .pt2 exported with a fixed first dimension: that size
        self.batch_note = ""
        self.batch_range = None     # a .pt2's dynamic batch: (lowest, highest or None)
        self.script = None          # TorchScript module (for its module tree)


def torch_version_at_least(torch, major, minor):
    try:
        parts = torch.__version__.split("+")[0].split(".")
        return (int(parts[0]), int("".join(c for c in parts[1] if c.isdigit()) or 0)) >= (major, minor)
    except (ValueError, IndexError):
        return False


def refuse_pickle(torch, path):
    """A file torch.load reads but that is no model: say what it holds. It is read with
    weights_only=True: a pickle's code (a whole pickled nn.Module, or anything else) never runs
    unless the user writes the loading themselves."""
    try:
        loaded = torch.load(path, map_location="cpu", weights_only=True)
    except TypeError:
        return None  # a torch without weights_only: nothing is unpickled
    except Exception as error:
        # torch 2.6 refuses a TorchScript archive here too: that is torch.jit.load's to explain.
        if "Weights only load failed" in str(error) and "TorchScript archive" not in str(error):
            reason = str(error).split("WeightsUnpickler error:")[-1].strip().splitlines()[0]
            return Failure("load", f"{path}: a pickle that holds code, not only weights (torch.load with weights_only=True "
                           f"refuses it: {reason}); Pyrometer does not run a file's code unasked: if you "
                           f"trust it, open a model.py whose build() returns torch.load({path!r}, weights_only=False), "
                           "or export TorchScript or torch.export from it")
        return None
    if isinstance(loaded, dict) and loaded and all(isinstance(v, torch.Tensor) for v in loaded.values()):
        return Failure("state_dict", f"{path}: a state_dict ({len(loaded)} tensors) holds weights without a model: "
                       "open the Python file that builds the model instead, as model.py:build "
                       "(a function returning the nn.Module, with the weights loaded)")
    if isinstance(loaded, dict) and any(k in loaded for k in ("state_dict", "model_state_dict", "model")):
        return Failure("state_dict", f"{path}: a checkpoint (a dict of {', '.join(map(str, list(loaded)[:4]))}) holds weights "
                       "without a model's code: open model.py:build instead")
    return Failure("load", f"{path}: torch.load reads a {type(loaded).__name__}, not a model")


def load_export(torch, path, model):
    if not hasattr(torch, "export") or not hasattr(getattr(torch, "export", None), "load"):
        raise Failure("too_old", f"{path}: a torch.export program needs torch 2.1 or newer; this interpreter has "
                      f"torch {torch.__version__}: pick an interpreter with a newer torch, or save the model as TorchScript")
    try:
        program = torch.export.load(path)
    except Exception as error:
        raise Failure("load", f"{path}: torch.export.load failed: {str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__}",
                      traceback_tail())
    model.kind = "export"
    flat = program.module()
    # The module hierarchy as it was exported: nn_module_stack on each node names the module
    # path and class of the code that made it.
    for node in program.graph.nodes:
        stack = node.meta.get("nn_module_stack") or {}
        for _, value in stack.items():
            path_name, type_name = value if isinstance(value, tuple) else (value, "")
            qualified = normalize_export_path(path_name)
            if qualified not in model.types:
                model.types[qualified] = type_name.split(".")[-1] if isinstance(type_name, str) else getattr(type_name, "__name__", "")
    hooked = None
    try:
        hooked = torch.export.unflatten(program)
    except Exception:
        hooked = None
    model.module = hooked if hooked is not None else flat
    model.hooked = hooked
    model.root_type = type(program).__name__
    # Example inputs: the placeholders the program takes from the user.
    specs = []
    fixed = None
    try:
        user_inputs = set(program.graph_signature.user_inputs)
        for node in program.graph.nodes:
            if node.op == "placeholder" and node.name in user_inputs:
                value = node.meta.get("val")
                if value is None or not hasattr(value, "shape"):
                    continue
                dims = []
                for i, d in enumerate(value.shape):
                    symbolic = type(d) is not int  # torch.SymInt: a dynamic dimension
                    if symbolic:
                        # Its hint, never int(d): that would guard the program to this size.
                        hint = getattr(getattr(d, "node", None), "hint", None)
                        dims.append(hint if isinstance(hint, int) else 1)
                    else:
                        dims.append(d)
                    if i == 0 and len(specs) == 0:
                        fixed = -1 if symbolic else dims[-1]
                        if symbolic:
                            model.batch_range = export_range(program, d)
                specs.append({"shape": dims, "dtype": dtype_name(torch, value.dtype)})
    except Exception:
        specs = []
    model.example_specs = specs
    if fixed is not None and fixed > 0:
        model.fixed_batch = fixed
        model.batch_note = (f"exported with a fixed batch of {fixed}: it runs only that batch size "
                            "(export with torch.export.Dim on the first dimension to sweep batches)")
    return model


def export_range(program, dim):
    """The sizes a dynamic dimension of a .pt2 admits, (low, high), high None when unbounded."""
    try:
        bounds = program.range_constraints[dim.node.expr]
        low = int(bounds.lower)
        try:
            high = int(bounds.upper)
        except (TypeError, ValueError, OverflowError):
            high = None  # unbounded
        return (low, None if high is not None and high >= 2 ** 62 else high)
    except Exception:
        return None


def normalize_export_path(name):
    # "L['self'].layer1[0].conv1", "L__self___layer1_0_conv1" or "layer1.0.conv1" -> "layer1.0.conv1"
    text = name
    for prefix in ("L['self'].", "L['self']", "L__self__.", "L__self___", "L__self__"):
        if text.startswith(prefix):
            text = text[len(prefix):]
            break
    text = text.replace("[", ".").replace("]", "").replace("'", "")
    text = text.replace("._modules.", ".").replace("_modules.", "")
    return text.strip(".")


def load_factory(torch, spec, model):
    path, _, name = spec.rpartition(":")
    if not os.path.isfile(path):
        raise Failure("load", f"{spec}: no such file {path}")
    directory = os.path.dirname(os.path.abspath(path))
    if directory not in sys.path:
        sys.path.insert(0, directory)
    try:
        module_spec = importlib.util.spec_from_file_location("pyrometer_user_model", path)
        code = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(code)
    except Exception as error:
        raise Failure("factory", f"{path}: importing it raised {type(error).__name__}: {error}", traceback_tail())
    factory = getattr(code, name, None)
    if factory is None or not callable(factory):
        raise Failure("factory", f"{path}: has no function {name} (give FILE.py:FUNCTION, a function returning the nn.Module)")
    try:
        built = factory()
    except Exception as error:
        raise Failure("factory", f"{spec}: {name}() raised {type(error).__name__}: {error}", traceback_tail())
    example = []
    if isinstance(built, (tuple, list)) and len(built) == 2 and isinstance(built[0], torch.nn.Module):
        built, example = built
        if isinstance(example, torch.Tensor):
            example = [example]
        example = list(example)
    if not isinstance(built, torch.nn.Module):
        raise Failure("factory", f"{spec}: {name}() returned a {type(built).__name__}, not an nn.Module "
                      "(return the module, or the module and a tuple of example inputs)")
    model.kind = "factory"
    model.module = built
    model.hooked = built
    model.example_specs = specs_of(torch, example)
    return model


def load_torchscript(torch, path, model):
    extra = {"example_inputs.txt": ""}
    try:
        module = torch.jit.load(path, map_location="cpu", _extra_files=extra)
    except Exception as error:
        refused = refuse_pickle(torch, path)
        if isinstance(refused, Failure):
            raise refused
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise Failure("load", f"{path}: not a model this torch {torch.__version__} loads: {first}", traceback_tail())
    model.kind = "torchscript"
    model.module = module
    model.hooked = None
    model.script = module
    model.example_specs = parse_input_spec(extra.get("example_inputs.txt", b""))
    return model


def parse_input_spec(text):
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    specs = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        shape, _, dtype = part.partition(":")
        try:
            specs.append({"shape": [int(d) for d in shape.split("x")], "dtype": dtype or "float32"})
        except ValueError:
            return []
    return specs


def load_model(torch, request):
    source = request["model"]
    model = Model()
    model.example_specs = []
    model.root_type = ""
    if source.endswith(".pt2"):
        if not os.path.isfile(source):
            raise Failure("load", f"{source}: no such file")
        load_export(torch, source, model)
    elif ".py:" in source or source.endswith(".py"):
        if source.endswith(".py"):
            source += ":build"
        load_factory(torch, source, model)
    else:
        if not os.path.isfile(source):
            raise Failure("load", f"{source}: no such file")
        load_torchscript(torch, source, model)
    device = request.get("device", "cpu")
    try:
        model.module = model.module.to(device)
    except Exception as error:
        raise Failure("device", f"{source}: moving the model to {device} failed: {error}")
    if hasattr(model.module, "eval"):
        try:
            model.module.eval()
        except Exception:
            pass  # an exported program's module refuses train()/eval() in some versions
    return model


# ---------------------------------------------------------------------------------------------
# The module tree


def module_tree(torch, model):
    """Depth-first modules with parameter counts, "" first."""
    root = model.hooked if model.hooked is not None else model.script if model.script is not None else model.module
    rows = []

    def type_of(name, module):
        if name in model.types and model.types[name]:
            return model.types[name]
        if name == "" and model.root_type and model.kind == "export":
            return model.types.get("", "") or "ExportedProgram"
        if model.kind == "torchscript":
            qualified = getattr(getattr(module, "_c", None), "_type", lambda: None)()
            text = str(qualified) if qualified is not None else getattr(module, "original_name", "")
            return text.split(".")[-1] if text else type(module).__name__
        return type(module).__name__

    def visit(name, module, depth):
        own = sum(p.numel() for _, p in module.named_parameters(recurse=False))
        total = sum(p.numel() for p in module.parameters())
        rows.append({"name": name, "type": type_of(name, module), "depth": depth, "own": int(own), "total": int(total)})
        for child_name, child in module.named_children():
            visit(f"{name}.{child_name}" if name else child_name, child, depth + 1)

    visit("", root, 0)
    return rows


# ---------------------------------------------------------------------------------------------
# Running


class Runner:
    def __init__(self, torch, model, request):
        self.torch = torch
        self.model = model
        self.device = request.get("device", "cpu")
        self.cuda = self.device.startswith("cuda")
        specs = request.get("inputs") or model.example_specs
        if not specs:
            raise Failure("inputs", f"{request['model']}: no input shapes given and the model records none: "
                          "give them in the Inputs field or as --input 1x3x224x224")
        self.specs = specs
        self.inputs = make_inputs(torch, specs, self.device)
        self.autocast = None
        self.forward = model.module

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize()

    def call(self, inputs=None):
        torch = self.torch
        args = self.inputs if inputs is None else inputs
        with torch.no_grad():
            if self.autocast is not None:
                with torch.autocast(device_type="cuda" if self.cuda else "cpu", dtype=self.autocast):
                    return self.forward(*args)
            return self.forward(*args)

    def run_checked(self, inputs=None):
        try:
            return self.call(inputs)
        except Exception as error:
            raise classify_run_error(self.torch, error, self.specs if inputs is None else specs_of(self.torch, inputs))

    def timed(self, inputs=None):
        self.sync()
        start = time.perf_counter_ns()
        output = self.run_checked(inputs)
        self.sync()
        return (time.perf_counter_ns() - start) / 1e6, output


def first_line(error):
    """The line of an exception's text that says what went wrong: after a "... raised:" header
    (torch.compile's backend errors), else the first."""
    lines = [line.strip() for line in str(error).strip().splitlines()]
    for i, line in enumerate(lines):
        if line.endswith("raised:"):
            for after in lines[i + 1:]:
                if after:
                    return after
    for line in lines:
        if line:
            return line
    return type(error).__name__


def classify_run_error(torch, error, specs):
    text = str(error).strip()
    first = first_line(error)
    shapes = ", ".join("x".join(str(d) for d in s["shape"]) for s in specs)
    if isinstance(error, MemoryError) or "out of memory" in text.lower() or "DefaultCPUAllocator: can't allocate" in text:
        return Failure("oom", f"out of memory with inputs {shapes}: {first}")
    if any(word in text for word in ("size mismatch", "shape", "Expected", "mat1 and mat2", "must match", "dimension")):
        return Failure("shape", f"the model does not take inputs of shape {shapes}: {first}", traceback_tail())
    return Failure("run", f"the forward pass failed: {type(error).__name__}: {first}", traceback_tail())


def run_latency(runner, task, label="latency"):
    warmup = max(0, int(task.get("warmup", 10)))
    iterations = max(1, int(task.get("iterations", 50)))
    total = 1 + warmup + iterations
    cold, _ = runner.timed()
    done = 1
    for _ in range(warmup):
        runner.timed()
        done += 1
        STATUS.emit("progress", done=done, total=total, text=label)
    samples = []
    for _ in range(iterations):
        ms, _ = runner.timed()
        samples.append(ms)
        done += 1
        STATUS.emit("progress", done=done, total=total, text=label)
    return cold, samples


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


# ---------------------------------------------------------------------------------------------


def hello(torch):
    cuda = False
    reason = ""
    try:
        cuda = bool(torch.cuda.is_available())
        if not cuda:
            reason = "this torch was built without CUDA" if not torch.backends.cuda.is_built() else "no CUDA device is visible"
    except Exception as error:
        reason = str(error)
    devices = ["cpu"] + ([f"cuda:{i}" for i in range(torch.cuda.device_count())] if cuda else [])
    names = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())] if cuda else []
    STATUS.emit("hello", protocol=PROTOCOL, python=platform.python_version(), executable=sys.executable, torch=torch.__version__,
                devices=devices, device_names=names, cuda_reason=reason, kineto=kineto_available(torch),
                export=hasattr(torch, "export") and hasattr(torch.export, "load"), compile=hasattr(torch, "compile"),
                threads=torch.get_num_threads())


def serve(torch, request):
    threads = int(request.get("threads", 0) or 0)
    if threads > 0:
        torch.set_num_threads(threads)
    device = request.get("device", "cpu")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise Failure("device", f"torch {torch.__version__} in {sys.executable} has no CUDA device: run on cpu")
    STATUS.emit("progress", done=0, total=1, text="loading")
    model = load_model(torch, request)
    tree = module_tree(torch, model)
    parameters = sum(row["own"] for row in tree)
    try:
        root = model.hooked if model.hooked is not None else model.module
        parameter_bytes = sum(p.numel() * p.element_size() for p in root.parameters())
    except Exception:
        parameter_bytes = 0
    tasks = request.get("tasks", [])
    # Opening (no task) needs no inputs: a factory that returns only its module opens, and its
    # inputs are asked for when something runs.
    runner = Runner(torch, model, request) if tasks or request.get("inputs") or model.example_specs else None
    STATUS.stream("loaded", {"modules": tree}, kind=model.kind, parameters=int(parameters), parameter_bytes=int(parameter_bytes),
                  inputs=runner.specs if runner else [], example_inputs=model.example_specs,
                  fixed_batch=model.fixed_batch or 0, batch_note=model.batch_note, threads=torch.get_num_threads())
    for task in tasks:
        kind = task.get("task")
        if kind == "latency":
            cold, samples = run_latency(runner, task)
            STATUS.emit("latency", cold_ms=cold, samples_ms=samples)
        elif kind == "ops":
            STATUS.stream("ops", {"ops": record_ops(runner)})
        elif kind == "profile":
            profile = run_profile(runner, task)
            STATUS.stream("profile", {"ops": profile.pop("ops"), "memory": profile.pop("memory")}, **profile)
        elif kind == "compare":
            run_compare(runner, task)
        elif kind == "sweep":
            run_sweep(runner, task)
        else:
            raise Failure("request", f"unknown task {kind}")
        STATUS.emit("task_done", task=kind)


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return EXIT_FAILED
    try:
        with open(argv[1]) as stream:
            request = json.load(stream)
    except (OSError, ValueError) as error:
        STATUS.emit("error", kind="request", message=f"{argv[1]}: {error}", detail=[])
        return EXIT_FAILED
    try:
        import torch
    except ImportError as error:
        STATUS.emit("error", kind="no_torch", message=f"{sys.executable} (Python {platform.python_version()}) cannot import torch: {error}",
                    detail=[])
        return EXIT_NO_TORCH
    hello(torch)
    if request.get("probe"):
        STATUS.emit("done")
        return 0
    try:
        serve(torch, request)
    except Failure as failure:
        STATUS.emit("error", kind=failure.kind, message=failure.message, detail=failure.detail)
        return EXIT_FAILED
    except KeyboardInterrupt:
        STATUS.emit("error", kind="cancelled", message="cancelled", detail=[])
        return EXIT_FAILED
    except MemoryError:
        STATUS.emit("error", kind="oom", message="out of memory", detail=traceback_tail())
        return EXIT_FAILED
    except Exception as error:
        STATUS.emit("error", kind="internal", message=f"{type(error).__name__}: {error}", detail=traceback_tail())
        return EXIT_FAILED
    STATUS.emit("done")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
