#!/usr/bin/env python3
"""The GPU check's workers, run by the chosen Python (with torch) for scripts/gpu_check.py: they
build the models, and they are the programs `pyrometer-cli record` records.

    gpu_check_worker.py models OUT SIZE      the models, saved for pyrometer-cli
    gpu_check_worker.py train SIZE STEPS     a training loop
    gpu_check_worker.py graphs SIZE CALLS    CUDA graph replays
"""

import json
import os
import sys


# ---------------------------------------------------------------------------------------------
# Workers: run by the chosen Python, with torch


SIZES = {
    # On a GPU: ResNet-18 itself at 224x224, and a 4-layer encoder of width 256.
    "full": {"width": 64, "resolution": 224, "dim": 256, "heads": 8, "layers": 4, "seq": 128, "batch": 8,
             "batches": [1, 8, 32, 64], "mlp": 4096, "mlp_batch": 1024},
    # The CPU smoke test, quick on two cores.
    "small": {"width": 16, "resolution": 64, "dim": 64, "heads": 4, "layers": 2, "seq": 16, "batch": 2,
              "batches": [1, 2, 4], "mlp": 256, "mlp_batch": 64},
}


def define_models(torch):
    """ResNet-18 written out (torchvision may be absent) and a TransformerEncoder with a head."""
    nn = torch.nn

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU(inplace=True)
            self.downsample = None
            if stride != 1 or cin != cout:
                self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            identity = x if self.downsample is None else self.downsample(x)
            y = self.relu(self.bn1(self.conv1(x)))
            return self.relu(self.bn2(self.conv2(y)) + identity)

    class ResNet18(nn.Module):
        def __init__(self, width=64, classes=1000):
            super().__init__()
            self.conv1 = nn.Conv2d(3, width, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(width)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            widths = [width, width * 2, width * 4, width * 8]
            stages, cin = [], width
            for i, cout in enumerate(widths):
                stride = 1 if i == 0 else 2
                stages.append(nn.Sequential(BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)))
                cin = cout
            self.layer1, self.layer2, self.layer3, self.layer4 = stages
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(cin, classes)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(torch.flatten(self.avgpool(x), 1))

    class Encoder(nn.Module):
        def __init__(self, dim, heads, layers, classes=10):
            super().__init__()
            layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, layers)
            self.head = nn.Linear(dim, classes)

        def forward(self, x):
            return self.head(self.encoder(x).mean(1))

    return ResNet18, Encoder


def make_model(torch, name, size):
    """The model called name at size, in eval mode, with an example input at its batch."""
    s = SIZES[size]
    ResNet18, Encoder = define_models(torch)
    torch.manual_seed(0)
    if name == "resnet18":
        return ResNet18(s["width"]).eval(), f"Bx3x{s['resolution']}x{s['resolution']}"
    return Encoder(s["dim"], s["heads"], s["layers"]).eval(), f"Bx{s['seq']}x{s['dim']}"


def example_input(torch, input_spec, batch):
    return torch.randn(*[batch if d == "B" else int(d) for d in input_spec.split("x")])


def save_model(torch, model, example, stem):
    """A torch.export program with a dynamic batch, else one at the example's batch, else
    TorchScript (torch.jit.trace): the file, how it was saved, and what failed on the way."""
    notes = []
    if hasattr(torch, "export") and hasattr(torch.export, "save"):
        attempts = []
        if hasattr(torch.export, "Dim"):
            batch = torch.export.Dim("batch", min=1, max=256)
            attempts.append(("torch.export, dynamic batch", {"dynamic_shapes": ({0: batch},)}))
        attempts.append(("torch.export, fixed batch", {}))
        for kind, options in attempts:
            try:
                program = torch.export.export(model, (example,), **options)
                torch.export.save(program, stem + ".pt2")
                return stem + ".pt2", kind, notes
            except Exception as error:
                notes.append(f"{kind} failed: {type(error).__name__}: {str(error).strip().splitlines()[0][:200]}")
    else:
        notes.append(f"torch {torch.__version__} has no torch.export: saved as TorchScript")
    with torch.no_grad():
        traced = torch.jit.trace(model, example)
    torch.jit.save(traced, stem + ".pt")
    return stem + ".pt", "TorchScript (torch.jit.trace)", notes


def worker_models(out, size):
    import torch
    os.makedirs(out, exist_ok=True)
    s = SIZES[size]
    entries = []
    for name in ("resnet18", "transformer"):
        model, spec = make_model(torch, name, size)
        path, kind, notes = save_model(torch, model, example_input(torch, spec, s["batch"]), os.path.join(out, name))
        batches = s["batches"] if kind != "torch.export, fixed batch" else [s["batch"]]
        entries.append({"name": name, "path": path, "input": spec, "batch": s["batch"], "batches": batches, "kind": kind,
                        "params": sum(p.numel() for p in model.parameters()), "notes": notes})
    with open(os.path.join(out, "models.json"), "w") as stream:
        json.dump(entries, stream, indent=1)


def worker_train(size, steps):
    """An MLP's training steps with Adam; the forward under bf16 autocast on a GPU that has it."""
    import contextlib
    import torch
    s = SIZES[size]
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    nn = torch.nn
    width = s["mlp"]
    model = nn.Sequential(nn.Linear(width, width), nn.GELU(), nn.Linear(width, width), nn.GELU(),
                          nn.Linear(width, 10)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(s["mlp_batch"], width, device=device)
    y = torch.randint(0, 10, (s["mlp_batch"],), device=device)
    bf16 = device == "cuda" and hasattr(torch, "autocast") and torch.cuda.is_bf16_supported()
    for _ in range(steps):
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16) if bf16 else contextlib.nullcontext():
            loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
    if device == "cuda":
        torch.cuda.synchronize()


def worker_graphs(size, calls):
    """The CNN as compare's reduce_overhead variant runs it: torch.compile(mode="reduce-overhead")."""
    import torch
    device = "cuda" if torch.cuda.is_available() else "cpu"  # on the CPU: no graphs, the same steps
    model, spec = make_model(torch, "resnet18", size)
    compiled = torch.compile(model.to(device), mode="reduce-overhead")
    x = example_input(torch, spec, SIZES[size]["batch"]).to(device)
    with torch.no_grad():
        for _ in range(calls):
            compiled(x)
    if device == "cuda":
        torch.cuda.synchronize()


def worker(argv):
    kind, rest = argv[0], argv[1:]
    if kind == "models":
        worker_models(rest[0], rest[1])
    elif kind == "train":
        worker_train(rest[0], int(rest[1]))
    elif kind == "graphs":
        worker_graphs(rest[0], int(rest[1]))
    else:
        raise SystemExit(f"gpu_check_worker.py: unknown worker {kind}")
    return 0



if __name__ == "__main__":
    sys.exit(worker(sys.argv[1:]))
