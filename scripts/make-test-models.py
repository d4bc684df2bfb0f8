#!/usr/bin/python3
"""Makes the TorchScript models the core/torch tests profile, with Debian's python3-torch and
python3-torchvision: random weights, nothing downloaded.

The large ones (resnet18 is 45 MB, resnet50 98 MB) are never committed: CTest runs this script
into the build directory as a fixture (tests/core/torch/CMakeLists.txt). By hand:
    /usr/bin/python3 scripts/make-test-models.py OUT_DIR [--skip-large]

Each model records the input spec it was traced with as the archive's extra file
"example_inputs.txt" ("1x3x224x224" or "1x10,1x10:int64"), which pyrometer reads when the user
gives no --input. facts.json lists what PyTorch itself says about each model (parameter
counts), for the tests to compare against.

For the pruning and accuracy tests it also writes, computed here by PyTorch apart from
Pyrometer's code: the parameters and MACs of small_cnn, classifier and resnet18 with 30% of
their channels pruned (the pruned architectures built and run in PyTorch), and a labelled set
for "classifier" (a tiny CNN trained for a few seconds on a synthetic 4-class task) with the
accuracy and agreement its baseline, prune_l1=0.5 and prune_channels=0.3 variants score on it
(the pruning done here with torch.nn.utils.prune and by hand), plus badly made data files.
"""
import json
import os
import sys
import time

import torch
import torch.nn as nn


class SmallCnn(nn.Module):
    """Every layer kind the FLOPs counter handles in a CNN, small enough to compute by hand."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)                              # 3x32x32 -> 16x32x32
        self.bn1 = nn.BatchNorm2d(16)
        self.relu = nn.ReLU()
        self.dw = nn.Conv2d(16, 16, 3, stride=2, padding=1, groups=16, bias=False)  # -> 16x16x16
        self.pw = nn.Conv2d(16, 32, 1)                                           # -> 32x16x16
        self.pool = nn.MaxPool2d(2)                                              # -> 32x8x8
        self.gap = nn.AdaptiveAvgPool2d(1)                                       # -> 32x1x1
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.relu(self.pw(self.dw(x)))
        x = self.gap(self.pool(x))
        return self.fc(torch.flatten(x, 1))


class ConvOnly(nn.Module):
    """Convolutions and no Linear: what int8 dynamic cannot quantize and int8 static can."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(8, 4, 3, padding=1)

    def forward(self, x):
        return self.conv2(self.relu(self.conv1(x)))


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(input_size=32, hidden_size=64, num_layers=2, batch_first=True)
        self.gru = nn.GRU(input_size=64, hidden_size=48, batch_first=True)
        self.head = nn.Linear(48, 5)

    def forward(self, x):
        y, _ = self.lstm(x)
        z, _ = self.gru(y)
        return self.head(z[:, -1])


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(1000, 64)
        layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.head = nn.Linear(64, 2)

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens)).mean(dim=1))


class TwoInputs(nn.Module):
    """Two inputs of different dtypes: features (float) and class ids (int64)."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(20, 8)
        self.fc = nn.Linear(8 + 8, 4)

    def forward(self, x, ids):
        return self.fc(torch.cat([x, self.embed(ids).mean(dim=1)], dim=1))


class Mlp(nn.Module):
    """Linear-heavy: what int8 dynamic quantization shrinks (its weights are 99% of its bytes)."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(256, 512)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(512, 512)
        self.fc3 = nn.Linear(512, 10)

    def forward(self, x):
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


class Classifier(nn.Module):
    """Tiny, and trained, so that its predictions depend on its input (a model with random
    weights predicts one class for everything): what accuracy and agreement tests need."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.relu = nn.ReLU()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, 4)

    def forward(self, x):
        x = self.relu(self.bn1(self.conv1(x)))
        x = self.relu(self.bn2(self.conv2(x)))
        return self.fc(torch.flatten(self.pool(x), 1))


class SqueezeExcite(nn.Module):
    """Reads x.size() in its forward, as squeeze-and-excitation blocks do; scripted, that is the
    one-input aten::size, which channel pruning once read a second input of."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
        self.fc1 = nn.Linear(16, 4)
        self.fc2 = nn.Linear(4, 16)
        self.head = nn.Conv2d(16, 8, 1)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        b, c, h, w = x.size()
        s = torch.sigmoid(self.fc2(torch.relu(self.fc1(x.mean([2, 3])))))
        return self.head(x * s.view(b, c, 1, 1))


def example(spec):
    tensors = []
    for part in spec.split(","):
        shape, _, dtype = part.partition(":")
        dims = [int(d) for d in shape.split("x")]
        if dtype == "int64":
            tensors.append(torch.randint(0, 20, dims, dtype=torch.int64))
        else:
            tensors.append(torch.randn(dims))
    return tuple(tensors)


def save_traced(out_dir, name, model, spec, facts):
    model.eval()
    started = time.time()
    traced = torch.jit.trace(model, example(spec), check_trace=False)
    path = os.path.join(out_dir, name + ".pt")
    traced.save(path, _extra_files={"example_inputs.txt": spec})
    facts[name] = {"input": spec, "parameters": sum(p.numel() for p in model.parameters())}
    print(f"{name}: {time.time() - started:.1f} s", file=sys.stderr)


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    out_dir = argv[1]
    skip_large = "--skip-large" in argv
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    facts = {}
    save_traced(out_dir, "small_cnn", SmallCnn(), "1x3x32x32", facts)
    save_traced(out_dir, "recurrent", Recurrent(), "2x7x32", facts)
    save_traced(out_dir, "encoder", Encoder(), "2x16:int64", facts)
    save_traced(out_dir, "two_inputs", TwoInputs(), "3x8,3x5:int64", facts)
    save_traced(out_dir, "mlp", Mlp(), "4x256", facts)
    save_traced(out_dir, "conv_only", ConvOnly(), "1x3x16x16", facts)
    # Saved without example_inputs.txt: torch 2.x's trace keeps the inputs in the archive itself.
    traced = torch.jit.trace(TwoInputs().eval(), example("3x8,3x5:int64"), check_trace=False)
    traced.save(os.path.join(out_dir, "two_inputs_bare.pt"))
    facts["two_inputs_bare"] = {"input": "3x8,3x5:int64", "keeps_traced_inputs": int(torch.__version__.split(".")[0]) >= 2}
    if not skip_large:
        import torchvision.models as models
        save_traced(out_dir, "resnet18", models.resnet18(weights=None), "1x3x224x224", facts)
        save_traced(out_dir, "mobilenet_v2", models.mobilenet_v2(weights=None), "1x3x224x224", facts)
        save_traced(out_dir, "resnet50", models.resnet50(weights=None), "1x3x224x224", facts)
    import pruningfacts
    pruningfacts.write(out_dir, facts, Classifier, SmallCnn, save_traced, with_resnet=not skip_large)
    torch.manual_seed(0)
    scripted = torch.jit.script(SqueezeExcite().eval())
    scripted.save(os.path.join(out_dir, "squeeze_excite.pt"), _extra_files={"example_inputs.txt": "2x3x16x16"})
    with open(os.path.join(out_dir, "facts.json"), "w") as f:
        json.dump(facts, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv)
