"""One request served: hello, the model loaded once, its tasks in order, done or error."""

import json
import platform
import sys

from pyrometer_engine.protocol import EXIT_FAILED, EXIT_NO_TORCH, Failure, PROTOCOL, STATUS, traceback_tail
from pyrometer_engine.loading import load_model, module_tree
from pyrometer_engine.running import Runner, run_latency
from pyrometer_engine.profiling import kineto_available, record_ops, run_profile
from pyrometer_engine.variants import run_compare, run_sweep


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
