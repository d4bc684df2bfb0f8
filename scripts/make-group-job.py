#!/usr/bin/env python3
"""Writes tests/fixtures/traces/groups/rank-{0..3}.json: a hand-made 4-rank NCCL job with tensor-
parallel groups {0,1} and {2,3}, data-parallel groups {0,2} and {1,3} and the world group, each
running 1 MiB all-reduces as torch 2.x records them (Process Group Name/Description/Ranks, Seq).
Two steps of 80 ms; rank 2 computes 3 ms longer a step. Times in µs on one clock:

  tp {0,1}:   rank 0 [1000, 11000]   rank 1 [3000, 11000]
  tp {2,3}:   rank 2 [1000, 21000]   rank 3 [1500, 21000]
  dp {0,2}:   rank 0 [30000, 50000]  rank 2 [34000, 50000]
  dp {1,3}:   rank 1 [30000, 40000]  rank 3 [31000, 40000]
  world:      ranks 0-3 from 60000, 62000, 61000, 65000 to 70000
"""
import json
import os
import sys

FLOATS = 262144  # x 4 bytes = 1 MiB
GROUPS = {
    "world": ("0", "default_pg", "[0, 1, 2, 3]", 4),
    "tp0": ("1", "tp", "[0, 1]", 2),
    "tp1": ("2", "tp", "[2, 3]", 2),
    "dp0": ("3", "dp", "[0, 2]", 2),
    "dp1": ("4", "dp", "[1, 3]", 2),
}
CALLS = [
    [("tp0", 1000, 11000), ("dp0", 30000, 50000), ("world", 60000, 70000)],
    [("tp0", 3000, 11000), ("dp1", 30000, 40000), ("world", 62000, 70000)],
    [("tp1", 1000, 21000), ("dp0", 34000, 50000), ("world", 61000, 70000)],
    [("tp1", 1500, 21000), ("dp1", 31000, 40000), ("world", 65000, 70000)],
]


def main(out):
    os.makedirs(out, exist_ok=True)
    for rank, calls in enumerate(CALLS):
        events = []
        for step in range(2):
            offset = step * 80000
            events.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % step, "pid": 1,
                           "tid": 1, "ts": offset, "dur": 75000})
            events.append({"ph": "X", "cat": "kernel", "name": "volta_sgemm_128x64_nn", "pid": 0, "tid": 7,
                           "ts": offset + 21000, "dur": 8000 + (3000 if rank == 2 else 0),
                           "args": {"device": 0, "stream": 7}})
            for group, start, end in calls:
                name, description, ranks, size = GROUPS[group]
                events.append({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                               "pid": 0, "tid": 8, "ts": offset + start, "dur": end - start,
                               "args": {"device": 0, "stream": 8, "Collective name": "allreduce",
                                        "In msg nelems": FLOATS, "Out msg nelems": FLOATS, "dtype": "Float",
                                        "Group size": size, "Process Group Name": name,
                                        "Process Group Description": description, "Process Group Ranks": ranks,
                                        "Seq": step + 1}})
        trace = {"distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 4}, "traceEvents": events}
        with open(os.path.join(out, "rank-%d.json" % rank), "w") as f:
            json.dump(trace, f, indent=None, separators=(",", ":"))
            f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "tests", "fixtures",
                                                              "traces", "groups"))
