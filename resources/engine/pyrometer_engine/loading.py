"""Loading a model once: a torch.export program, a factory of model.py, TorchScript of any
version (never a pickle's code), its inputs, and its module tree."""

import importlib.util
import os
import sys

from pyrometer_engine.protocol import Failure, traceback_tail


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
