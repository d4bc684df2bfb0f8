#!/usr/bin/python3
"""Make a distributed job (N rank traces) out of one real rank trace, for tests and benchmarks.

Reads one Chrome trace written by torch.profiler (plain or .gz) and writes OUT/rank-<r>.json.gz
for r in 0..N-1 plus OUT/job.json, a manifest:

    {"ranks": N, "slow_rank": R or null, "slow_factor": F, "source": "...",
     "clock_offsets_us": [...], "world_size": W, "repeat": K, "seed": S}

Per rank r:
  * distributedInfo is {"backend": <the source's>, "rank": r, "world_size": W}; every other
    top-level key is kept.
  * every ts (metadata too) is shifted by a clock offset drawn from the seed, uniform in
    +-3 ms, in whole microseconds; rank 0's offset is 0.
  * GPU events (pid = a device number) move to pid (pid - device + r) % 8, so the source's
    device becomes r % 8, with args.device, "GPU n" labels and sort indices to match; every
    integer CPU pid becomes pid + r.
  * the slow rank (--slow-rank) runs its compute kernels (not NCCL/RCCL, not memcpy/memset)
    F times longer, starts unchanged; each of its communication kernels starts later by
    (F-1) x the source duration of the compute kernels that started between the start of its
    ProfilerStep and its own start, and keeps its end (at least 1 us long): the slow rank
    arrives late at each collective and all ranks finish together. The other ranks waited
    inside their collective kernels, so they are unchanged.

--repeat K writes the source's events K times one after another, each copy shifted by the
source's span plus 1 ms, with ProfilerStep#N numbers, correlation, External id and flow ids
continued, to make large traces for benchmarks. Numbers keep the source's format: times that
are integers stay integers, a duration written 68.0 keeps its one decimal.

Rank files are gzip level 1, written by one process per core (--jobs).
"""

import argparse
import decimal
import gzip
import json
import multiprocessing
import os
import random
import re
import sys

GAP_NS = 1_000_000  # between repeated copies of the source
MAX_OFFSET_US = 3000
ID_ARGS = ("correlation", "External id")
FLOW_PHASES = ("s", "t", "f")
STEP_RE = re.compile(r"^ProfilerStep#(\d+)$")
GPU_LABEL_RE = re.compile(r"\bGPU\s*(\d+)")
SLOT_RE = re.compile(r'"\\u0000(\w+)\\u0000"')
# Slots filled once per rank, and slots filled per copy of the source (--repeat).
RANK_SLOTS = ("pid", "device", "labels", "sort", "dur")


class FloatText(float):
    """A float that remembers how the JSON wrote it, so times survive to the nanosecond."""

    def __new__(cls, text):
        value = super().__new__(cls, text)
        value.text = text
        return value


def to_ns(number):
    """(nanoseconds, decimals written) of a JSON number in microseconds."""
    if isinstance(number, FloatText):
        text = number.text
        decimals = 3 if ("e" in text or "E" in text) else min(3, len(text.partition(".")[2]))
        ns = (decimal.Decimal(text) * 1000).to_integral_value(decimal.ROUND_HALF_EVEN)
        return int(ns), decimals
    return int(number) * 1000, 0


def quantize(ns, decimals):
    step = 10 ** (3 - decimals)
    return (ns + step // 2) // step * step


def format_us(ns, decimals):
    """ns, a multiple of 10^(3-decimals), as microseconds written with that many decimals."""
    if decimals == 0:
        return str(ns // 1000)
    sign = "-" if ns < 0 else ""
    whole, frac = divmod(abs(ns) // 10 ** (3 - decimals), 10**decimals)
    return f"{sign}{whole}.{frac:0{decimals}d}"


def lower_name(event):
    return str(event.get("name", "")).lower()


def is_communication(event):
    name = lower_name(event)
    return "nccl" in name or "rccl" in name


def is_kernel(event):
    return str(event.get("cat", "")).lower() == "kernel" and not any(
        word in lower_name(event) for word in ("memcpy", "memset"))


def slot(name):
    return f"\0{name}\0"


class Event:
    """One source event as text with %s slots, and the numbers that fill them."""

    __slots__ = ("event", "pieces", "slots", "ts", "dur")

    def __init__(self, event, gpu_pids):
        self.event = event
        self.ts = to_ns(event["ts"]) if "ts" in event else None
        self.dur = to_ns(event["dur"]) if "dur" in event else (0, 0)
        copy = json.loads(json.dumps(event))  # deep; FloatText becomes float, exact enough for args
        if "ts" in event:
            copy["ts"] = slot("ts")
        if "dur" in event and is_kernel(event):
            copy["dur"] = slot("dur")
        if isinstance(event.get("pid"), int):
            copy["pid"] = slot("pid")
        args = copy.get("args")
        gpu = event.get("pid") in gpu_pids
        if isinstance(args, dict):
            if gpu and isinstance(args.get("device"), int):
                args["device"] = slot("device")
            if event.get("ph") != "M":
                for n, key in enumerate(ID_ARGS):
                    if isinstance(args.get(key), int):
                        args[key] = slot(f"arg{n}")
            elif gpu and event.get("name") == "process_labels":
                args["labels"] = slot("labels")
            elif gpu and event.get("name") == "process_sort_index" and isinstance(args.get("sort_index"), int):
                args["sort_index"] = slot("sort")
        if event.get("ph") in FLOW_PHASES and isinstance(event.get("id"), int):
            copy["id"] = slot("id")
        if STEP_RE.match(str(event.get("name", ""))):
            copy["name"] = slot("step")
        split = SLOT_RE.split(json.dumps(copy, ensure_ascii=False))
        self.pieces, self.slots = split[0::2], split[1::2]


class Source:
    """The source trace, taken apart once; ranks fill its events' slots."""

    def __init__(self, path):
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            doc = json.load(f, parse_float=FloatText)
        if isinstance(doc, list):
            doc = {"traceEvents": doc}
        self.top = {k: v for k, v in doc.items() if k != "traceEvents"}
        raw = [e for e in doc.get("traceEvents", []) if isinstance(e, dict)]
        self.backend = (self.top.get("distributedInfo") or {}).get("backend", "nccl")
        self.gpu_pids, self.device = self._gpu_pids(raw)

        self.metadata = [Event(e, self.gpu_pids) for e in raw if e.get("ph") == "M"]
        self.events = [Event(e, self.gpu_pids) for e in raw if e.get("ph") != "M"]

        timed = [e for e in self.events if e.ts]
        span = max(e.ts[0] + e.dur[0] for e in timed) - min(e.ts[0] for e in timed) if timed else 0
        self.copy_shift_ns = -(-(span + GAP_NS) // 1000) * 1000  # whole microseconds

        steps = [int(m.group(1)) for e in self.events if (m := STEP_RE.match(str(e.event.get("name", ""))))]
        self.step_stride = max(steps) - min(steps) + 1 if steps else 0
        ids = [e.event["id"] for e in self.events if "id" in e.slots]
        ids += [e.event["args"][key] for e in self.events for n, key in enumerate(ID_ARGS) if f"arg{n}" in e.slots]
        self.id_stride = max(ids) + 1 if ids else 0

    @staticmethod
    def _gpu_pids(events):
        """Pids that are device numbers (where kernels, memcpys and memsets run, and processes
        labelled "GPU n" with pid n), and the device the events ran on."""
        busy = {e.get("pid") for e in events
                if e.get("ph") != "M" and isinstance((e.get("args") or {}).get("device"), int)
                and "stream" in (e.get("args") or {}) and isinstance(e.get("pid"), int)}
        pids = set(busy)
        for e in events:
            if e.get("ph") == "M" and e.get("name") == "process_labels" and isinstance(e.get("pid"), int):
                m = GPU_LABEL_RE.search(str((e.get("args") or {}).get("labels", "")))
                if m and e["pid"] == int(m.group(1)):
                    pids.add(e["pid"])
        return pids, min(busy, default=0)

    def slow_plan(self, factor):
        """{event index: (start delay ns, duration ns)} of the slow rank's kernels."""
        steps = sorted(e.ts[0] for e in self.events if e.ts and STEP_RE.match(str(e.event.get("name", ""))))
        kernels = [(i, e) for i, e in enumerate(self.events)
                   if e.ts and e.event.get("pid") in self.gpu_pids and is_kernel(e.event)]
        compute = [(e.ts[0], e.dur[0]) for _, e in kernels if not is_communication(e.event)]
        first = min((e.ts[0] for _, e in kernels), default=0)
        plan = {}
        for i, e in kernels:
            (start, ts_decimals), (dur, dur_decimals) = e.ts, e.dur
            if not is_communication(e.event):
                plan[i] = (0, quantize(round(dur * factor), dur_decimals))
                continue
            step_start = max((s for s in steps if s <= start), default=first)
            work = sum(d for s, d in compute if step_start <= s < start)
            delay = quantize(round((factor - 1) * work), min(ts_decimals, dur_decimals))
            delay = max(0, min(delay, dur - 1000))
            plan[i] = (delay, dur - delay)
        return plan


class RankWriter:
    """Fills the source's slots for one rank."""

    def __init__(self, source, rank, world_size, offset_ns, plan):
        self.source = source
        self.rank = rank
        self.world_size = world_size
        self.offset_ns = offset_ns
        self.plan = plan

    def pid(self, pid):
        if pid in self.source.gpu_pids:
            return (pid - self.source.device + self.rank) % 8
        return pid + self.rank

    def rank_value(self, e, name, index):
        event = e.event
        if name in ("pid", "device"):
            return str(self.pid(event["pid"]))
        if name == "labels":
            return json.dumps(GPU_LABEL_RE.sub(
                lambda m: f"GPU {self.pid(event['pid'])}" if int(m.group(1)) == event["pid"] else m.group(0),
                str(event["args"]["labels"])), ensure_ascii=False)
        if name == "sort":
            return str(event["args"]["sort_index"] - event["pid"] + self.pid(event["pid"]))
        if name == "dur":
            return format_us(self.plan[index][1] if index in self.plan else e.dur[0], e.dur[1])
        return None

    def prepared(self, e, index):
        """(%-format text with the slots filled per copy left, their names, first ts ns, ts
        decimals)."""
        done, left, text = [], [], e.pieces[0]
        for name, piece in zip(e.slots, e.pieces[1:]):
            value = self.rank_value(e, name, index)
            if value is None:
                done.append(text)
                left.append(name)
                text = piece
            else:
                text += value + piece
        done.append(text)
        ts = e.ts[0] + self.offset_ns + (self.plan[index][0] if index in self.plan else 0) if e.ts else 0
        return "%s".join(t.replace("%", "%%") for t in done), tuple(left), ts, e.ts[1] if e.ts else 0

    def copy_values(self, e, left, ts, decimals, copy):
        out = []
        for name in left:
            if name == "ts":
                out.append(format_us(ts + copy * self.source.copy_shift_ns, decimals))
            elif name == "step":
                number = int(STEP_RE.match(e.event["name"]).group(1)) + copy * self.source.step_stride
                out.append(f'"ProfilerStep#{number}"')
            elif name == "id":
                out.append(str(e.event["id"] + copy * self.source.id_stride))
            else:  # argN
                out.append(str(e.event["args"][ID_ARGS[int(name[3:])]] + copy * self.source.id_stride))
        return tuple(out)

    def write(self, path, repeat):
        top = dict(self.source.top)
        top["distributedInfo"] = {"backend": self.source.backend, "rank": self.rank, "world_size": self.world_size}
        head = json.dumps(top, ensure_ascii=False)[:-1]
        events = [(e,) + self.prepared(e, i) for i, e in enumerate(self.source.events)]
        with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as out:
            out.write(head + (", " if top else "") + '"traceEvents": [\n')
            first = True
            for e in self.source.metadata:
                text, left, ts, decimals = self.prepared(e, -1)
                out.write(("" if first else ",\n") + text % self.copy_values(e, left, ts, decimals, 0))
                first = False
            for copy in range(repeat):
                chunk = [text % self.copy_values(e, left, ts, decimals, copy) for e, text, left, ts, decimals in events]
                if chunk:
                    out.write(("" if first else ",\n") + ",\n".join(chunk))
                    first = False
            out.write("\n]}\n")


def write_rank(job):
    source, out_dir, rank, world_size, offset_ns, plan, repeat = job
    RankWriter(source, rank, world_size, offset_ns, plan).write(os.path.join(out_dir, f"rank-{rank}.json.gz"), repeat)
    return rank


_SOURCE = None  # the parsed source, inherited by forked workers


def write_rank_forked(args):
    return write_rank((_SOURCE,) + args)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", help="one rank's Chrome trace (.json or .json.gz)")
    parser.add_argument("out", help="folder for rank-<r>.json.gz and job.json (created)")
    parser.add_argument("--ranks", type=int, required=True, help="number of ranks N")
    parser.add_argument("--slow-rank", type=int, default=None, help="the rank that computes slower (default none)")
    parser.add_argument("--slow-factor", type=float, default=1.5, help="its compute kernels' stretch (default 1.5)")
    parser.add_argument("--repeat", type=int, default=1, help="copies of the source's events per rank (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the clock offsets (default 0)")
    parser.add_argument("--world-size", type=int, default=None, help="distributedInfo.world_size (default N)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes writing ranks")
    a = parser.parse_args(argv)
    if a.ranks < 1 or a.repeat < 1 or a.slow_factor <= 0:
        parser.error("--ranks and --repeat must be at least 1 and --slow-factor positive")
    if a.slow_rank is not None and not 0 <= a.slow_rank < a.ranks:
        parser.error(f"--slow-rank {a.slow_rank} is not a rank of 0..{a.ranks - 1}")

    global _SOURCE
    try:
        _SOURCE = Source(a.source)
    except (OSError, ValueError) as e:
        print(f"make-rank-job: {a.source}: {e}", file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random(a.seed)
    offsets_us = [0] + [rng.randint(-MAX_OFFSET_US, MAX_OFFSET_US) for _ in range(a.ranks - 1)]
    slow_plan = _SOURCE.slow_plan(a.slow_factor) if a.slow_rank is not None else {}
    jobs = [(a.out, r, a.world_size or a.ranks, offsets_us[r] * 1000, slow_plan if r == a.slow_rank else {}, a.repeat)
            for r in range(a.ranks)]
    if a.jobs > 1 and a.ranks > 1:
        with multiprocessing.get_context("fork").Pool(min(a.jobs, a.ranks)) as pool:
            for _ in pool.imap_unordered(write_rank_forked, jobs):
                pass
    else:
        for job in jobs:
            write_rank_forked(job)

    manifest = {"ranks": a.ranks, "slow_rank": a.slow_rank, "slow_factor": a.slow_factor,
                "source": os.path.basename(a.source), "clock_offsets_us": offsets_us,
                "world_size": a.world_size or a.ranks, "repeat": a.repeat, "seed": a.seed}
    with open(os.path.join(a.out, "job.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
