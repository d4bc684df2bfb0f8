#!/usr/bin/python3
"""Makes the small model files the tests use, with Debian's python3-torch (nothing downloaded).

The outputs are committed under tests/fixtures/models/; run again after changing them:
    /usr/bin/python3 scripts/make-fixtures.py tests/fixtures/models
"""
import os
import sys
import zipfile

import torch
import torch.nn as nn


def main(out_dir: str) -> None:
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    tiny = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))

    # Things users mistake for TorchScript: each must be refused with a message saying what it is.
    torch.save(tiny.state_dict(), os.path.join(out_dir, "state_dict.pt"))
    torch.save(tiny.state_dict(), os.path.join(out_dir, "legacy_pickle.pt"),
               _use_new_zipfile_serialization=False)
    with zipfile.ZipFile(os.path.join(out_dir, "not_torchscript.zip"), "w") as archive:
        archive.writestr("readme.txt", "a zip archive that holds no model\n")
    with open(os.path.join(out_dir, "text.pt"), "w") as f:
        f.write("this is not a model\n")
    open(os.path.join(out_dir, "empty.pt"), "w").close()

    # A valid TorchScript model, scripted (not traced), with a known parameter count: 4*3+3 + 3*2+2 = 23.
    torch.jit.script(tiny).save(os.path.join(out_dir, "tiny_scripted.pt"))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/models")
