#!/usr/bin/python3
"""Times a TorchScript model from Python (same libtorch) and with pyrometer-cli, in one run,
and reports the ratio and the profiler's overhead. Prints figures; asserts nothing.

    /usr/bin/python3 tests/bench/torch_vs_python.py BUILD_DIR MODEL.pt SHAPE [--iters N --warmup N --threads N]
e.g. /usr/bin/python3 tests/bench/torch_vs_python.py build/dev build/dev/test-models/resnet18.pt 1x3x224x224
"""
import argparse
import json
import statistics
import subprocess
import time

import torch


def python_mean_ms(path, shape, warmup, iters, threads):
    if threads:
        torch.set_num_threads(threads)
    model = torch.jit.load(path)
    model.eval()
    x = torch.randn([int(d) for d in shape.split("x")])
    samples = []
    with torch.inference_mode():
        model(x)
        for _ in range(warmup):
            model(x)
        for _ in range(iters):
            start = time.perf_counter()
            model(x)
            samples.append((time.perf_counter() - start) * 1000)
    return statistics.mean(samples), statistics.median(samples)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("model")
    parser.add_argument("shape")
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()
    cli = [f"{args.build}/app/cli/pyrometer-cli", "profile", args.model, "--input", args.shape, "--iters", str(args.iters),
           "--warmup", str(args.warmup), "--profile-iters", str(args.iters), "--format", "json"]
    if args.threads:
        cli += ["--threads", str(args.threads)]
    # Alternate the two so that machine noise hits both alike.
    ours, py, profiled = [], [], []
    for _ in range(3):
        report = json.loads(subprocess.run(cli, check=True, capture_output=True, text=True).stdout)
        ours.append(report["latency_ms"]["mean"])
        profiled.append(report["profiled_forward_ms"])
        py.append(python_mean_ms(args.model, args.shape, args.warmup, args.iters, args.threads)[0])
    o, p, f = min(ours), min(py), min(profiled)
    print(f"model {args.model} input {args.shape} threads {report['threads']}")
    print(f"python mean {p:.3f} ms   pyrometer mean {o:.3f} ms   ratio {o / p:.3f} (best of 3 runs each)")
    print(f"profiled forward {f:.3f} ms: profiling overhead {100 * (f / o - 1):.1f}% over a plain run")


if __name__ == "__main__":
    main()
