#!/usr/bin/env python3
"""The GPU check: runs pyrometer-cli end to end on an NVIDIA CUDA GPU, in a Python whose torch
is a CUDA build, and checks what it prints. scripts/gpu-check runs it; see its --help.

Two halves:
  - the driver (this file, stdlib only): probes the chosen Python, runs pyrometer-cli, checks its
    JSON and prints one line per step or check (PASS / FAIL / SKIP) and a report;
  - the workers (gpu_check_worker.py), run by the chosen Python (with torch): they build the
    models, and they are the programs `pyrometer-cli record` records.

Without a CUDA device it says why at the top, marks every CUDA step and check SKIP with that
reason, and runs a short CPU smoke test of the same pipeline (build, profile, flops, record,
roofline of the recorded trace) instead.

Exit status: 0 nothing failed (SKIPs allowed), 1 a step or check failed, 2 could not start
(no pyrometer-cli, or no torch in the chosen Python).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "gpu_check_worker.py")
ROOT = os.path.dirname(HERE)
DEFAULT_CLI = os.path.join("build", "ci", "app", "cli", "pyrometer-cli")
# scripts/setup installs Debian's python3-torch here; tried when the default python3 has no torch.
DEBIAN_PYTHON = "/usr/bin/python3"

VARIANTS = ["baseline", "compile", "reduce_overhead", "bf16", "fp16", "channels_last"]
# A variant's error that says the engine refused it (a torch too old, no such device), as
# opposed to one that ran and broke.
REFUSAL = re.compile(r"\bneeds?\b|\bhas no\b|\bonly\b|give --python|not available|unsupported|not supported", re.IGNORECASE)
TOLERANCE = 0.10  # per-layer device times against the synchronized forward

# The checks that need a GPU, by key: what each one checks.
CHECKS = {
    "layer_times": "per-layer device times add up to the synchronized forward (within 10%)",
    "bf16_roof": "bf16 GEMM rows of the roofline are at most 100% of their roof",
    "graph_replays": "the reduce_overhead variant's trace shows CUDA graph replays",
    "roofline_devices": "no roofline output without a device or roof when the device is in the table",
}
# The pipeline's steps that need a GPU (on a CPU machine each is one SKIP line).
CUDA_STEPS = ["sweep", "compare", "layer roofline", "record of a torch.compile(mode=\"reduce-overhead\") program"]


# ---------------------------------------------------------------------------------------------
# Report


class Report:
    """One line per step or check as it ends; the counts and the exit status at the end."""

    def __init__(self):
        self.results: list[tuple[str, str, str]] = []

    def add(self, status: str, label: str, detail: str = "") -> None:
        self.results.append((status, label, detail))
        lines = detail.splitlines() or [""]
        print(f"{status:<4}  {label}: {lines[0]}" if lines[0] else f"{status:<4}  {label}", flush=True)
        for line in lines[1:]:
            print(f"        {line}", flush=True)

    def passed(self, label: str, detail: str = "") -> None:
        self.add("PASS", label, detail)

    def failed(self, label: str, detail: str = "") -> None:
        self.add("FAIL", label, detail)

    def skipped(self, label: str, detail: str = "") -> None:
        self.add("SKIP", label, detail)

    def count(self, status: str) -> int:
        return sum(1 for s, _, _ in self.results if s == status)

    def exit_code(self) -> int:
        return 1 if self.count("FAIL") else 0

    def summary(self) -> str:
        return f"{self.count('PASS')} PASS, {self.count('FAIL')} FAIL, {self.count('SKIP')} SKIP"

    def save(self, path: str, header: dict) -> None:
        rows = [{"status": s, "check": label, "detail": detail} for s, label, detail in self.results]
        with open(path, "w") as stream:
            json.dump({**header, "summary": self.summary(), "exit": self.exit_code(), "results": rows}, stream, indent=2)


# ---------------------------------------------------------------------------------------------
# Commands


@dataclass
class Outcome:
    command: list
    rc: Optional[int]  # None: timed out or could not start
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    error: str = ""  # why it did not run or did not end

    @property
    def ok(self) -> bool:
        return self.rc == 0

    def failure(self, lines: int = 6) -> str:
        """What failed, for a FAIL line: the status, the command and the first lines of stderr."""
        if self.error:
            head = self.error
        else:
            head = f"exit {self.rc} after {self.seconds:.1f} s"
        text = [line for line in (self.stderr.strip() or self.stdout.strip()).splitlines() if line.strip()]
        shown = [f"| {line}" for line in text[:lines]]
        if len(text) > lines:  # a traceback says what it was last
            shown.append(f"| ... {len(text) - lines - 1} more lines; the last: {text[-1]}" if len(text) > lines + 1 else f"| {text[-1]}")
        return "\n".join([f"{head}: {shlex.join(self.command)}"] + shown)


class Runner:
    """Runs commands with a timeout, keeping each one's command, stdout and stderr in logs/."""

    def __init__(self, logs: str, timeout: float):
        self.logs = logs
        self.timeout = timeout
        os.makedirs(logs, exist_ok=True)

    def run(self, name: str, command: list, timeout: Optional[float] = None, env: Optional[dict] = None) -> Outcome:
        wait_for_file(command[0])
        start = time.monotonic()
        try:
            done = subprocess.run(command, capture_output=True, text=True, errors="replace", cwd=ROOT,
                                  timeout=timeout or self.timeout, env=env)
            outcome = Outcome(command, done.returncode, done.stdout, done.stderr, time.monotonic() - start)
        except subprocess.TimeoutExpired as expired:
            outcome = Outcome(command, None, text_of(expired.stdout), text_of(expired.stderr), time.monotonic() - start,
                              f"timed out after {timeout or self.timeout:.0f} s")
        except OSError as error:
            outcome = Outcome(command, None, seconds=time.monotonic() - start, error=f"could not start ({error})")
        self._log(name, outcome)
        return outcome

    def _log(self, name: str, outcome: Outcome) -> None:
        base = os.path.join(self.logs, name)
        with open(base + ".cmd", "w") as stream:
            stream.write(shlex.join(outcome.command) + f"\n# rc {outcome.rc}, {outcome.seconds:.1f} s {outcome.error}\n")
        with open(base + ".out", "w") as stream:
            stream.write(outcome.stdout)
        with open(base + ".err", "w") as stream:
            stream.write(outcome.stderr)


def text_of(data) -> str:
    if data is None:
        return ""
    return data.decode(errors="replace") if isinstance(data, bytes) else data


def wait_for_file(path: str, seconds: float = 30) -> bool:
    """The CLI may be being relinked by a build: give a missing binary a moment to come back."""
    if os.sep not in path:
        return True
    deadline = time.monotonic() + seconds
    while not os.path.isfile(path):
        if time.monotonic() > deadline:
            return False
        time.sleep(1)
    return True


def parse_json(text: str):
    """The JSON a command printed; a program's own output before it (record) is skipped."""
    try:
        return json.loads(text)
    except ValueError:
        start = text.find("\n{")
        while start >= 0:
            try:
                return json.loads(text[start + 1:])
            except ValueError:
                start = text.find("\n{", start + 1)
    return None


# ---------------------------------------------------------------------------------------------
# The chosen Python

PROBE = r"""
import json, sys
facts = {"python": sys.version.split()[0], "executable": sys.executable}
try:
    import torch
except Exception as error:
    facts["error"] = f"{type(error).__name__}: {error}"
else:
    facts.update(torch=torch.__version__, cuda_build=getattr(torch.version, "cuda", None),
                 has_export=hasattr(torch, "export") and hasattr(torch.export, "save"),
                 has_compile=hasattr(torch, "compile"), has_autocast=hasattr(torch, "autocast"))
    facts["cuda_available"] = bool(torch.cuda.is_available())
    if facts["cuda_available"]:
        facts["devices"] = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
        facts["bf16"] = bool(torch.cuda.is_bf16_supported())
print(json.dumps(facts))
"""


def probe_python(runner: Runner, python: str) -> dict:
    outcome = runner.run("probe-" + re.sub(r"\W+", "_", python).strip("_"), [python, "-c", PROBE], timeout=120)
    facts = parse_json(outcome.stdout) if outcome.ok else None
    if facts is None:
        return {"executable": python, "error": outcome.failure(3)}
    return facts


def choose_python(runner: Runner, python: Optional[str]) -> tuple[str, dict, str]:
    """The interpreter to use, its facts, and a note when the default had no torch and Debian's did."""
    chosen = python or os.environ.get("PYROMETER_PYTHON") or "python3"
    facts = probe_python(runner, chosen)
    if "error" in facts and chosen == "python3" and os.path.isfile(DEBIAN_PYTHON):
        debian = probe_python(runner, DEBIAN_PYTHON)
        if "error" not in debian:
            note = (f"{chosen} ({facts.get('executable', chosen)}) has no torch; using {DEBIAN_PYTHON} "
                    f"(Debian's python3-torch, as scripts/setup installs it); choose another with --python")
            return DEBIAN_PYTHON, debian, note
    return chosen, facts, ""


def cuda_missing_reason(facts: dict) -> Optional[str]:
    """Why this Python's torch cannot run on a CUDA device, or None when it can."""
    torch = f"torch {facts['torch']}"
    if not facts.get("cuda_build"):
        return f"no CUDA device: {torch} built without CUDA ({facts['executable']})"
    if not facts.get("cuda_available"):
        return (f"no CUDA device: {torch} (CUDA {facts['cuda_build']}) sees no GPU "
                f"(no NVIDIA driver, or CUDA_VISIBLE_DEVICES hides it)")
    return None


# ---------------------------------------------------------------------------------------------
# The pipeline


@dataclass
class Context:
    cli: str
    python: str
    facts: dict
    out: str
    runner: Runner
    report: Report
    device: str  # "cuda" or "cpu"
    reason: Optional[str]  # why there is no CUDA run, None on a GPU
    size: str  # "full" on a GPU, "small" for the CPU smoke test

    @property
    def cuda(self) -> bool:
        return self.device == "cuda"

    def path(self, *parts: str) -> str:
        return os.path.join(self.out, *parts)

    def cli_json(self, name: str, label: str, args: list, describe: Callable[[dict], str]):
        """Runs `pyrometer-cli ARGS --format json` and reports the step; returns its JSON or None."""
        return self.report_json(name, label, *self.run_json(name, args), describe)

    def run_json(self, name: str, args: list) -> tuple:
        """Runs `pyrometer-cli ARGS --format json`; its outcome and JSON (None when it failed),
        the JSON kept as NAME.json."""
        outcome = self.runner.run(name, [self.cli] + with_json_format(args))
        data = parse_json(outcome.stdout) if outcome.ok else None
        if data is not None:
            with open(self.path(name + ".json"), "w") as stream:
                json.dump(data, stream, indent=1)
        return outcome, data

    def report_json(self, name: str, label: str, outcome: Outcome, data, describe: Callable[[dict], str]):
        """PASS with describe(data) and the time, or FAIL with the command and the first lines of
        its stderr (or what was wrong with its JSON); returns data when it passed."""
        if data is None:
            self.report.failed(label, outcome.failure() if not outcome.ok else "printed no JSON: " + shlex.join(outcome.command))
            return None
        try:
            self.report.passed(label, f"{describe(data)} ({outcome.seconds:.1f} s)")
        except (AttributeError, KeyError, IndexError, TypeError, ValueError) as error:
            self.report.failed(label, f"unexpected JSON ({type(error).__name__}: {error}), in {name}.json")
            return None
        return data

    def engine_args(self) -> list:
        return ["--python", self.python, "--device", self.device]


@dataclass
class Model:
    name: str
    path: str
    input: str  # B for the batch: Bx3x224x224
    batch: int
    batches: list
    kind: str  # how it was saved
    params: int = 0
    notes: list = field(default_factory=list)

    def shape(self, batch: Optional[int] = None) -> str:
        return self.input.replace("B", str(batch or self.batch), 1)


def build_models(ctx: Context) -> list:
    label = f"build the models ({ctx.python}, torch {ctx.facts['torch']})"
    outcome = ctx.runner.run("models", [ctx.python, WORKER, "models", ctx.path("models"), ctx.size])
    listing = ctx.path("models", "models.json")
    if not outcome.ok or not os.path.isfile(listing):
        ctx.report.failed(label, outcome.failure())
        return []
    with open(listing) as stream:
        models = [Model(**entry) for entry in json.load(stream)]
    detail = "; ".join(f"{m.name}: {os.path.basename(m.path)} ({m.kind}, {m.params / 1e6:.2f} M params, {m.shape()})"
                       for m in models)
    notes = [f"{m.name}: {note}" for m in models for note in m.notes]
    ctx.report.passed(label, "\n".join([detail] + notes))
    return models


def profile_models(ctx: Context, models: list) -> dict:
    iterations = [] if ctx.cuda else ["--warmup", "2", "--iters", "10", "--profile-iters", "3"]

    def describe(data):
        timed = sum(1 for row in data["layers"] if row.get("calls"))
        return (f"{data['latency_ms']['mean']:.3f} ms mean, profiled forward {data['profiled_forward_ms']:.3f} ms, "
                f"{len(data['layers'])} layers ({timed} with calls), {data['engine']}")

    return {m.name: ctx.cli_json(f"profile-{m.name}", f"profile {m.name} on {ctx.device}",
                                 ["profile", m.path, "--input", m.shape()] + iterations + ctx.engine_args(), describe)
            for m in models}


def count_flops(ctx: Context, models: list) -> None:
    def describe(data):
        root = next(row for row in data["rows"] if row["depth"] == 0)
        return f"{data['params'] / 1e6:.2f} M params, {root['flops'] / 1e9:.3f} GFLOPs per forward"

    for m in models:
        ctx.cli_json(f"flops-{m.name}", f"flops {m.name} on {ctx.device}",
                     ["flops", m.path, "--input", m.shape()] + ctx.engine_args(), describe)


def sweep_models(ctx: Context, models: list) -> None:
    def describe(data):
        rows = ", ".join(f"B{r['batch']} {r['throughput_per_s']:.0f}/s" for r in data["rows"] if r.get("throughput_per_s"))
        knee = ((data.get("knee") or {}).get("baseline") or {}).get("batch")
        return f"{rows}; " + (f"knee at B{knee}" if knee else "no knee")

    for m in models:
        ctx.cli_json(f"sweep-{m.name}", f"sweep {m.name} on {ctx.device}",
                     ["sweep", m.path, "--input", m.input, "--batches", ",".join(map(str, m.batches))] + ctx.engine_args(),
                     describe)


def compare_model(ctx: Context, m: Model) -> None:
    """compare with every variant of VARIANTS; one the CLI refuses by name is left out and
    reported, one the engine refuses (a torch too old) is a SKIP, one that broke a FAIL."""
    variants = list(VARIANTS)
    while True:
        args = ["compare", m.path, "--input", m.shape(), "--variants", ",".join(variants)] + ctx.engine_args()
        outcome, data = ctx.run_json(f"compare-{m.name}", args)
        refused = re.search(r'unknown variant "([^"]+)"', outcome.stderr) if outcome.rc == 2 else None
        if not refused or refused.group(1) not in variants:
            break
        variants.remove(refused.group(1))
        ctx.report.skipped(f"compare {m.name}: variant {refused.group(1)}", "the CLI refuses it: " + outcome.stderr.strip().split("; known:")[0])

    def describe(data):
        return ", ".join(f"{r['variant']} {r['latency_ms']:.3f} ms ({r['speedup']:.2f}x)" for r in data["rows"] if not r.get("error"))

    if ctx.report_json(f"compare-{m.name}", f"compare {m.name} on {ctx.device} ({','.join(variants)})", outcome, data, describe):
        for row in data["rows"]:
            error = row.get("error")
            if error:
                report = ctx.report.skipped if REFUSAL.search(error) else ctx.report.failed
                report(f"compare {m.name}: variant {row['variant']}", error)


def roofline_models(ctx: Context, models: list) -> dict:
    def describe(data):
        figures = [f"B{b['batch']}: {sum(1 for l in b['layers'] if l.get('pct_of_roof') is not None)} of "
                   f"{len(b['layers'])} layers with a roof" for b in data["batches"]]
        return f"device {device_name(data)}; " + "; ".join(figures)

    return {m.name: ctx.cli_json(f"roofline-{m.name}", f"roofline of {m.name}'s layers on {ctx.device}",
                                 ["roofline", m.path, "--input", m.input, "--batches", ",".join(map(str, m.batches[:3])),
                                  "--python", ctx.python, "--device", ctx.device], describe)
            for m in models}


def record(ctx: Context, name: str, label: str, worker: list, options: list) -> Optional[str]:
    """Records `gpu_check.py worker ...` with pyrometer-cli record; returns the trace it wrote."""
    def describe(data):
        return (f"{data['recorded']} of {data['asked']} steps, torch {data['torch']}, "
                f"{os.path.relpath(data['traces'][0], ctx.out)}")

    args = (["record", "--python", ctx.python, "--out", ctx.path(name)] + (["--cuda"] if ctx.cuda else []) + options
            + ["--", WORKER] + worker)
    data = ctx.cli_json(f"record-{name}", label, args, describe)
    return data["traces"][0] if data else None


def record_training(ctx: Context) -> Optional[str]:
    autocast = " under bf16 autocast" if ctx.cuda and ctx.facts.get("bf16") else ""
    return record(ctx, "train", f"record an MLP's training with Adam{autocast} on {ctx.device}",
                  ["train", ctx.size, "40"], ["--steps", "5"])


def record_graph_replays(ctx: Context) -> Optional[str]:
    label = f"record the CNN under torch.compile(mode=\"reduce-overhead\") on {ctx.device}"
    if not ctx.facts.get("has_compile"):
        ctx.report.skipped(label, f"torch {ctx.facts['torch']} has no torch.compile")
        return None
    # Steps are the compiled module's calls; the first ones compile and capture the graphs.
    return record(ctx, "graphs", label, ["graphs", ctx.size, "40"],
                  ["--mark", "forward", "--skip", "5", "--warmup", "2", "--steps", "5"])


def roofline_trace(ctx: Context, trace: Optional[str]):
    label = f"roofline of the recorded training trace ({ctx.device})"
    if trace is None:
        ctx.report.skipped(label, "no trace was recorded")
        return None

    def describe(data):
        known = sum(1 for r in data["rows"] if r.get("roof"))
        return (f"device {device_name(data)} (trace says {data.get('trace_device') or 'nothing'}), "
                f"{known} of {len(data['rows'])} ops with a roof")

    data = ctx.cli_json("roofline-train", label, ["roofline", trace], describe)
    if data is not None and ctx.cuda and not data.get("gpu"):
        ctx.report.failed("the recorded training trace has GPU kernels", f"roofline finds none in {trace} (record --cuda)")
    return data


def with_json_format(args: list) -> list:
    """args with --format json, before a `--` that starts a recorded program's own arguments."""
    end = args.index("--") if "--" in args else len(args)
    return args[:end] + ["--format", "json"] + args[end:]


def device_table(ctx: Context) -> list:
    data = ctx.cli_json("roofline-devices", "roofline --devices", ["roofline", "--devices"],
                        lambda d: f"{len(d['devices'])} devices in the table")
    return [d["name"] for d in data["devices"]] if data else []


def device_name(data: dict) -> str:
    device = data.get("device")
    return device["name"] if isinstance(device, dict) and device.get("name") else "unknown"


# ---------------------------------------------------------------------------------------------
# Checks


def check_layer_times(ctx: Context, profiles: dict) -> None:
    for name, data in profiles.items():
        label = f"{name}: {CHECKS['layer_times']}"
        if data is None:
            ctx.report.skipped(label, "its profile failed")
            continue
        rows = data["layers"]
        # Device-time fields with a figure in them (the CLI may write null where none was measured).
        keys = sorted({k for row in rows for k, v in row.items() if "device" in k and is_number(v)})
        if not keys:
            named = sorted({k for row in rows for k in row if "device" in k})
            ctx.report.skipped(label, "profile JSON has no per-layer device times"
                               + (f" ({', '.join(named)} null)" if named else ""))
            continue
        # Self times count each kernel once; without them the model's row holds the whole.
        self_key = next((k for k in keys if "self" in k), None)
        key = self_key or keys[0]
        counted = rows if self_key else [row for row in rows if row.get("depth") == 0]
        layers_ms = sum(float(row[key]) for row in counted if is_number(row.get(key))) * unit_ms(key)
        forward_ms = float(data["profiled_forward_ms"])
        device_key = next((k for k in data if "device" in k and is_number(data[k])), None)
        also = (f"; the forward's device time {data[device_key] * unit_ms(device_key):.3f} ms ({device_key})"
                if device_key else "")
        ratio = layers_ms / forward_ms if forward_ms > 0 else float("inf")
        detail = (f"layers' {key} sum {layers_ms:.3f} ms, synchronized forward {forward_ms:.3f} ms "
                  f"(profiled_forward_ms): {ratio * 100:.1f}%{also}")
        (ctx.report.passed if abs(ratio - 1) <= TOLERANCE else ctx.report.failed)(label, detail)


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def unit_ms(key: str) -> float:
    return 1e-3 if key.endswith("_us") else 1e-6 if key.endswith("_ns") else 1.0


def check_bf16_roof(ctx: Context, roofline: Optional[dict]) -> None:
    label = CHECKS["bf16_roof"]
    if not ctx.facts.get("bf16"):
        ctx.report.skipped(label, f"{gpu_name(ctx)} has no bf16 (torch.cuda.is_bf16_supported() is false)")
        return
    if roofline is None:
        ctx.report.skipped(label, "no roofline of the training trace")
        return
    rows = [r for r in roofline["rows"] if "bfloat16" in (r.get("dtype") or "").lower() and r.get("unit") == "matrix"]
    measured = [r for r in rows if r.get("pct_of_roof") is not None]
    if not measured:
        ops = sorted({r["op"] for r in roofline["rows"]})
        ctx.report.failed(label, f"the bf16 autocast run has {len(rows)} BFloat16 matrix rows, none with a share of its roof "
                                 f"(ops: {', '.join(ops[:12])}{', ...' if len(ops) > 12 else ''})")
        return
    over = [r for r in measured if r["pct_of_roof"] > 100.0]
    figures = ", ".join(f"{r['op']} {r['pct_of_roof']:.1f}% of {r['roof']['precision']} "
                        f"{r['roof']['peak_flops'] / 1e12:.0f} TFLOP/s" for r in measured[:6])
    (ctx.report.failed if over else ctx.report.passed)(
        label, (f"{len(over)} over 100%: " if over else f"{len(measured)} rows, highest "
                f"{max(r['pct_of_roof'] for r in measured):.1f}%: ") + figures)


def check_graph_replays(ctx: Context, trace: Optional[str]) -> None:
    label = CHECKS["graph_replays"]
    if trace is None:
        ctx.report.skipped(label, "no trace of the reduce-overhead CNN: its record was skipped or failed, above (compare "
                                  "writes no traces and profile has no --variant, so this check records one itself)")
        return
    launches = ctx.cli_json("launches-graphs", "launches --by graph of the reduce-overhead trace",
                            ["launches", trace, "--by", "graph"],
                            lambda d: f"{d['cuda_graphs']['replays']} replays of {len(d['cuda_graphs']['graphs'])} graphs")
    calls = count_in_trace(trace, "cudaGraphLaunch")
    replays = launches["cuda_graphs"]["replays"] if launches else None
    detail = f"launches counts {replays if replays is not None else '(failed)'} replays; the trace has {calls} cudaGraphLaunch events"
    found = replays if replays is not None else calls
    (ctx.report.passed if found > 0 else ctx.report.failed)(label, detail)


def count_in_trace(path: str, text: str) -> int:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", errors="replace") as stream:
        return stream.read().count(f'"{text}"')


def check_roofline_devices(ctx: Context, table: list, outputs: dict) -> None:
    for label, (data, raw_name) in outputs.items():
        check = f"{label}: {CHECKS['roofline_devices']}"
        if data is None:
            ctx.report.skipped(check, "that roofline failed")
            continue
        entry = table_entry(raw_name, table)
        if entry is None:
            ctx.report.skipped(check, f"{raw_name or 'the device (unnamed)'} is not in roofline --devices")
            continue
        rows = [r for b in data["batches"] for r in b["layers"]] if "batches" in data else data["rows"]
        roofless = [r for r in rows if r.get("flops") is not None and (r.get("time_us") or 0) > 0
                    and r.get("pct_of_roof") is None]
        named = device_name(data)
        detail = f"{raw_name} is \"{entry}\" in the table; the output says {named}; {len(roofless)} rows with FLOPs but no roof"
        same = table_entry(named, [entry]) is not None
        (ctx.report.passed if same and not roofless else ctx.report.failed)(check, detail)


def table_entry(name: str, table: list) -> Optional[str]:
    """The entry of roofline --devices that names the same product as name: a model token
    (H100, A100, MI300X, 4090, T4) in both, memory sizes and HBM generations aside."""
    def models(text):
        return {w for w in re.findall(r"[A-Z0-9]+", text.upper())
                if re.search(r"\d", w) and not re.fullmatch(r"\d+GB|HBM\d*E?|SXM\d*|PCIE\d*", w)}

    wanted = models(name or "")
    return next((entry for entry in table if wanted & models(entry)), None) if wanted else None


def gpu_name(ctx: Context) -> str:
    return (ctx.facts.get("devices") or ["the GPU"])[0]


# ---------------------------------------------------------------------------------------------
# The whole run


def parse_args(argv: list) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="scripts/gpu-check",
        description="Runs pyrometer-cli's model and trace commands on an NVIDIA CUDA GPU in the chosen Python and "
                    "checks their figures; without a GPU, says why and runs a CPU smoke test. Exit status: 0 "
                    "nothing failed, 1 a check failed, 2 could not start.")
    parser.add_argument("--python", help="the interpreter whose torch runs the models (default: $PYROMETER_PYTHON, "
                                         f"else python3; {DEBIAN_PYTHON} when python3 has no torch)")
    parser.add_argument("--cli", help=f"pyrometer-cli (default: the repository's {DEFAULT_CLI})")
    parser.add_argument("--out", help="where models, traces, JSON and logs go (default: a new temporary folder, kept)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds for one command (default: 900)")
    return parser.parse_args(argv)


def find_cli(given: Optional[str]) -> Optional[str]:
    path = os.path.abspath(given) if given else os.path.join(ROOT, DEFAULT_CLI)
    return path if wait_for_file(path, 10) and os.access(path, os.X_OK) else None


def run_pipeline(ctx: Context) -> None:
    models = build_models(ctx)
    profiles = profile_models(ctx, models)
    count_flops(ctx, models)
    train_trace = record_training(ctx)
    train_roofline = roofline_trace(ctx, train_trace)
    if not ctx.cuda:
        for step in CUDA_STEPS:
            ctx.report.skipped(f"{step} on cuda", ctx.reason)
        for check in CHECKS.values():
            ctx.report.skipped(check, ctx.reason)
        return
    sweep_models(ctx, models)
    for m in models:
        compare_model(ctx, m)
    layer_rooflines = roofline_models(ctx, models)
    graphs_trace = record_graph_replays(ctx)
    table = device_table(ctx)

    check_layer_times(ctx, profiles)
    check_bf16_roof(ctx, train_roofline)
    check_graph_replays(ctx, graphs_trace)
    outputs = {"roofline of the training trace": (train_roofline, (train_roofline or {}).get("trace_device", ""))}
    outputs.update({f"roofline of {name}'s layers": (data, gpu_name(ctx)) for name, data in layer_rooflines.items()})
    check_roofline_devices(ctx, table, outputs)


def main(argv: list) -> int:
    args = parse_args(argv)
    cli = find_cli(args.cli)
    if cli is None:
        print(f"gpu-check: cannot start: no pyrometer-cli at {args.cli or DEFAULT_CLI} (build it: scripts/test, or pass --cli PATH)")
        return 2
    out = os.path.abspath(args.out) if args.out else tempfile.mkdtemp(prefix="gpu-check-")
    os.makedirs(out, exist_ok=True)
    print(f"gpu-check: output in {out}")
    runner = Runner(os.path.join(out, "logs"), args.timeout)
    version = runner.run("cli-version", [cli, "--version"], timeout=60)
    print(f"gpu-check: {cli} ({version.stdout.strip() or version.failure(1)})")
    python, facts, note = choose_python(runner, args.python)
    if note:
        print(f"gpu-check: {note}")
    if "error" in facts:
        print(f"gpu-check: cannot start: {python} has no usable torch: {facts['error']}")
        return 2
    reason = cuda_missing_reason(facts)
    print(f"gpu-check: {facts['executable']}: Python {facts['python']}, torch {facts['torch']}, "
          f"CUDA {facts.get('cuda_build') or 'none'}, GPU {', '.join(facts.get('devices', [])) or 'none'}")
    if reason:
        print(f"gpu-check: NOT RUN on CUDA: {reason}.\n"
              f"gpu-check: every CUDA step and check below is SKIP; a CPU smoke test of the pipeline runs instead.")
    print()
    ctx = Context(cli=cli, python=python, facts=facts, out=out, runner=runner, report=Report(),
                  device="cpu" if reason else "cuda", reason=reason, size="small" if reason else "full")
    run_pipeline(ctx)
    ctx.report.save(ctx.path("report.json"), {"cli": cli, "python": facts, "not_run": reason})
    print()
    print(f"gpu-check report: {ctx.report.summary()} ({'CPU smoke test only: ' + reason if reason else 'on ' + gpu_name(ctx)})")
    for status, label, detail in ctx.report.results:
        if status == "FAIL":
            print(f"  FAIL {label}: {detail.splitlines()[0] if detail else ''}")
    print(f"gpu-check: output kept in {out}; exit {ctx.report.exit_code()}")
    return ctx.report.exit_code()



if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
