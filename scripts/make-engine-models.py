#!/usr/bin/python3
"""Makes the models the Python engine's tests open, with the release's own python3-torch (and
torchvision): random weights, nothing downloaded, nothing committed.

    /usr/bin/python3 scripts/make-engine-models.py OUT_DIR

Always:
  factory_cnn.pt        tests/fixtures/engine/factory_cnn.py:build traced to TorchScript, so the
                        embedded engine and the Python engine profile the very same model
  fake.pt2              a file named .pt2 that is no program (what an old torch must refuse by version)
With torch 2.x only (torch.export, scaled_dot_product_attention):
  resnet18.pt2          torchvision's resnet18 exported at batch 1 (a fixed batch)
  resnet18_dynamic.pt2  the same with a dynamic batch (torch.export.Dim, 1 to 64)
  attention.pt          a traced attention block calling F.scaled_dot_product_attention
  encoder.pt            a scripted nn.TransformerEncoder (2 layers, d_model 64, 4 heads)
facts.json says what PyTorch itself computed: torch's version, which files were made, and the
models' parameter counts.
"""
import importlib.util
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "tests", "fixtures", "engine")


class Attention(nn.Module):
    def __init__(self, dim=64, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(self.norm(x)).reshape(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v)
        return x + self.proj(y.transpose(1, 2).reshape(b, n, d))


def version_at_least(major, minor):
    parts = torch.__version__.split("+")[0].split(".")
    return (int(parts[0]), int("".join(c for c in parts[1] if c.isdigit()) or 0)) >= (major, minor)


def main(out):
    os.makedirs(out, exist_ok=True)
    facts = {"torch": torch.__version__, "made": []}
    spec = importlib.util.spec_from_file_location("factory_cnn", os.path.join(FIXTURES, "factory_cnn.py"))
    factory = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(factory)
    model, (example,) = factory.build()
    traced = torch.jit.trace(model, example)
    torch.jit.save(traced, os.path.join(out, "factory_cnn.pt"), _extra_files={"example_inputs.txt": "2x3x32x32"})
    facts["factory_cnn_params"] = sum(p.numel() for p in model.parameters())
    facts["made"].append("factory_cnn.pt")
    with open(os.path.join(out, "fake.pt2"), "wb") as stream:
        stream.write(b"PK\x05\x06" + b"\x00" * 18)
    facts["made"].append("fake.pt2")

    if version_at_least(2, 1):
        import torchvision
        torch.manual_seed(0)
        resnet = torchvision.models.resnet18().eval()
        x = torch.randn(1, 3, 224, 224)
        torch.export.save(torch.export.export(resnet, (x,)), os.path.join(out, "resnet18.pt2"))
        batch = torch.export.Dim("batch", min=1, max=64)
        program = torch.export.export(resnet, (torch.randn(2, 3, 224, 224),), dynamic_shapes=({0: batch},))
        torch.export.save(program, os.path.join(out, "resnet18_dynamic.pt2"))
        facts["resnet18_params"] = sum(p.numel() for p in resnet.parameters())
        facts["made"] += ["resnet18.pt2", "resnet18_dynamic.pt2"]

        torch.manual_seed(0)
        attention = Attention().eval()
        tokens = torch.randn(2, 16, 64)
        torch.jit.save(torch.jit.trace(attention, tokens), os.path.join(out, "attention.pt"),
                       _extra_files={"example_inputs.txt": "2x16x64"})
        facts["attention_params"] = sum(p.numel() for p in attention.parameters())
        torch.manual_seed(0)
        layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True)
        encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()
        torch.jit.save(torch.jit.script(encoder), os.path.join(out, "encoder.pt"), _extra_files={"example_inputs.txt": "2x16x64"})
        facts["encoder_params"] = sum(p.numel() for p in encoder.parameters())
        facts["made"] += ["attention.pt", "encoder.pt"]

    with open(os.path.join(out, "facts.json"), "w") as stream:
        json.dump(facts, stream, indent=1)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
