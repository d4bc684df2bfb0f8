#!/usr/bin/env python3
"""Runs a PyTorch program under torch.profiler for Pyrometer, without changing the program.

    python pyrometer_record.py [options] -- script.py ARGS...
    python pyrometer_record.py [options] -- -m package.module ARGS...

Steps are found without the program's help: each optimizer step marks a training step (torch 2's
global optimizer hook, else a wrapper of Optimizer.step); without an optimizer, each call of an
outermost nn.Module's forward marks an inference step. The trace is written in the TensorBoard
log layout, DIR/<host>_<pid>.<ns>.pt.trace.json.gz, so a repeated record is a new span of the
same run, and beside it <host>_<pid>.<ns>.pt.memory.json: memory by category over time.

Progress goes as JSON lines to the file descriptor named by PYROMETER_STATUS_FD (else nowhere);
the program's own output is left alone. Each failure is an "error" event whose kind says what
failed: no-torch, no-script, raised (the program's exception), no-step. The exit status is the
program's own (1 when it raised, as Python's); the launcher's own failures, where no program
ran or it took no recorded step, exit with
    3  the interpreter has no torch
    5  the program ended before a step was recorded
A program may exit with these too, so Pyrometer reads the events, never the status.
"""

import _thread
import argparse
import functools
import gzip
import importlib
import json
import os
import runpy
import signal
import socket
import sys
import threading
import time
import traceback
import weakref

EXIT_NO_TORCH = 3
EXIT_NO_STEP = 5
# After a cancel, how long the program may take to end the step in progress before it is
# interrupted inside it.
CANCEL_WAIT_SECONDS = 2.0

# The names a trace and its memory file have while they are written, after the stem.
TRACE_PARTIAL = ".pt.trace.json.part.gz"  # export_chrome_trace gzips a name ending in .gz
MEMORY_PARTIAL = ".pt.memory.json.part"

CATEGORIES = ["parameters", "gradients", "optimizer_state", "activations", "inputs", "temporaries", "other"]


class _Status:
    """The host's channel. A signal handler (a cancel) may emit while an event is being written:
    its event waits for the one it interrupted, never a write inside a write."""

    def __init__(self):
        self._fd = None
        self._pending = []
        self._emitting = False
        fd = os.environ.pop("PYROMETER_STATUS_FD", "")
        if fd.isdigit():
            try:
                os.set_inheritable(int(fd), False)  # the program's own children must not hold it open
                self._fd = int(fd)
            except OSError:
                self._fd = None

    def connected(self):
        return self._fd is not None

    def emit(self, event, **fields):
        if self._fd is None:
            return
        self._pending.append((json.dumps(dict(event=event, **fields)) + "\n").encode())
        if self._emitting:
            return  # a handler's event: the emit it interrupted writes it
        self._emitting = True
        try:
            while self._pending:
                data = self._pending.pop(0)
                while data:
                    data = data[os.write(self._fd, data):]
        except OSError:
            self._fd = None
        finally:
            self._emitting = False


STATUS = _Status()


class RecordingDone(BaseException):
    """Raised at a step boundary to end the program once its record is written (BaseException, so
    that the program's own `except Exception` does not swallow it)."""


def _parse(argv):
    parser = argparse.ArgumentParser(prog="pyrometer_record.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="the TensorBoard log folder the trace is written to")
    parser.add_argument("--skip", type=int, default=1, help="steps not recorded at the start")
    parser.add_argument("--warmup", type=int, default=1, help="steps profiled but not kept, before each record")
    parser.add_argument("--steps", type=int, default=5, help="steps recorded in each repeat")
    parser.add_argument("--repeat", type=int, default=1, help="records taken, each a new trace")
    parser.add_argument("--mark", choices=["auto", "optimizer", "forward", "time"], default="auto")
    parser.add_argument("--delay", type=float, default=0.0, help="time mode: seconds before recording")
    parser.add_argument("--duration", type=float, default=5.0, help="time mode: seconds recorded")
    parser.add_argument("--activities", default="cpu", help="cpu, cuda or cpu,cuda")
    parser.add_argument("--record-shapes", action="store_true")
    parser.add_argument("--profile-memory", action="store_true")
    parser.add_argument("--with-stack", action="store_true")
    parser.add_argument("--with-modules", action="store_true")
    parser.add_argument("--keep-running", action="store_true",
                        help="let the program run on after its last record (default: end it there)")
    parser.add_argument("--probe", action="store_true", help="print what this interpreter's torch offers and exit")
    parser.add_argument("program", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    if options.program and options.program[0] == "--":
        options.program = options.program[1:]
    if not options.probe and not options.program:
        parser.error("no program given: -- script.py ARGS or -- -m module ARGS")
    if options.steps < 1 or options.skip < 0 or options.warmup < 0 or options.repeat < 1:
        parser.error("--steps and --repeat must be at least 1, --skip and --warmup at least 0")
    return options


def _import_torch():
    try:
        import torch  # noqa: F401
        import torch.profiler  # noqa: F401
        return torch
    except Exception as error:  # ImportError, or a torch that fails while importing
        message = "%s: cannot import torch: %s" % (sys.executable, error)
        print("pyrometer: " + message, file=sys.stderr)
        STATUS.emit("error", kind="no-torch", message=message)
        sys.exit(EXIT_NO_TORCH)


def _preload_lazy_imports(torch):
    """Imports now what torch itself imports on first use, so that torch's one-time cost falls
    before the program starts, like `import torch`, and not into a time window or a step.

    torch 2 defers `torch._dynamo` (about 2 s on a CPU) to the first call of anything wrapped in
    `torch._disable_dynamo`, which includes every optimizer's __init__: a window opened a moment
    after the start would otherwise hold that import and none of the program's steps."""
    if not hasattr(torch, "_disable_dynamo"):  # torch 1: no lazily imported compiler
        return
    try:
        importlib.import_module("torch._dynamo")
    except Exception as error:  # a torch whose compiler cannot load here: torch will say so if used
        print("pyrometer: torch._dynamo could not be imported ahead of the program (%s)" % error,
              file=sys.stderr)


def _version_at_least(torch, major, minor):
    parts = torch.__version__.split("+")[0].split(".")
    try:
        return (int(parts[0]), int(parts[1])) >= (major, minor)
    except (ValueError, IndexError):
        return False


def _probe(torch):
    cuda = bool(torch.cuda.is_available())
    kineto = bool(getattr(torch.autograd, "kineto_available", lambda: False)())
    return dict(torch=torch.__version__, python=sys.version.split()[0], executable=sys.executable,
                cuda=cuda, cuda_devices=torch.cuda.device_count() if cuda else 0, kineto=kineto,
                optimizer_hook=_version_at_least(torch, 2, 0), memory_timeline=_version_at_least(torch, 2, 1))


class _Allocator:
    """The allocator's total of bytes in use: CUDA's caching allocator on a GPU, else glibc's
    malloc (CPU tensors are malloc'd), else the resident set."""

    def __init__(self, torch, cuda):
        self.torch = torch
        self.cuda = cuda
        self._mallinfo2 = None
        self.name = "resident set size (/proc/self/statm)"
        if cuda:
            self.name = "CUDA caching allocator (torch.cuda.memory_allocated)"
            return
        try:
            import ctypes

            class MallInfo2(ctypes.Structure):
                _fields_ = [(name, ctypes.c_size_t) for name in
                            ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
                             "fordblks", "keepcost")]

            libc = ctypes.CDLL(None)
            function = libc.mallinfo2
            function.restype = MallInfo2
            self._mallinfo2 = function
            self.name = "glibc malloc (mallinfo2: in-use chunks plus mmapped blocks)"
        except (OSError, AttributeError):
            self._mallinfo2 = None

    def total(self):
        if self.cuda:
            return int(self.torch.cuda.memory_allocated())
        if self._mallinfo2 is not None:
            info = self._mallinfo2()
            return int(info.uordblks + info.hblkhd)
        try:
            with open("/proc/self/statm") as statm:
                return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except OSError:
            return 0


def _tensor_bytes(tensors, seen):
    total = 0
    for tensor in tensors:
        if tensor is None:
            continue
        key = (tensor.data_ptr(), tensor.numel(), tensor.element_size())
        if key in seen or tensor.data_ptr() == 0:
            continue
        seen.add(key)
        total += tensor.numel() * tensor.element_size()
    return total


def _tensors_in(value, torch, depth=0):
    if isinstance(value, torch.Tensor):
        yield value
    elif depth < 4 and isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensors_in(item, torch, depth + 1)
    elif depth < 4 and isinstance(value, dict):
        for item in value.values():
            yield from _tensors_in(item, torch, depth + 1)


class _Memory:
    """Memory by category, measured at step boundaries: parameters and gradients from the
    modules and optimizers, optimizer state from the optimizers, inputs from the outermost
    forward's arguments, activations from what the forward left allocated, and the rest of the
    allocator's total (less what was in use before the program started) as other."""

    MAX_SAMPLES = 20000

    def __init__(self, torch, cuda):
        self.torch = torch
        self.allocator = _Allocator(torch, cuda)
        self.baseline = self.allocator.total()
        self.started = time.perf_counter()
        self.modules = weakref.WeakSet()
        self.optimizers = weakref.WeakSet()
        self.samples = []
        self.inputs = []
        self.forward_start_total = None
        self.activations = 0
        self.profiler = None  # the schedule's profiler, whose step names the samples

    def profiler_step(self):
        """N of the ProfilerStep#N slice the profiler has open, as the trace names the step: torch
        1.x names a step by the number before it, torch 2.x by its own (None: no step open)."""
        step = getattr(self.profiler, "step_rec_fn", None)
        name = getattr(step, "name", "")
        if isinstance(name, str) and name.startswith("ProfilerStep#") and name[13:].isdigit():
            return int(name[13:])
        return None

    def _parameters(self):
        found = []
        for module in list(self.modules):
            found.extend(module.parameters())
        for optimizer in list(self.optimizers):
            for group in optimizer.param_groups:
                found.extend(group["params"])
        return found

    def sample(self, step, phase, recorded):
        if len(self.samples) >= self.MAX_SAMPLES:
            return
        torch = self.torch
        parameters = self._parameters()
        seen = set()
        parameter_bytes = _tensor_bytes(parameters, seen)
        gradient_bytes = _tensor_bytes([p.grad for p in parameters], seen)
        state = []
        for optimizer in list(self.optimizers):
            for values in optimizer.state.values():
                state.extend(_tensors_in(values, torch))
        state_bytes = _tensor_bytes(state, seen)
        input_bytes = _tensor_bytes(self.inputs, seen)
        total = self.allocator.total()
        if phase == "forward_start":
            self.forward_start_total = total
            self.activations = 0
        elif phase == "forward_end" and self.forward_start_total is not None:
            self.activations = max(0, total - self.forward_start_total)
        elif phase == "step_end":
            self.activations = 0
        known = parameter_bytes + gradient_bytes + state_bytes + input_bytes + self.activations
        other = max(0, total - self.baseline - known)
        self.samples.append(dict(t=round(time.perf_counter() - self.started, 6), step=step,
                                 profiler_step=self.profiler_step(), phase=phase, recorded=recorded,
                                 bytes=[parameter_bytes, gradient_bytes, state_bytes, self.activations, input_bytes,
                                        0, other]))

    def document(self, resolution):
        return dict(format=1, source="launcher", device="cuda" if self.allocator.cuda else "cpu",
                    allocator=self.allocator.name, baseline_bytes=self.baseline, resolution=resolution,
                    categories=CATEGORIES, samples=self.samples)


class Recorder:
    def __init__(self, options, torch):
        self.options = options
        self.torch = torch
        self.info = _probe(torch)
        activities = [a.strip() for a in options.activities.split(",") if a.strip()]
        self.cuda = "cuda" in activities and self.info["cuda"]
        if "cuda" in activities and not self.info["cuda"]:
            print("pyrometer: CUDA activities left out: this interpreter's torch sees no GPU", file=sys.stderr)
        self.memory = _Memory(torch, self.cuda)
        self.mode = options.mark
        self.step = 0  # marked steps so far
        self.recorded = 0
        self.asked = options.steps * options.repeat
        self.traces = []
        self.depth = 0
        self.in_step = 0
        self.profiler = None
        self.done = False
        self.cancelled = False  # the host asked to stop (SIGINT): the record ends at the next step's end
        self.writing = False  # a record's events are collected and its trace written
        self.stem = None  # the files being written, while writing
        self.drop_asked = False  # interrupted once while writing: a second interrupt drops the write
        self.cancel_timer = None
        self.host = socket.gethostname()

    # --- the profiler --------------------------------------------------------------------------
    def _activities(self):
        ProfilerActivity = self.torch.profiler.ProfilerActivity
        activities = [ProfilerActivity.CPU]
        if self.cuda:
            activities.append(ProfilerActivity.CUDA)
        return activities

    def _make_profiler(self, schedule):
        o = self.options
        return self.torch.profiler.profile(activities=self._activities(), schedule=schedule,
                                           on_trace_ready=self._trace_ready, record_shapes=o.record_shapes,
                                           profile_memory=o.profile_memory, with_stack=o.with_stack,
                                           with_modules=o.with_modules)

    def _stem(self):
        os.makedirs(self.options.out, exist_ok=True)
        return os.path.join(self.options.out, "%s_%d.%d" % (self.host, os.getpid(), time.time_ns()))

    def _begin_writing(self):
        """A record ends: the profiler collects its events, then the trace is written, which takes
        seconds for hundreds of steps. The host is told before the collection starts, so that a
        cancel waits for the write; the partial files are named, so that a dropped write leaves
        nothing behind."""
        if self.writing:
            return
        self.writing = True
        self.stem = self._stem()
        STATUS.emit("writing", recorded=self.recorded, asked=self.asked,
                    partial=[self.stem + TRACE_PARTIAL, self.stem + MEMORY_PARTIAL])

    def _end_writing(self):
        self.writing = False
        self.stem = None

    def _trace_ready(self, profiler):
        self._begin_writing()  # a record the schedule ended where no step foresaw it
        stem = self.stem
        path = stem + ".pt.trace.json.gz"
        partial = stem + TRACE_PARTIAL
        memory_path = stem + ".pt.memory.json"
        try:
            profiler.export_chrome_trace(partial)
            os.replace(partial, path)
            self._write_memory(profiler, memory_path)
        except BaseException:
            # A second interrupt drops the write: no partial file is left for a trace.
            for name in (partial, stem + MEMORY_PARTIAL):
                try:
                    os.remove(name)
                except OSError:
                    pass
            raise
        finally:
            self._end_writing()
        self.traces.append(path)
        STATUS.emit("trace", path=path, memory=memory_path, recorded=self.recorded, asked=self.asked,
                    cancelled=self.cancelled)
        if not STATUS.connected():  # else the host says so
            print("pyrometer: trace written to %s" % path, file=sys.stderr)

    def _write_memory(self, profiler, path):
        document = None
        # torch's timeline needs the stacks (and shapes) of the allocations: without them it raises.
        if self.options.profile_memory and self.options.with_stack and self.options.record_shapes \
                and self.info["memory_timeline"]:
            document = self._profiler_memory_timeline(profiler)
        if document is None:
            resolution = ("3 samples per step (forward start, forward end, step end)" if self.mode != "forward"
                          else "2 samples per step (forward start, forward end)")
            document = self.memory.document(resolution)
        with open(path + ".part", "w") as out:  # the stem's MEMORY_PARTIAL
            json.dump(document, out)
        os.replace(path + ".part", path)

    def _profiler_memory_timeline(self, profiler):
        """torch >= 2.1: the profiler's own categories (needs record_shapes and with_stack)."""
        try:
            from torch.profiler import _memory_profiler as mp
            timeline = mp.MemoryProfileTimeline(profiler._memory_profile())
            device = "cuda:0" if self.cuda else "cpu"
            times, sizes = timeline._coalesce_timeline(device)
            names = {"PARAMETER": 0, "GRADIENT": 1, "OPTIMIZER_STATE": 2, "ACTIVATION": 3, "INPUT": 4,
                     "TEMPORARY": 5}
            # The columns of _coalesce_timeline, in _CATEGORY_TO_INDEX's order (None: unknown).
            order = sorted(mp._CATEGORY_TO_INDEX, key=mp._CATEGORY_TO_INDEX.get)
            samples = []
            first = times[0] if times else 0
            for t, row in zip(times, sizes):  # t in microseconds
                values = [0] * len(CATEGORIES)
                for category, size in zip(order, row):
                    index = names.get(category.name, 6) if category is not None else 6
                    values[index] += int(size)
                samples.append(dict(t=round((t - first) / 1e6, 6), step=-1, phase="event", recorded=True,
                                    bytes=values))
            return dict(format=1, source="profiler", device=device, allocator="torch profiler memory timeline",
                        baseline_bytes=0, resolution="every allocation and free of the recorded steps",
                        categories=CATEGORIES, samples=samples)
        except Exception as error:  # an internal API: fall back to the launcher's own samples
            print("pyrometer: the profiler's memory timeline failed (%s); measuring at step boundaries" % error,
                  file=sys.stderr)
            return None

    def _recording(self, step_number):
        """Whether the profiler's schedule records the step numbered step_number."""
        o = self.options
        cycle = o.warmup + o.steps
        index = step_number - o.skip
        if index < 0 or index >= cycle * o.repeat:
            return False
        return index % cycle >= o.warmup

    def start(self):
        o = self.options
        # Set whatever the host left SIGINT as (a shell's background job inherits it ignored).
        signal.signal(signal.SIGINT, self._interrupted)
        self._install_step_marks()
        if self.mode == "time":
            self._start_time_window()
            return
        schedule = self.torch.profiler.schedule(wait=0, warmup=o.warmup, active=o.steps, repeat=o.repeat,
                                                skip_first=o.skip)
        self.profiler = self._make_profiler(schedule)
        self.memory.profiler = self.profiler
        self.profiler.start()

    def _ends_a_record(self):
        """Whether the profiler's next step() ends a record (and writes it): the step just
        marked was recorded, and the next one starts a new cycle or none."""
        o = self.options
        if not self._recording(self.step - 1):
            return False
        return not self._recording(self.step) or (self.step - o.skip) % (o.warmup + o.steps) == 0

    def _open_record_has_steps(self, step_ended):
        """Whether the record in progress holds a whole recorded step: a program that fails in
        the first step of a record leaves only part of one, which is not a trace to keep. With
        step_ended, the profiler's step (the last marked one) has just ended whole, and counts."""
        if self.mode == "time":
            return True
        if step_ended:
            return self._recording(self.step - 1)
        if not self._recording(self.step):
            return False
        o = self.options
        return (self.step - o.skip) % (o.warmup + o.steps) > o.warmup

    def finish(self, step_ended=False):
        """The program ended, or was cancelled at a step's end (step_ended): a record still open
        is written with the steps it has."""
        if self.profiler is not None:
            profiler, self.profiler = self.profiler, None
            if self._open_record_has_steps(step_ended):
                self._begin_writing()
                try:
                    profiler.stop()
                finally:
                    self._end_writing()
            else:
                # Nothing is being recorded: stop without writing an empty trace.
                profiler.on_trace_ready = None
                profiler.stop()

    def _interrupted(self, signum, frame):
        """SIGINT, the host's Cancel (or Ctrl+C): the record ends at the end of the step in
        progress, so that it holds whole steps. A program that does not end it within
        CANCEL_WAIT_SECONDS (a long step, a data load, a sleep) is interrupted where it is, as
        Python would (KeyboardInterrupt), and the record keeps the whole steps before. A second
        SIGINT interrupts at once. While a trace is written, the first is waited out (the host
        says so) and a second drops the write."""
        if self.writing:
            if self.drop_asked:
                raise KeyboardInterrupt()
            self.drop_asked = True
            self.cancelled = True
            STATUS.emit("cancelling", step=self.step, recorded=self.recorded, asked=self.asked, writing=True)
            return
        if self.done:
            return
        if self.mode == "time":
            self.cancelled = True
            self.done = True
            self.finish()  # the window closes now, with what it has
            raise RecordingDone()
        if self.cancelled:
            raise KeyboardInterrupt()
        self.cancelled = True
        STATUS.emit("cancelling", step=self.step, recorded=self.recorded, asked=self.asked)
        self.cancel_timer = threading.Timer(CANCEL_WAIT_SECONDS, _thread.interrupt_main)
        self.cancel_timer.daemon = True
        self.cancel_timer.start()

    # --- steps ---------------------------------------------------------------------------------
    def mark_step(self, kind):
        if self.done or self.mode == "time":
            return
        if self.mode == "auto":
            self.mode = kind
        if kind != self.mode:
            return
        recorded = self._recording(self.step)
        self.memory.sample(self.step, "step_end" if kind == "optimizer" else "forward_end", recorded)
        if recorded:
            self.recorded += 1
        self.step += 1
        STATUS.emit("step", step=self.step, recorded=self.recorded, asked=self.asked, kind=kind)
        if self.cancelled:
            # Stopped at a step's end: the record holds whole steps, this one the last; the
            # interrupt meant for a step that does not end is not needed any more.
            if self.cancel_timer is not None:
                self.cancel_timer.cancel()
            self.done = True
            self.finish(step_ended=True)
            raise RecordingDone()
        if self.profiler is not None:
            if self._ends_a_record():
                self._begin_writing()
            try:
                self.profiler.step()
            finally:
                self._end_writing()
        if self.recorded >= self.asked and not self.options.keep_running:
            self.done = True
            self.finish()
            raise RecordingDone()

    def _install_step_marks(self):
        torch = self.torch
        recorder = self
        optimizer_class = torch.optim.Optimizer
        original_init = optimizer_class.__init__

        @functools.wraps(original_init)
        def init(optimizer, *args, **kwargs):
            original_init(optimizer, *args, **kwargs)
            recorder.memory.optimizers.add(optimizer)
            if recorder.mode == "auto":
                recorder.mode = "optimizer"
            if not recorder.info["optimizer_hook"]:
                recorder._wrap_step(type(optimizer))

        optimizer_class.__init__ = init
        if self.info["optimizer_hook"]:
            from torch.optim.optimizer import register_optimizer_step_post_hook
            register_optimizer_step_post_hook(lambda optimizer, args, kwargs: recorder.mark_step("optimizer"))

        # The model is an outermost module with parameters: a loss or a transform called on
        # its own is neither a step nor the model's forward.
        def is_model(module):
            return next(module.parameters(), None) is not None

        def pre_hook(module, inputs):
            recorder.depth += 1
            if recorder.depth == 1 and is_model(module):
                recorder.memory.modules.add(module)
                recorder.memory.inputs = list(_tensors_in(inputs, torch))
                recorder.memory.sample(recorder.step, "forward_start", recorder._recording(recorder.step))

        def post_hook(module, inputs, output):
            recorder.depth = max(0, recorder.depth - 1)
            if recorder.depth == 0 and is_model(module):
                if recorder.mode in ("auto", "forward"):
                    recorder.mark_step("forward")
                else:
                    recorder.memory.sample(recorder.step, "forward_end", recorder._recording(recorder.step))

        torch.nn.modules.module.register_module_forward_pre_hook(pre_hook)
        torch.nn.modules.module.register_module_forward_hook(post_hook)

    def _wrap_step(self, cls):
        """torch < 2: wrap the optimizer class's step (after torch's own profiling wrapper, so the
        mark falls outside its Optimizer.step#… slice). A subclass calling super().step() marks once."""
        step = cls.step
        if getattr(step, "_pyrometer_marked", False):
            return
        recorder = self

        @functools.wraps(step)
        def marked_step(optimizer, *args, **kwargs):
            recorder.in_step += 1
            try:
                result = step(optimizer, *args, **kwargs)
            finally:
                recorder.in_step -= 1
            if recorder.in_step == 0:
                recorder.depth = 0  # a forward that raised left its depth behind
                recorder.mark_step("optimizer")
            return result

        marked_step._pyrometer_marked = True
        cls.step = marked_step

    # --- a time window -------------------------------------------------------------------------
    def _start_time_window(self):
        """Signal handlers run in the main thread between bytecodes, where the profiler was
        started, so the window opens and closes at any point of the program."""
        o = self.options

        def open_window(*_):
            self.profiler = self._make_profiler(None)
            self.profiler.start()
            STATUS.emit("window", state="open", seconds=o.duration)
            signal.signal(signal.SIGALRM, close_window)
            signal.setitimer(signal.ITIMER_REAL, o.duration)

        def close_window(*_):
            self.recorded = self.asked
            self.finish()
            if not o.keep_running:
                self.done = True
                raise RecordingDone()

        self.asked = 1
        if o.delay > 0:
            signal.signal(signal.SIGALRM, open_window)
            signal.setitimer(signal.ITIMER_REAL, o.delay)
        else:
            open_window()


def _run_program(program):
    if program[0] == "-m":
        if len(program) < 2:
            raise SystemExit("pyrometer: -m needs a module name")
        sys.argv = [program[1]] + program[2:]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(program[1], run_name="__main__", alter_sys=True)
    else:
        script = program[0]
        sys.argv = list(program)
        sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
        runpy.run_path(script, run_name="__main__")


def main(argv):
    options = _parse(argv)
    torch = _import_torch()
    info = _probe(torch)
    if options.probe:
        print(json.dumps(info))
        return 0
    STATUS.emit("start", **info)
    if options.program[0] != "-m" and not os.path.isfile(options.program[0]):
        message = "%s: no such script" % options.program[0]
        print("pyrometer: " + message, file=sys.stderr)
        STATUS.emit("error", kind="no-script", message=message)
        return 2
    _preload_lazy_imports(torch)  # before the memory baseline: torch's, not the program's
    recorder = Recorder(options, torch)
    recorder.start()
    status = 0
    try:
        _run_program(options.program)
    except RecordingDone:
        pass
    except SystemExit as exit_request:
        code = exit_request.code
        status = code if isinstance(code, int) else (0 if code is None else 1)
        if not isinstance(code, int) and code is not None:
            print(code, file=sys.stderr)
    except KeyboardInterrupt:
        status = 130
        print("pyrometer: interrupted", file=sys.stderr)
    except BaseException as error:
        traceback.print_exc()
        status = 1
        # The exception's own last line ("ValueError: ..."; a SyntaxError's location is above it).
        message = traceback.format_exception_only(type(error), error)[-1].strip()
        STATUS.emit("error", kind="raised", message=message, step=recorder.step, recorded=recorder.recorded)
    try:
        if not recorder.done:
            recorder.finish()
    except Exception as error:  # a broken record must not hide the program's own status
        print("pyrometer: writing the trace failed: %s" % error, file=sys.stderr)
    if status == 0 and not recorder.traces:
        message = "the program ended after %d steps, before a step was recorded (skip %d, warm-up %d)" % (
            recorder.step, options.skip, options.warmup)
        print("pyrometer: " + message, file=sys.stderr)
        STATUS.emit("error", kind="no-step", message=message, steps=recorder.step)
        status = EXIT_NO_STEP
    STATUS.emit("exit", status=status, steps=recorder.step, recorded=recorder.recorded, traces=recorder.traces)
    return status


if __name__ == "__main__":
    # The launcher's own frames stay out of the program's tracebacks as far as runpy allows.
    threading.current_thread().name = "MainThread"
    sys.exit(main(sys.argv[1:]))
