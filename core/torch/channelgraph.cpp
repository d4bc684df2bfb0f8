// Which tensors of a TorchScript module's inlined forward graph carry whose channels, and
// which layers must lose the same channels: a dependency graph of channel groups, as
// Torch-Pruning builds one over a traced graph. Includes libtorch.
#include "core/torch/channelgraph.h"

#include <torch/csrc/jit/ir/constants.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>

namespace pyrometer::torch {
namespace {

namespace jit = ::torch::jit;
using jit::Node;
using jit::Value;

// Along which dimension a tensor's channels run.
enum class Axis {
    Channels,  // dimension 1, of a rank 3 or more tensor (NCHW)
    Features,  // the last dimension (a Linear's output)
    Both,      // dimension 1 of a rank 2 tensor, which is also the last
    Flattened, // dimension 1 flattened with what followed it: each channel a block of elements
};

// Which channel groups a tensor's channel dimension holds, in order (a concatenation holds
// several).
struct Layout {
    std::vector<int> groups;
    Axis axis = Axis::Channels;
};

std::optional<std::vector<std::int64_t>> constantInts(const Value *value)
{
    const auto constant = jit::toIValue(value);
    if (constant && constant->isIntList())
        return constant->toIntVector();
    return std::nullopt;
}

bool isNone(const Value *value)
{
    return value->type()->kind() == c10::TypeKind::NoneType;
}

bool oneOf(const Node *node, std::initializer_list<const char *> kinds)
{
    const std::string kind = node->kind().toQualString();
    return std::any_of(kinds.begin(), kinds.end(), [&](const char *name) { return kind == name; });
}

// Ops whose first input's channels pass to their output unchanged, element by element or
// window by window.
bool keepsChannels(const Node *node)
{
    return oneOf(
        node,
        {"aten::relu",          "aten::relu_",      "aten::relu6",       "aten::relu6_",       "aten::hardtanh",
         "aten::hardtanh_",     "aten::leaky_relu", "aten::leaky_relu_", "aten::sigmoid",      "aten::sigmoid_",
         "aten::tanh",          "aten::tanh_",      "aten::gelu",        "aten::silu",         "aten::silu_",
         "aten::hardswish",     "aten::hardswish_", "aten::hardsigmoid", "aten::hardsigmoid_", "aten::elu",
         "aten::elu_",          "aten::mish",       "aten::dropout",     "aten::dropout_",     "aten::feature_dropout",
         "aten::alpha_dropout", "aten::contiguous", "aten::clone",       "aten::detach",       "aten::clamp",
         "aten::clamp_",        "aten::clamp_min",  "aten::clamp_min_"});
}

bool poolsWindows(const Node *node)
{
    return oneOf(node, {"aten::max_pool1d", "aten::max_pool2d", "aten::max_pool3d", "aten::avg_pool1d",
                        "aten::avg_pool2d", "aten::avg_pool3d", "aten::adaptive_avg_pool1d",
                        "aten::adaptive_avg_pool2d", "aten::adaptive_avg_pool3d", "aten::adaptive_max_pool2d",
                        "aten::upsample_nearest2d", "aten::upsample_bilinear2d"});
}

bool combinesElementwise(const Node *node)
{
    return oneOf(node, {"aten::add", "aten::add_", "aten::sub", "aten::sub_", "aten::mul", "aten::mul_", "aten::div",
                        "aten::div_"});
}

class ChannelGraph {
public:
    explicit ChannelGraph(const jit::Module &root) : m_root(root) {}

    ChannelGroups analyse(jit::Graph &graph) &&
    {
        m_self = graph.inputs().at(0);
        for (auto *node : graph.nodes())
            visit(node);
        for (const auto *output : graph.outputs())
            blockValue(output, "it is the model's output");
        return std::move(m_result);
    }

private:
    int find(int group) const { return m_result.find(group); }
    void block(int group, const std::string &why) { m_result.block(group, why); }

    int newGroup(std::int64_t channels, std::string producer)
    {
        m_result.groups.push_back(ChannelGroup{-1, channels, {std::move(producer)}, {}});
        return int(m_result.groups.size()) - 1;
    }

    void blockLayout(const Layout &layout, const std::string &why)
    {
        for (const auto group : layout.groups)
            block(group, why);
    }

    // A value whose channels something unknown reads: its groups stay whole. A list's elements
    // count as read too.
    void blockValue(const Value *value, const std::string &why)
    {
        if (const auto found = m_layouts.find(value); found != m_layouts.end())
            blockLayout(found->second, why);
        if (value->node()->kind() == c10::prim::ListConstruct || value->node()->kind() == c10::prim::TupleConstruct)
            for (const auto *element : value->node()->inputs())
                blockValue(element, why);
    }

    void unite(int a, int b, const std::string &where)
    {
        a = find(a);
        b = find(b);
        if (a == b)
            return;
        auto &left = m_result.groups[std::size_t(a)];
        auto &right = m_result.groups[std::size_t(b)];
        if (left.channels != right.channels) {
            block(a, "its output meets one of another width in " + where);
            block(b, "its output meets one of another width in " + where);
        }
        right.parent = a;
        left.producers.insert(left.producers.end(), right.producers.begin(), right.producers.end());
        if (left.blocked.empty())
            left.blocked = right.blocked;
    }

    const Layout *layoutOf(const Value *value) const
    {
        const auto found = m_layouts.find(value);
        return found == m_layouts.end() ? nullptr : &found->second;
    }

    // "layer1.0.conv1" for the value of prim::GetAttr chains from self; nothing otherwise.
    std::optional<std::string> pathOf(const Value *value) const
    {
        if (value == m_self)
            return std::string();
        const auto *node = value->node();
        if (node->kind() != c10::prim::GetAttr)
            return std::nullopt;
        auto parent = pathOf(node->input(0));
        if (!parent)
            return std::nullopt;
        const auto &name = node->s(c10::attr::name);
        return parent->empty() ? name : *parent + "." + name;
    }

    // The module whose attribute `name` the value is, checked.
    std::optional<std::string> ownerOf(const Value *value, const char *name) const
    {
        const auto path = pathOf(value);
        if (!path)
            return std::nullopt;
        const auto dot = path->rfind('.');
        const auto attribute = dot == std::string::npos ? *path : path->substr(dot + 1);
        if (attribute != name)
            return std::nullopt;
        return dot == std::string::npos ? std::string() : path->substr(0, dot);
    }

    // Whether a module's type is its own, so that editing its methods' graphs changes it alone.
    bool ownsItsType(const jit::Module &module) const
    {
        int users = 0;
        for (const auto &other : m_root.modules())
            users += other.type() == module.type() ? 1 : 0;
        return users == 1;
    }

    void addSlice(ChannelSlice slice) { m_result.slices.push_back(std::move(slice)); }

    std::string describe(const Node *node) const { return node->kind().toQualString(); }

    void unknown(const Node *node)
    {
        for (const auto *input : node->inputs())
            blockValue(input, "its output is read by " + describe(node));
    }

    void visit(Node *node)
    {
        if (!node->blocks().empty()) {
            // Control flow: whatever it reads stays whole, inside its blocks too.
            std::function<void(const jit::Block *)> walk = [&](const jit::Block *block) {
                for (const auto *inner : block->nodes()) {
                    for (const auto *input : inner->inputs())
                        blockValue(input, "its output is read inside " + describe(node));
                    for (const auto *nested : inner->blocks())
                        walk(nested);
                }
                for (const auto *output : block->outputs())
                    blockValue(output, "its output is read inside " + describe(node));
            };
            unknown(node);
            for (const auto *block : node->blocks())
                walk(block);
            return;
        }
        const auto kind = node->kind();
        if (kind == c10::prim::Constant || kind == c10::prim::GetAttr || kind == c10::prim::ListConstruct ||
            kind == c10::prim::TupleConstruct)
            return; // a list or tuple is judged by what reads it
        if (oneOf(node, {"aten::_convolution", "aten::convolution", "aten::conv1d", "aten::conv2d", "aten::conv3d"}))
            return convolution(node);
        if (oneOf(node, {"aten::linear"}))
            return linear(node);
        if (oneOf(node, {"aten::batch_norm"}))
            return batchNorm(node);
        if (keepsChannels(node) || poolsWindows(node))
            return passThrough(node, poolsWindows(node));
        if (combinesElementwise(node))
            return elementwise(node);
        if (oneOf(node, {"aten::flatten"}))
            return flatten(node);
        if (oneOf(node, {"aten::mean"}))
            return mean(node);
        if (oneOf(node, {"aten::cat"}))
            return concatenate(node);
        // x.size(0): the batch size, the same whatever the channels. x.size() (all of them, as
        // squeeze-and-excitation blocks read them): read at run time, so a view built from them
        // follows the pruned tensor.
        if (oneOf(node, {"aten::size"}) && (node->inputs().size() == 1 || constantInt(node->input(1)) == std::int64_t(0)))
            return;
        if (oneOf(node, {"aten::dim"}))
            return;
        unknown(node);
    }

    void convolution(Node *node)
    {
        const bool full = oneOf(node, {"aten::_convolution", "aten::convolution"});
        const auto module = ownerOf(node->input(1), "weight");
        const auto groups = constantInt(node->input(full ? 8 : 6));
        const auto transposed = full ? jit::toIValue(node->input(6)) : c10::optional<c10::IValue>(false);
        const bool biasOk = isNone(node->input(2)) || (module && ownerOf(node->input(2), "bias") == module);
        if (!module || !groups || !transposed || !transposed->isBool() || transposed->toBool() || !biasOk)
            return unknown(node);
        const auto weight = submodule(m_root, *module).attr("weight").toTensor();
        const auto *input = layoutOf(node->input(0));
        const auto out = weight.size(0);
        if (*groups == 1) {
            if (input && input->axis != Axis::Channels && input->axis != Axis::Both)
                blockLayout(*input, "its output reaches " + *module + " along another dimension");
            else if (input)
                addSlice({*module, input->groups, false, false, false});
            m_layouts[node->output()] = {{producedBy(*module, out)}, Axis::Channels};
            return;
        }
        const bool depthwise = *groups == out && weight.size(1) == 1;
        if (depthwise && input && input->axis == Axis::Channels && ownsItsType(submodule(m_root, *module))) {
            // Each channel convolved alone: its channels are its input's.
            addSlice({*module, input->groups, true, true, false});
            m_layouts[node->output()] = *input;
            return;
        }
        if (input)
            blockLayout(*input, "its output reaches " + *module + ", a grouped convolution");
    }

    int producedBy(const std::string &module, std::int64_t channels)
    {
        // A module called twice produces the same channels twice.
        if (const auto found = m_producerGroups.find(module); found != m_producerGroups.end())
            return found->second;
        return m_producerGroups[module] = newGroup(channels, module);
    }

    void linear(Node *node)
    {
        const auto module = ownerOf(node->input(1), "weight");
        const bool biasOk = isNone(node->input(2)) || (module && ownerOf(node->input(2), "bias") == module);
        if (!module || !biasOk)
            return unknown(node);
        const auto weight = submodule(m_root, *module).attr("weight").toTensor();
        if (const auto *input = layoutOf(node->input(0))) {
            if (input->axis == Axis::Channels)
                blockLayout(*input, "its output reaches " + *module + " along another dimension");
            else
                addSlice({*module, input->groups, false, false, input->axis == Axis::Flattened});
        }
        m_layouts[node->output()] = {{producedBy(*module, weight.size(0))}, Axis::Features};
    }

    void batchNorm(Node *node)
    {
        const auto *input = layoutOf(node->input(0));
        std::optional<std::string> module;
        for (std::size_t i = 1; i <= 4; ++i) {
            if (isNone(node->input(i)))
                continue;
            static const char *kParamNames[] = {"", "weight", "bias", "running_mean", "running_var"};
            const auto owner = ownerOf(node->input(i), kParamNames[i]);
            if (!owner || (module && owner != module))
                return unknown(node);
            module = owner;
        }
        if (!input)
            return;
        if (!module || (input->axis != Axis::Channels && input->axis != Axis::Both))
            return unknown(node);
        addSlice({*module, input->groups, true, false, false});
        m_layouts[node->output()] = *input;
    }

    void passThrough(Node *node, bool windows)
    {
        for (std::size_t i = 1; i < node->inputs().size(); ++i)
            if (layoutOf(node->input(i)))
                return unknown(node);
        const auto *input = layoutOf(node->input(0));
        if (!input)
            return;
        if (windows && input->axis != Axis::Channels)
            return unknown(node);
        m_layouts[node->output(0)] = *input;
        // adaptive_max_pool2d's indices (its second output) keep no layout: what reads them
        // reads no channels of ours.
    }

    void elementwise(Node *node)
    {
        const auto *a = layoutOf(node->input(0));
        const auto *b = node->inputs().size() > 1 ? layoutOf(node->input(1)) : nullptr;
        const bool otherIsTensor =
            node->inputs().size() > 1 && node->input(1)->type()->kind() == c10::TypeKind::TensorType;
        if (a && b) {
            if (a->groups.size() != b->groups.size() || a->axis != b->axis)
                return unknown(node);
            for (std::size_t i = 0; i < a->groups.size(); ++i)
                unite(a->groups[i], b->groups[i], describe(node));
            m_layouts[node->output()] = *a;
        } else if (a && !otherIsTensor) {
            m_layouts[node->output()] = *a;
        } else if (a || b) {
            // Broadcast against a tensor whose channels are not known here.
            unknown(node);
        }
    }

    void flatten(Node *node)
    {
        const auto *input = layoutOf(node->input(0));
        if (!input)
            return;
        const auto start = constantInt(node->input(1));
        const auto end = constantInt(node->input(2));
        if (start != 1 || end != -1 || (input->axis != Axis::Channels && input->axis != Axis::Both))
            return unknown(node);
        m_layouts[node->output()] = {input->groups, input->axis == Axis::Both ? Axis::Both : Axis::Flattened};
    }

    void mean(Node *node)
    {
        const auto *input = layoutOf(node->input(0));
        if (!input)
            return;
        auto dims = node->inputs().size() > 2 ? constantInts(node->input(1)) : std::nullopt;
        const auto keep = node->inputs().size() > 2 ? jit::toIValue(node->input(2)) : c10::nullopt;
        if (!dims || !keep || !keep->isBool() || input->axis != Axis::Channels)
            return unknown(node);
        std::sort(dims->begin(), dims->end());
        const bool spatial = *dims == std::vector<std::int64_t>{2, 3} || *dims == std::vector<std::int64_t>{-2, -1};
        if (!spatial)
            return unknown(node);
        m_layouts[node->output()] = {input->groups, keep->toBool() ? Axis::Channels : Axis::Both};
    }

    void concatenate(Node *node)
    {
        const auto *list = node->input(0)->node();
        const auto dim = constantInt(node->input(1));
        if (list->kind() != c10::prim::ListConstruct || dim != 1)
            return unknown(node);
        Layout joined;
        for (const auto *element : list->inputs()) {
            const auto *layout = layoutOf(element);
            if (!layout || layout->axis != Axis::Channels)
                return unknown(node); // a part of unknown width leaves the others' positions unknown
            joined.groups.insert(joined.groups.end(), layout->groups.begin(), layout->groups.end());
        }
        m_layouts[node->output()] = joined;
    }

    const jit::Module &m_root;
    const Value *m_self = nullptr;
    ChannelGroups m_result;
    std::unordered_map<const Value *, Layout> m_layouts;
    std::map<std::string, int> m_producerGroups;
};

// A module reached twice (called on two tensors) must hold the same channels both times; where
// it does not, every group it holds stays whole.
void blockConflictingSlices(ChannelGroups &analysis)
{
    std::map<std::pair<std::string, bool>, std::vector<int>> seen;
    const auto roots = [&](const std::vector<int> &groups) {
        std::vector<int> resolved;
        for (const auto group : groups)
            resolved.push_back(analysis.find(group));
        return resolved;
    };
    for (const auto &slice : analysis.slices) {
        const auto key = std::make_pair(slice.module, slice.perChannelParams);
        const auto resolved = roots(slice.groups);
        const auto [found, inserted] = seen.emplace(key, resolved);
        if (inserted || found->second == resolved)
            continue;
        for (const auto group : found->second)
            analysis.block(group, slice.module + " is called on tensors of other channels");
        for (const auto group : resolved)
            analysis.block(group, slice.module + " is called on tensors of other channels");
    }
}

} // namespace

int ChannelGroups::find(int group) const
{
    while (groups[std::size_t(group)].parent >= 0)
        group = groups[std::size_t(group)].parent;
    return group;
}

void ChannelGroups::block(int group, const std::string &why)
{
    auto &root = groups[std::size_t(find(group))];
    if (root.blocked.empty())
        root.blocked = why;
}

ChannelGroups analyseChannels(const jit::Module &root, jit::Graph &graph)
{
    auto groups = ChannelGraph(root).analyse(graph);
    blockConflictingSlices(groups);
    return groups;
}

jit::Module submodule(const jit::Module &root, const std::string &path)
{
    jit::Module module = root;
    std::size_t start = 0;
    while (start < path.size()) {
        const auto dot = path.find('.', start);
        const auto name = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        module = module.attr(name).toModule();
        start = dot == std::string::npos ? path.size() : dot + 1;
    }
    return module;
}

std::optional<std::int64_t> constantInt(const jit::Value *value)
{
    const auto constant = jit::toIValue(value);
    if (constant && constant->isInt())
        return constant->toInt();
    return std::nullopt;
}

std::optional<std::size_t> convolutionGroupsInput(const jit::Node *node)
{
    const std::string kind = node->kind().toQualString();
    if (kind == "aten::_convolution" || kind == "aten::convolution")
        return 8;
    if (kind == "aten::conv1d" || kind == "aten::conv2d" || kind == "aten::conv3d")
        return 6;
    return std::nullopt;
}

} // namespace pyrometer::torch
