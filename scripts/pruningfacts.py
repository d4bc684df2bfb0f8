"""What pruning and accuracy on labelled data should give, computed with PyTorch alone, for the
core/torch tests. make-test-models.py calls write(); nothing here reads Pyrometer's code.

- pruned_<model>.json facts: parameters and MACs (of convolutions and linears, at the model's
  recorded input) of small_cnn, classifier and resnet18 with prune_channels=0.3, from pruned
  architectures built and run here: each group of channels that must shrink together keeps
  channels - round(0.3 x channels) of them (Python's round, as torch.nn.utils.prune counts).
- classifier_inputs.pt / classifier_labels.pt: 40 samples of the classifier's task, chosen so
  that every variant's top-1 is clear (its two best scores apart by 0.05 or more) and some of
  the pruned variants' predictions differ from the baseline's; the labels are the baseline's
  predictions with the first 8 flipped, so the baseline scores exactly 32/40. The accuracy and
  agreement of baseline, prune_l1=0.5 (torch.nn.utils.prune.l1_unstructured per layer) and
  prune_channels=0.3 (the lowest-L1 output channels, sliced here by hand) go into facts.
- data/: files a user could get wrong, each for one refusal.
"""
import copy
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import prune

CHANNELS = 0.3
WEIGHTS = 0.5
SAMPLES = 40
FLIPPED = 8
MARGIN = 0.05


def kept(channels, amount=CHANNELS):
    return channels - min(channels - 1, round(amount * channels))


def macs_of(model, example):
    total = 0

    def conv(module, inputs, output):
        nonlocal total
        total += output.numel() * module.weight[0].numel()  # in_channels / groups x kernel

    def linear(module, inputs, output):
        nonlocal total
        total += output.numel() * module.weight.shape[1]

    hooks = [m.register_forward_hook(conv if isinstance(m, nn.Conv2d) else linear)
             for m in model.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]
    with torch.no_grad():
        model.eval()(example)
    for hook in hooks:
        hook.remove()
    return total


def params_of(model):
    return sum(p.numel() for p in model.parameters())


def conv_like(conv, cin, cout, groups=1):
    return nn.Conv2d(cin, cout, conv.kernel_size, stride=conv.stride, padding=conv.padding, groups=groups,
                     bias=conv.bias is not None)


def pruned_small_cnn(SmallCnn):
    m = SmallCnn()
    a, b = kept(16), kept(32)
    m.conv1, m.bn1 = nn.Conv2d(3, a, 3, padding=1), nn.BatchNorm2d(a)
    m.dw = nn.Conv2d(a, a, 3, stride=2, padding=1, groups=a, bias=False)  # depthwise: its input's channels
    m.pw = nn.Conv2d(a, b, 1)
    m.fc = nn.Linear(b, 10)  # its output is the model's: whole
    return m


def pruned_resnet18():
    import torchvision.models as models
    m = models.resnet18(weights=None)
    # One group per stage's residual stream (the stem, each block's conv2 and downsample add
    # into it) and one per block's inner conv1.
    stream = kept(64)
    m.conv1, m.bn1 = conv_like(m.conv1, 3, stream), nn.BatchNorm2d(stream)
    for layer in (m.layer1, m.layer2, m.layer3, m.layer4):
        width = kept(layer[0].conv2.out_channels)
        for block in layer:
            inner = kept(block.conv1.out_channels)
            cin = stream
            block.conv1, block.bn1 = conv_like(block.conv1, cin, inner), nn.BatchNorm2d(inner)
            block.conv2, block.bn2 = conv_like(block.conv2, inner, width), nn.BatchNorm2d(width)
            if block.downsample is not None:
                block.downsample[0] = conv_like(block.downsample[0], cin, width)
                block.downsample[1] = nn.BatchNorm2d(width)
            stream = width
    m.fc = nn.Linear(stream, 1000)
    return m


def train_classifier(Classifier):
    torch.manual_seed(1)
    model = Classifier()

    def batch(n, strength):
        labels = torch.randint(0, 4, (n,))
        x = torch.randn(n, 3, 16, 16) * 0.5
        for i, k in enumerate(labels.tolist()):  # class k: a bright quadrant k
            r, c = divmod(k, 2)
            x[i, :, r * 8:(r + 1) * 8, c * 8:(c + 1) * 8] += strength[i]
        return x, labels

    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(150):
        x, y = batch(64, torch.rand(64) + 0.2)
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.eval(), batch


def keep_indices(weight, amount=CHANNELS):
    channels = weight.shape[0]
    importance = weight.detach().abs().reshape(channels, -1).sum(1).double()
    return importance.topk(kept(channels, amount)).indices.sort().values


def classifier_channels_pruned(model):
    m = copy.deepcopy(model)
    k1, k2 = keep_indices(m.conv1.weight), keep_indices(m.conv2.weight)
    with torch.no_grad():
        m.conv1.weight, m.conv1.bias = nn.Parameter(m.conv1.weight[k1]), nn.Parameter(m.conv1.bias[k1])
        m.conv2.weight = nn.Parameter(m.conv2.weight[k2][:, k1])
        m.conv2.bias = nn.Parameter(m.conv2.bias[k2])
        for bn, k in ((m.bn1, k1), (m.bn2, k2)):
            bn.weight, bn.bias = nn.Parameter(bn.weight[k]), nn.Parameter(bn.bias[k])
            bn.running_mean, bn.running_var = bn.running_mean[k], bn.running_var[k]
        m.fc.weight = nn.Parameter(m.fc.weight[:, k2])
    return m


def classifier_l1_pruned(model):
    m = copy.deepcopy(model)
    for module in m.modules():
        if isinstance(module, (nn.Conv2d, nn.Linear)):
            prune.l1_unstructured(module, "weight", amount=WEIGHTS)
            prune.remove(module, "weight")
    return m


def clear(scores):
    top = scores.topk(2, 1).values
    return top[:, 0] - top[:, 1] >= MARGIN


def labelled_set(out_dir, facts, model, batch):
    torch.manual_seed(2)
    x, _ = batch(800, torch.rand(800) * 0.6)  # faint patches: some are hard
    variants = {"baseline": model, "prune_l1=0.5": classifier_l1_pruned(model),
                "prune_channels=0.3": classifier_channels_pruned(model)}
    with torch.no_grad():
        scores = {name: m(x) for name, m in variants.items()}
    base = scores["baseline"].argmax(1)
    ok = clear(scores["baseline"]) & clear(scores["prune_l1=0.5"]) & clear(scores["prune_channels=0.3"])
    changed_l1 = ok & (scores["prune_l1=0.5"].argmax(1) != base)
    changed_channels = ok & (scores["prune_channels=0.3"].argmax(1) != base)
    same = ok & ~changed_l1 & ~changed_channels
    chosen = []
    for pool, count in ((changed_l1, 5), (changed_channels, 5), (same, SAMPLES)):
        for i in pool.nonzero().flatten().tolist():
            if len(chosen) < SAMPLES and i not in chosen and count > 0:
                chosen.append(i)
                count -= 1
    index = torch.tensor(sorted(chosen))
    inputs = x[index].contiguous()
    labels = base[index].clone()
    labels[:FLIPPED] = (labels[:FLIPPED] + 1) % 4
    torch.save(inputs, os.path.join(out_dir, "classifier_inputs.pt"))
    torch.save(labels, os.path.join(out_dir, "classifier_labels.pt"))
    expected = {}
    for name in variants:
        predicted = scores[name][index].argmax(1)
        expected[name] = {"correct": int((predicted == labels).sum()), "agreeing": int((predicted == base[index]).sum())}
    facts["classifier_data"] = {"samples": len(chosen), "flipped": FLIPPED, "variants": expected}

    data = os.path.join(out_dir, "data")
    os.makedirs(data, exist_ok=True)
    torch.save(labels, os.path.join(data, "legacy.pt"), _use_new_zipfile_serialization=False)
    torch.save({"inputs": inputs, "labels": labels}, os.path.join(data, "dict.pt"))
    torch.save(labels.float(), os.path.join(data, "labels_float.pt"))
    torch.save(labels.unsqueeze(1), os.path.join(data, "labels_2d.pt"))
    torch.save(labels[:-1].clone(), os.path.join(data, "labels_short.pt"))
    torch.save(torch.where(labels == 0, 4, labels), os.path.join(data, "labels_range.pt"))
    torch.save(inputs[:, :2].contiguous(), os.path.join(data, "inputs_2channels.pt"))
    with open(os.path.join(data, "not_torch.pt"), "w") as f:
        f.write("1,2,3\n")
    # Two inputs of two dtypes as one tuple, for two_inputs (3x8 floats, 3x5 int64 ids).
    torch.manual_seed(3)
    torch.save((torch.randn(10, 8), torch.randint(0, 20, (10, 5))), os.path.join(data, "two_inputs.pt"))


def write(out_dir, facts, Classifier, SmallCnn, save_traced, with_resnet):
    model, batch = train_classifier(Classifier)
    save_traced(out_dir, "classifier", model, "8x3x16x16", facts)
    labelled_set(out_dir, facts, model, batch)

    pruned = {}
    cases = [("small_cnn", SmallCnn(), pruned_small_cnn(SmallCnn), (1, 3, 32, 32)),
             ("classifier", model, classifier_channels_pruned(model), (8, 3, 16, 16))]
    if with_resnet:
        import torchvision.models as models
        cases.append(("resnet18", models.resnet18(weights=None), pruned_resnet18(), (1, 3, 224, 224)))
    for name, base, smaller, shape in cases:
        example = torch.randn(shape)
        pruned[name] = {"baseline": {"parameters": params_of(base), "macs": macs_of(base, example)},
                        "prune_channels=0.3": {"parameters": params_of(smaller), "macs": macs_of(smaller, example)}}
    facts["pruned"] = pruned
