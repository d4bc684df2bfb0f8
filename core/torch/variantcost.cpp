// What a built variant holds and costs, as every compare row reports it: serialized and
// compressed size, weights, MACs of one forward and the sparsity of its Conv and Linear
// weights. Includes libtorch.
#include "core/torch/variantmodel.h"

#include "core/torch/flops.h"
#include "core/torch/prune.h"
#include "core/torch/sessionimpl.h"

#include <zlib.h>

#include <ATen/Parallel.h>

#include <algorithm>
#include <sstream>

namespace pyrometer::torch {

std::string serializedModule(const VariantModel &model)
{
    std::ostringstream stream;
    (model.saveable ? *model.saveable : model.module).save(stream);
    return std::move(stream).str();
}

std::int64_t serializedBytes(const VariantModel &model)
{
    return std::int64_t(serializedModule(model).size());
}

std::int64_t zlibBytes(const std::string &bytes)
{
    // One stream over the whole file, at zlib's default level, as `gzip` would compress it.
    uLongf size = compressBound(uLong(bytes.size()));
    std::string out(size, '\0');
    if (compress2(reinterpret_cast<Bytef *>(out.data()), &size, reinterpret_cast<const Bytef *>(bytes.data()),
                  uLong(bytes.size()), Z_DEFAULT_COMPRESSION) != Z_OK)
        return 0;
    return std::int64_t(size);
}

namespace {

bool anyAbove(const OpArg &arg, std::int64_t limit)
{
    return std::any_of(arg.values.begin(), arg.values.end(), [&](std::int64_t v) { return v > limit; });
}

// Whether libtorch 1.13 runs a float convolution on its native (THNN) kernel rather than
// oneDNN: ConvParams::use_mkldnn in ATen/native/Convolution.cpp, for CPU tensors.
bool runsNative(const OpRecord &op, int threads)
{
    const bool full = op.name == "aten::_convolution" || op.name == "aten::convolution";
    if (!full && op.name != "aten::conv2d")
        return false;
    const std::size_t groupsAt = full ? 8 : 6;
    if (op.args.size() <= groupsAt || op.args[0].values.size() != 4 || op.args[1].values.size() != 4)
        return false;
    if (full && !op.args[6].values.empty() && op.args[6].values[0] != 0)
        return false; // transposed
    const auto &input = op.args[0].values;
    const auto &weight = op.args[1].values;
    const auto groups = op.args[groupsAt].values.empty() ? 1 : op.args[groupsAt].values[0];
    const bool strided = anyAbove(op.args[3], 1);
    const bool dilated = anyAbove(op.args[5], 1);
    const auto kh = weight[2];
    const auto kw = weight[3];
    const auto elements = input[0] * input[1] * input[2] * input[3];
    const bool first = strided || dilated || input[0] >= 16 || kw != 1 || kh != 1 || threads > 1;
    const bool second = groups > 1 || (kw > 3 && kh > 3) || input[0] > 1 || elements > 20480;
    return !(first && second);
}

} // namespace

VariantCost measureCost(VariantModel &model, const std::vector<c10::IValue> &adapted)
{
    VariantCost cost;
    const auto bytes = serializedModule(model);
    cost.modelBytes = std::int64_t(bytes.size());
    cost.compressedBytes = zlibBytes(bytes);
    const auto &held = model.saveable ? *model.saveable : model.module;
    cost.params = heldWeights(held);
    {
        ThreadCountScope scope(model.threads);
        const int threads = at::get_num_threads();
        double macs = 0;
        // A frozen variant's optimize_for_inference ops (MKLDNN) have no cost formulas; the
        // module it was made from runs the same convolutions and linears as aten ops.
        auto counted = held;
        for (const auto &op : recordForwardOps(counted, adapted)) {
            macs += opCost(op).macs;
            cost.nativeConvolutions += runsNative(op, threads) ? 1 : 0;
        }
        cost.macs = macs;
    }
    cost.layers = layerSparsity(model.module);
    if (!cost.layers.empty()) {
        std::int64_t weights = 0;
        std::int64_t zeros = 0;
        for (const auto &layer : cost.layers) {
            weights += layer.weights;
            zeros += layer.zeros;
        }
        cost.sparsity = weights > 0 ? double(zeros) / double(weights) : 0.0;
    }
    return cost;
}

} // namespace pyrometer::torch
