#!/usr/bin/python3
"""Records two CPU profiles with the machine's own torch and writes, beside each Chrome trace,
what that torch's key_averages() says, so that tests compare Pyrometer's operator table with
the torch that wrote the trace (1.13 on Debian 12, 2.6 on Debian 13), not with one recorded once.

    /usr/bin/python3 scripts/record-key-averages.py OUT_DIR

  training.json      two iterations of forward, backward and an SGD step of a small CNN, with
                     record_shapes and profile_memory, without a schedule: tensors Python frees
                     between ops are key_averages' "[memory]" row; the loss's mean() is an op
                     torch 2.x records twice, nested, and key_averages folds into one
  transformer.json   forwards of a 2-layer nn.TransformerEncoder: in eval mode without grad (torch
                     2.x takes its fused fast path) and in train mode with a padding mask
                     (torch 2.x's multi_head_attention_forward calls scaled_dot_product_attention),
                     two active steps of a torch.profiler schedule (key_averages' "ProfilerStep*")
  NAME.key_averages.csv   name, calls, total_us, self_us: prof.key_averages() as torch computes
                     it (key, count, cpu_time_total, self_cpu_time_total, in µs), by name
  facts.json         torch's version and the traces made

Exits 77 (the test's SKIP_RETURN_CODE) with a sentence on stderr, and writes that sentence to
OUT_DIR/skipped.txt, when this python3 has no torch.
"""
import csv
import json
import os
import sys

SKIP = 77


def write_key_averages(prof, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["name", "calls", "total_us", "self_us"])
        for e in sorted(prof.key_averages(), key=lambda e: e.key):
            w.writerow([e.key, e.count, repr(float(e.cpu_time_total)), repr(float(e.self_cpu_time_total))])


def save(prof, out, name):
    prof.export_chrome_trace(os.path.join(out, name + ".json"))
    write_key_averages(prof, os.path.join(out, name + ".key_averages.csv"))


def profile_steps(out, name, step, steps, **options):
    """Runs step() under torch.profiler with a schedule (one warm-up step, then `steps` active
    ones); the trace and key_averages() are taken when the profiler hands them over (torch 2.x
    writes an empty trace when asked after the schedule ended)."""
    import torch

    schedule = torch.profiler.schedule(wait=0, warmup=1, active=steps, repeat=1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=schedule,
                                on_trace_ready=lambda prof: save(prof, out, name), **options) as prof:
        for _ in range(1 + steps):
            step()
            prof.step()


def training(out):
    import torch
    import torch.nn as nn

    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(8 * 8 * 8, 32), nn.ReLU(), nn.Linear(32, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(4, 3, 16, 16)
    y = torch.randint(0, 10, (4,))

    def step():
        optimizer.zero_grad()
        logits = model(x)
        loss = nn.functional.cross_entropy(logits, y) + 1e-3 * logits.pow(2).mean()
        loss.backward()
        optimizer.step()

    for _ in range(2):
        step()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True,
                                profile_memory=True) as prof:
        for _ in range(2):
            step()
    save(prof, out, "training")


def transformer(out):
    import torch
    import torch.nn as nn

    layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True)
    model = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
    x = torch.randn(2, 10, 32)
    padding = torch.zeros(2, 10, dtype=torch.bool)
    padding[1, 7:] = True

    def step():
        model.eval()
        with torch.no_grad():
            model(x)
        model.train()
        model(x, src_key_padding_mask=padding)

    step()
    profile_steps(out, "transformer", step, 2, record_shapes=True)


def main(out):
    os.makedirs(out, exist_ok=True)
    for stale in os.listdir(out):
        os.remove(os.path.join(out, stale))
    try:
        import torch
    except ImportError as error:
        reason = "%s has no torch (%s); scripts/setup installs python3-torch" % (sys.executable, error)
        with open(os.path.join(out, "skipped.txt"), "w") as f:
            f.write(reason + "\n")
        print(reason, file=sys.stderr)
        return SKIP
    torch.manual_seed(0)
    torch.set_num_threads(1)
    made = []
    for record in (training, transformer):
        record(out)
        made.append(record.__name__)
    with open(os.path.join(out, "facts.json"), "w") as f:
        json.dump({"torch": torch.__version__, "made": made}, f, indent=1)
    print("torch %s: %s in %s" % (torch.__version__, ", ".join(made), out))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
