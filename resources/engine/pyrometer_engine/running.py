"""Running a loaded model: its inputs on its device, a checked forward pass, timed runs and
what a failed run says."""

import time

from pyrometer_engine.protocol import Failure, STATUS, traceback_tail
from pyrometer_engine.loading import make_inputs, specs_of


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
