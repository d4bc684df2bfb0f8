#!/usr/bin/python3
"""Makes the golden files of the per-op work (FLOPs and bytes moved) that the roofline is drawn
from, independently of Pyrometer's C++ code (stdlib only, exact integers).

For h100_bert, mi250_rocm, v100_resnet50 and triton_example it writes into tests/fixtures/analysis/:
  <fixture>.opwork.csv   name,dims,types,concrete,flops,bytes
one row per distinct (name, Input Dims, Input type, Concrete Inputs) among the complete (ph X)
events with "Input Dims" whose name has a formula below, sorted by name, dims, types, concrete.
dims, types and concrete are the compact JSON of the event's arguments (concrete is empty when
the event has no "Concrete Inputs"); flops and bytes are integers or the word unknown.

The formulas (FORMULAS, at the bottom) are written from the specification of the roofline work,
not from core/analysis/opcost.cpp:
  - bytes = every tensor argument (elements * dtype size) + every output, in the dtype of the
    first tensor argument; a TensorList or a non-tensor argument moves nothing;
  - a value needed from "Concrete Inputs" that is absent (or "") makes unknown whatever depends
    on it; so does an output shape that cannot be worked out.
Run again after changing the rules:
    /usr/bin/python3 scripts/make-roofline-fixtures.py
"""
import csv
import gzip
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "analysis")
TRACES = os.path.join(ROOT, "tests", "fixtures", "traces")

FIXTURES = {
    "h100_bert": "gaunernst_bert-small-uncased__1016001.json.gz",
    "mi250_rocm": "mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "v100_resnet50": "tb_logdir/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
    "triton_example": "triton_example.json.gz",
}

# Bytes per element by "Input type"; an argument is a tensor exactly when its type is one of these.
DTYPE_SIZE = {
    "float": 4, "double": 8, "c10::Half": 2, "c10::BFloat16": 2, "long int": 8, "int": 4, "short int": 2,
    "signed char": 1, "unsigned char": 1, "bool": 1, "c10::complex<float>": 8, "c10::complex<double>": 16,
    "c10::Float8_e4m3fn": 1, "c10::Float8_e5m2": 1, "c10::Float8_e4m3fnuz": 1, "c10::Float8_e5m2fnuz": 1,
    "c10::qint8": 1, "c10::quint8": 1, "c10::qint32": 4,
}
# Types under which a reduction's argument 1 is its dim list (rule 11).
LIST_TYPES = {"ScalarList", "GenericList"}


class Unknown(Exception):
    """A value or shape that the formula needs is not in the event."""


def need(condition):
    if not condition:
        raise Unknown


def prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def ints(v):
    """v, when it is a list of ints (a shape, a size list); else Unknown."""
    need(isinstance(v, list) and all(is_int(x) for x in v))
    return v


def parse_scalar(s):
    """One concrete value as torch.profiler writes it: True/False, 'string', int, float."""
    s = s.strip()
    if s in ("True", "False"):
        return s == "True"
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        return s[1:-1]
    for kind in (int, float):
        try:
            return kind(s)
        except ValueError:
            pass
    return s


def parse_value(s):
    """A concrete value, lists like "[2, 2]" or "[]" included; None when it is absent ("")."""
    if not isinstance(s, str) or not s.strip():
        return None
    s = s.strip()
    if s.startswith("[") and s.endswith("]"):
        return [parse_scalar(x) for x in s[1:-1].split(",")] if s[1:-1].strip() else []
    return parse_scalar(s)


class Op:
    """One event's arguments, with accessors that raise Unknown when the formula cannot go on."""

    def __init__(self, name, dims, types, concrete):
        self.name, self.dims, self.types, self.concrete = name, dims, types, concrete

    def is_tensor(self, i):
        return i < len(self.types) and self.types[i] in DTYPE_SIZE

    def tensors(self):
        return [i for i in range(len(self.types)) if self.is_tensor(i)]

    def shape(self, i):
        need(self.is_tensor(i) and i < len(self.dims))
        return ints(self.dims[i])

    def numel(self, i):
        return prod(self.shape(i))  # a 0-dim tensor, [], is one element

    def value(self, i):
        v = parse_value(self.concrete[i]) if self.concrete is not None and i < len(self.concrete) else None
        need(v is not None)
        return v

    def int_list(self, i, rank):
        """A stride/padding/... value: rank ints, or one int (or a one-element list) for every dim."""
        v = self.value(i)
        v = ints([v] if is_int(v) else v)
        need(len(v) in (1, rank))
        return v * rank if len(v) == 1 else v

    def flag(self, i):
        v = self.value(i)
        need(isinstance(v, (bool, int)))
        return bool(v)

    def in_bytes(self):
        return sum(self.numel(i) * DTYPE_SIZE[self.types[i]] for i in self.tensors())

    def out_size(self):
        need(self.tensors())
        return DTYPE_SIZE[self.types[self.tensors()[0]]]


def broadcast(shapes, numpy=True):
    """Right-aligned broadcast. numpy: a 1 gives way, other unequal sizes are an error (Unknown);
    not numpy (matmul's batch, as the specification words it): the elementwise max."""
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for j in range(rank):
        sizes = [s[len(s) - rank + j] for s in shapes if len(s) - rank + j >= 0]
        rest = set(x for x in sizes if x != 1)
        need(not numpy or len(rest) <= 1)
        out.append(max(sizes) if not numpy else rest.pop() if rest else 1)
    return out


# ---- 1-3: matrix products ------------------------------------------------------------------------

def matmul_parts(a, b):
    """(batch, n, k, m, output shape) of a @ b; a 1-D operand is a vector whose dim the output drops."""
    need(a and b)
    n, k = (1, a[0]) if len(a) == 1 else (a[-2], a[-1])
    m = 1 if len(b) == 1 else b[-1]
    batch_dims = broadcast([a[:-2], b[:-2]], numpy=False)
    out = batch_dims + ([] if len(a) == 1 else [n]) + ([] if len(b) == 1 else [m])
    return prod(batch_dims), n, k, m, out


def mm_flops(op, ai=0, add=False):
    batch, n, k, m, _ = matmul_parts(op.shape(ai), op.shape(ai + 1))
    return 2 * batch * n * k * m + (batch * n * m if add else 0)


def mm_out(op, ai=0):
    return [matmul_parts(op.shape(ai), op.shape(ai + 1))[4]]


def addbmm_parts(op):
    """(b, n, k, m) of addbmm(bias, a[b, n, k], b[b, k, m])."""
    a, b = op.shape(1), op.shape(2)
    need(len(a) == 3 and len(b) == 3)
    return a[0], a[1], a[2], b[2]


def linear_out(op):
    x, w = op.shape(0), op.shape(1)
    need(x and len(w) in (1, 2))
    return x[:-1] if len(w) == 1 else x[:-1] + [w[0]]


def linear_flops(op):
    m = 1 if len(op.shape(1)) == 1 else op.shape(1)[0]
    return 2 * op.numel(0) * m + (prod(linear_out(op)) if op.is_tensor(2) else 0)


# ---- 4-5: convolutions ---------------------------------------------------------------------------

# Argument positions of the forward convolutions; transposed is a position or the fixed answer.
CONV = dict(stride=3, padding=4, dilation=5, output_padding=None, groups=6, transposed=False)
CONVOLUTION = dict(stride=3, padding=4, dilation=5, output_padding=7, groups=8, transposed=6)
CONV_T = dict(stride=3, padding=4, output_padding=5, groups=6, dilation=7, transposed=True)


def transposed(op, layout):
    t = layout["transposed"]
    return t if isinstance(t, bool) else op.flag(t)


def conv_out(op, layout):
    """Output shape of a forward convolution; every concrete value it uses must be there."""
    x, w = op.shape(0), op.shape(1)
    rank = len(w) - 2
    need(rank >= 1 and len(x) in (rank + 1, rank + 2))
    spatial, kernel = x[-rank:], w[2:]
    if transposed(op, layout):
        s, p, d, o = (op.int_list(layout[k], rank) for k in ("stride", "padding", "dilation", "output_padding"))
        groups = op.value(layout["groups"])
        need(is_int(groups))
        channels = w[1] * groups
        out = [(i - 1) * s[j] - 2 * p[j] + d[j] * (kernel[j] - 1) + o[j] + 1 for j, i in enumerate(spatial)]
    else:
        channels = w[0]
        padding = op.value(layout["padding"])
        if padding == "same":
            out = list(spatial)  # stride and dilation are not needed then
        else:
            p = [0] * rank if padding == "valid" else op.int_list(layout["padding"], rank)
            s, d = op.int_list(layout["stride"], rank), op.int_list(layout["dilation"], rank)
            # Python's // floors, as the formula asks, for a negative numerator too.
            out = [(i + 2 * p[j] - d[j] * (kernel[j] - 1) - 1) // s[j] + 1 for j, i in enumerate(spatial)]
    return ([] if len(x) == rank + 1 else [x[0]]) + [channels] + out


def per_point(w):
    """MACs per output element (input element when transposed): weight[1] * the kernel's size."""
    need(len(w) >= 3)
    return w[1] * prod(w[2:])


def conv_flops(op, layout):
    # The output is worked out even for a transposed one without bias, whose flops would not need
    # it: rule 4 makes flops and bytes unknown together when a concrete value is missing.
    out = prod(conv_out(op, layout))
    macs = (op.numel(0) if transposed(op, layout) else out) * per_point(op.shape(1))
    return 2 * macs + (out if op.is_tensor(2) else 0)


def conv_bwd_mask(op):
    mask = op.value(10)
    need(isinstance(mask, list) and len(mask) == 3 and all(isinstance(x, (bool, int)) for x in mask))
    return [int(bool(x)) for x in mask]


def conv_bwd_flops(op):
    mask = conv_bwd_mask(op)
    macs = (op.numel(1) if op.flag(7) else op.numel(0)) * per_point(op.shape(2))
    return 2 * macs * (mask[0] + mask[1]) + (op.numel(0) if mask[2] else 0)


def conv_bwd_out(op):
    """grad_input (input's shape), grad_weight (weight's), grad_bias ([grad_output.shape[1]]) by mask."""
    mask, grad_out = conv_bwd_mask(op), op.shape(0)
    outs = ([op.shape(1)] if mask[0] else []) + ([op.shape(2)] if mask[1] else [])
    if mask[2]:
        need(len(grad_out) >= 2)
        outs.append([grad_out[1]])
    return outs


# ---- 6: attention --------------------------------------------------------------------------------

def attention_parts(op, first):
    """(scores, E) with q, k at first, first + 1: batch (q's leading dims) * L * S, and q's last dim."""
    q, k = op.shape(first), op.shape(first + 1)
    need(len(q) >= 2 and len(k) >= 2)
    return prod(q[:-2]) * q[-2] * k[-2], q[-1]


def attention_out(op):
    q, v = op.shape(0), op.shape(2)
    need(len(q) >= 2 and v)
    return [q[:-1] + [v[-1]]]


def attention_flops(op):
    scores, e = attention_parts(op, 0)
    return 4 * scores * e + 5 * scores


def attention_bwd_flops(op):
    scores, e = attention_parts(op, 1)
    return 8 * scores * e


# ---- 7-11: normalization, softmax, elementwise, reductions -----------------------------------------

def elementwise_out(op):
    need(op.tensors())
    return [broadcast([op.shape(i) for i in op.tensors()])]


def reduce_out(op):
    x = op.shape(0)
    concrete1 = op.concrete[1] if op.concrete is not None and len(op.concrete) > 1 else ""
    if not (len(op.types) > 1 and op.types[1] in LIST_TYPES or isinstance(parse_value(concrete1), list)):
        return [[]]  # sum(input) or sum(input, dtype): everything
    dims = ints(op.value(1))
    need(all(-len(x) <= d < len(x) for d in dims))
    gone = set(d % len(x) for d in dims) if dims else set(range(len(x)))
    # keepdim only turns a reduced dim into a 1: the element count, all that bytes needs, is the
    # same either way, so a missing keepdim does not make bytes unknown.
    return [[s for j, s in enumerate(x) if j not in gone]]


def per_element(k, i=0):
    return lambda op: k * op.numel(i)


def like(i):
    return lambda op: [op.shape(i)]


# name -> (flops(op), outputs(op) -> list of shapes); either may raise Unknown.
FORMULAS = {}


def formula(names, flops, outs):
    for n in names.split():
        FORMULAS["aten::" + n] = (flops, outs)


formula("mm bmm matmul", mm_flops, mm_out)
formula("addmm baddbmm", lambda op: mm_flops(op, 1, add=True), lambda op: mm_out(op, 1))
formula("addbmm", lambda op: (lambda b, n, k, m: 2 * b * n * k * m + n * m)(*addbmm_parts(op)),
        lambda op: [[addbmm_parts(op)[1], addbmm_parts(op)[3]]])
formula("linear", linear_flops, lambda op: [linear_out(op)])
for names, layout in (("conv1d conv2d conv3d", CONV), ("convolution _convolution", CONVOLUTION),
                      ("conv_transpose1d conv_transpose2d conv_transpose3d", CONV_T)):
    formula(names, lambda op, lay=layout: conv_flops(op, lay), lambda op, lay=layout: [conv_out(op, lay)])
formula("convolution_backward", conv_bwd_flops, conv_bwd_out)
formula("cudnn_convolution_backward_input", lambda op: 2 * op.numel(1) * per_point(op.shape(2)),
        lambda op: [ints(op.value(0))])
formula("cudnn_convolution_backward_weight", lambda op: 2 * op.numel(1) * per_point(ints(op.value(0))),
        lambda op: [ints(op.value(0))])
formula("scaled_dot_product_attention _scaled_dot_product_attention _scaled_dot_product_flash_attention "
        "_scaled_dot_product_flash_attention_for_cpu _scaled_dot_product_efficient_attention "
        "_scaled_dot_product_cudnn_attention _scaled_dot_product_attention_math", attention_flops, attention_out)
formula("_scaled_dot_product_flash_attention_backward _scaled_dot_product_efficient_attention_backward "
        "_scaled_dot_product_cudnn_attention_backward", attention_bwd_flops,
        lambda op: [op.shape(1), op.shape(2), op.shape(3)])
formula("layer_norm native_layer_norm group_norm instance_norm", per_element(5), like(0))
formula("batch_norm native_batch_norm _native_batch_norm_legit",
        lambda op: op.numel(0) * (5 if op.flag(5) else 2), like(0))  # argument 5 is training
formula("_native_batch_norm_legit_no_training", per_element(2), like(0))
formula("softmax _softmax log_softmax _log_softmax", per_element(5), like(0))
formula("add add_ sub sub_ mul mul_ div div_ relu relu_ relu6 hardtanh hardtanh_ leaky_relu leaky_relu_ clamp "
        "clamp_ clamp_min neg abs maximum minimum where dropout pow rsub sqrt rsqrt exp log reciprocal",
        lambda op: prod(elementwise_out(op)[0]), elementwise_out)
formula("gelu silu silu_ sigmoid sigmoid_ tanh tanh_ hardswish hardswish_ hardsigmoid hardsigmoid_ mish elu "
        "softplus", per_element(4), like(0))
formula("threshold_backward", per_element(1), like(0))
formula("gelu_backward sigmoid_backward tanh_backward silu_backward", per_element(4), like(0))
formula("_softmax_backward_data _log_softmax_backward_data native_layer_norm_backward native_batch_norm_backward "
        "cudnn_batch_norm_backward", per_element(5), like(0))
formula("sum mean", per_element(1), reduce_out)


# ---- trace to rows -------------------------------------------------------------------------------

def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        data = json.load(f)
    return data["traceEvents"] if isinstance(data, dict) else data


def compact(v):
    return json.dumps(v, separators=(",", ":"))


def work(op):
    """(flops, bytes) of one op: ints, or "unknown"."""
    flops_of, outs_of = FORMULAS[op.name]
    try:
        flops = flops_of(op)
    except Unknown:
        flops = "unknown"
    try:
        nbytes = op.in_bytes() + sum(prod(s) for s in outs_of(op)) * op.out_size()
    except Unknown:
        nbytes = "unknown"
    return flops, nbytes


def rows_of(events):
    seen = {}
    for e in events:
        if e.get("ph") != "X" or e.get("name") not in FORMULAS:
            continue
        args = e.get("args") or {}
        dims = args.get("Input Dims", args.get("Input dims"))
        if dims is None:
            continue
        types, concrete = args.get("Input type", []), args.get("Concrete Inputs")
        key = (e["name"], compact(dims), compact(types), "" if concrete is None else compact(concrete))
        if key not in seen:
            seen[key] = work(Op(e["name"], dims, types, concrete))
    return [list(k) + list(seen[k]) for k in sorted(seen)]


def main():
    for fixture, rel in FIXTURES.items():
        rows = rows_of(load(os.path.join(TRACES, rel)))
        with open(os.path.join(OUT, fixture + ".opwork.csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["name", "dims", "types", "concrete", "flops", "bytes"])
            w.writerows(rows)
        print("%s: %d rows, %d unknown flops, %d unknown bytes" % (
            fixture, len(rows), sum(r[4] == "unknown" for r in rows), sum(r[5] == "unknown" for r in rows)))


if __name__ == "__main__":
    sys.exit(main())
