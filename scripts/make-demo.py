#!/usr/bin/python3
"""Makes Pyrometer's bundled demo: a small TorchScript CNN and a profiler trace of it.

Uses Debian's python3-torch only (random weights, nothing downloaded). The outputs are
committed under resources/demo/ so that building Pyrometer needs no Python; run this again
after changing the model:  /usr/bin/python3 scripts/make-demo.py resources/demo
"""
import json
import os
import sys

import torch
import torch.nn as nn


class DemoNet(nn.Module):
    """A small image classifier with the layer kinds users profile most: conv, norm,
    activation, pooling, linear."""

    def __init__(self, classes: int = 10):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.block1 = nn.Sequential(
            nn.Conv2d(16, 32, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 32, 3, padding=1, groups=32, bias=False), nn.BatchNorm2d(32), nn.ReLU())
        self.block2 = nn.Sequential(
            nn.Conv2d(32, 64, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(64), nn.ReLU())
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(64, classes)

    def forward(self, x):
        x = self.block2(self.block1(self.stem(x)))
        return self.head(torch.flatten(self.pool(x), 1))


def main(out_dir: str) -> None:
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    model = DemoNet().eval()
    example = torch.randn(1, 3, 64, 64)
    scripted = torch.jit.trace(model, example)
    model_path = os.path.join(out_dir, "demo_model.pt")
    # The batch the demo trace was recorded at: the Model page fills its inputs with it.
    scripted.save(model_path, _extra_files={"example_inputs.txt": "8x3x64x64"})

    batch = torch.randn(8, 3, 64, 64)
    with torch.no_grad():
        for _ in range(3):  # warm up: the profiling executor specializes on the first calls
            scripted(batch)
        with torch.profiler.profile(
                activities=[torch.profiler.ProfilerActivity.CPU],
                record_shapes=True, profile_memory=True, with_stack=False) as prof:
            for step in range(3):
                with torch.profiler.record_function(f"ProfilerStep#{step}"):
                    scripted(batch)
    trace_path = os.path.join(out_dir, "demo.pt.trace.json")
    prof.export_chrome_trace(trace_path)

    # Facts about the demo, computed here by PyTorch itself, for tests to compare against.
    facts = {
        "parameters": sum(p.numel() for p in model.parameters()),
        "modules": sum(1 for _ in model.modules()),
        "input": "8x3x64x64",
    }
    with open(os.path.join(out_dir, "demo_facts.json"), "w") as f:
        json.dump(facts, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "resources/demo")
