#include "app/cli/mcp/tools.h"

#include <algorithm>
#include <cmath>

namespace pyrometer::cli::mcp {
namespace {

using Type = Argument::Type;

Argument handle(const std::string &name, std::vector<DocKind> kinds, const std::string &description,
                const std::string &flag = {}, bool required = true)
{
    return {name, flag, Type::Handle, description, {}, LLONG_MIN, required, std::move(kinds)};
}

Argument traceHandle()
{
    return handle("handle", {DocKind::Trace}, "The trace's handle, from open_trace");
}

Argument range()
{
    return {"range", "--range", Type::String,
            "Only events that start in START_US:END_US, microseconds from the trace's start (as tables print times)"};
}

Argument top(long long minimum = 1, const std::string &what = "Only the first N rows")
{
    return {"top", "--top", Type::Integer, what, {}, minimum};
}

Argument choice(const std::string &name, const std::string &flag, std::vector<std::string> choices,
                const std::string &description)
{
    return {name, flag, Type::String, description, std::move(choices)};
}

Argument integer(const std::string &name, const std::string &flag, long long minimum, const std::string &description)
{
    return {name, flag, Type::Integer, description, {}, minimum};
}

Argument number(const std::string &name, const std::string &flag, const std::string &description)
{
    return {name, flag, Type::Number, description};
}

Argument flag(const std::string &name, const std::string &option, const std::string &description)
{
    return {name, option, Type::Boolean, description};
}

Argument text(const std::string &name, const std::string &option, const std::string &description, bool required = false)
{
    return {name, option, Type::String, description, {}, LLONG_MIN, required};
}

Argument modelHandle()
{
    return handle("handle", {DocKind::Model}, "The model's handle, from open_model");
}

Argument input()
{
    return text("input", "--input",
                "Input shapes, 1x3x224x224 or 1x3x224x224,1x10:int64 (default: as the model records)");
}

Argument timeout()
{
    return number("timeout", "--timeout", "Stop the model's run after this many seconds");
}

Tool command(std::string name, std::string title, std::string description, std::string subcommand,
             std::vector<Argument> arguments)
{
    return {std::move(name),       std::move(title),      std::move(description),
            Tool::Action::Command, std::move(subcommand), std::move(arguments)};
}

std::vector<Tool> makeTools()
{
    using A = Tool::Action;
    std::vector<Tool> all;
    all.push_back({"open_trace",
                   "Open a trace",
                   "Load a torch.profiler trace (.json, .json.gz) or a TensorBoard log folder (its newest trace) and "
                   "keep it loaded; returns a handle for the other tools. Reports progress; cancellable.",
                   A::Open,
                   "trace",
                   {text("path", "", "The trace file or the TensorBoard log folder", true),
                    flag("partial", "", "Load the valid prefix of a truncated file (with a warning)")}});
    all.push_back({"open_job",
                   "Open a distributed job",
                   "Load the rank traces and rank summaries of one distributed job (folders, files, merged jobs); "
                   "returns a handle for ranks and report.",
                   A::Open,
                   "job",
                   {{"paths", "", Type::StringList, "The job's folders and files", {}, LLONG_MIN, true},
                    integer("threads", "", 0, "Ranks loaded at once; 0: one per core")}});
    all.push_back({"open_snapshot",
                   "Open a memory snapshot",
                   "Load a CUDA allocator snapshot (.pickle, .pickle.gz from torch.cuda.memory._dump_snapshot); "
                   "returns a handle for snapshot and report.",
                   A::Open,
                   "snapshot",
                   {text("path", "", "The snapshot file", true)}});
    all.push_back({"open_model",
                   "Name a model",
                   "Name a model for profile, flops, sweep, compare and roofline: TorchScript (.pt), torch.export "
                   "(.pt2) or model.py:factory. Nothing runs until a tool asks; it runs in a worker process, as "
                   "from pyrometer-cli.",
                   A::Open,
                   "model",
                   {text("path", "", "The model: FILE.pt, FILE.pt2 or FILE.py:factory", true),
                    text("python", "", "Run it in this Python interpreter's torch (the Python engine)"),
                    text("device", "", "cpu, cuda or cuda:N (the Python engine only)")},
                   true});
    all.push_back({"documents",
                   "Open documents",
                   "The documents this server holds: handle, kind, path, memory, and the memory budget.",
                   A::Documents,
                   "",
                   {}});
    all.push_back({"close",
                   "Close a document",
                   "Close a document and free its memory.",
                   A::Close,
                   "",
                   {handle("handle", {DocKind::Trace, DocKind::Job, DocKind::Snapshot, DocKind::Model},
                           "The document's handle")}});
    all.push_back({"summary",
                   "Overview",
                   "The Overview's figures of a trace: its span and events, the steps and GPU utilization, the top "
                   "operators and kernels, memory peaks and the advice.",
                   A::Summary,
                   "",
                   {traceHandle(), range()}});
    all.push_back(command("ops", "Operators",
                          "Per-operator times, as torch's key_averages(): self and total, "
                          "device time, memory.",
                          "ops",
                          {traceHandle(), choice("by", "--by", {"name", "shape", "module", "stack"}, "Group rows"),
                           choice("sort", "--sort", {"self", "total", "calls"}, "Row order (descending)"), top(),
                           integer("stack_frames", "--stack-frames", 1, "Python frames kept by by=stack"), range()}));
    all.push_back(command("kernels", "Kernels", "Per-kernel device time, by name or type, per stream.", "kernels",
                          {traceHandle(), choice("by", "--by", {"name", "type"}, "Group rows"),
                           flag("by_stream", "--by-stream", "One row per kernel and stream"), top(), range()}));
    all.push_back(command(
        "launches", "Launches",
        "Kernel launches: launch-to-start latency, queueing, per kernel or stream, CUDA graphs.", "launches",
        {traceHandle(), choice("by", "--by", {"launch", "kernel", "stream", "graph"}, "Rows"), top(), range()}));
    all.push_back(command("idle", "Idle", "Device idle time by cause, per stream.", "idle",
                          {traceHandle(), flag("gaps", "--gaps", "Every idle gap, with its cause"), range()}));
    all.push_back(
        command("critical_path", "Critical path",
                "The critical path of one step: the chain of CPU work, launches, syncs and device work that "
                "set its length, with what-ifs.",
                "critical-path",
                {traceHandle(),
                 integer("step", "--step", 0, "Which ProfilerStep, from 0 (default: the longest)"),
                 {"kind", "--kind", Type::StringList, "Rows of these kinds only: cpu, launch, sync, device, wait"},
                 number("min_us", "--min-us", "Rows of at least this many microseconds"),
                 choice("sort", "--sort", {"time", "duration", "wait"}, "Row order"),
                 top(0, "The first N rows only, 0 for all"),
                 integer("what_ifs", "--what-ifs", 0, "What-ifs for the N longest nodes of the path")}));
    all.push_back(command("sequences", "Kernel sequences", "Repeated kernel sequences: fusion candidates.", "sequences",
                          {traceHandle(), top(1, "The N most frequent sequences"),
                           integer("min_length", "--min-length", 2, "Kernels in a sequence, at least"),
                           integer("max_length", "--max-length", 2, "Kernels in a sequence, at most"),
                           integer("min_count", "--min-count", 2, "Repeats of a sequence, at least")}));
    all.push_back(
        command("steps", "Steps", "Per-step time breakdown and GPU utilization.", "steps", {traceHandle(), range()}));
    all.push_back(command("memory", "Memory", "Peak allocated memory per device, and the ops that allocated it.",
                          "memory",
                          {traceHandle(), flag("curve", "--curve", "The allocated-memory curve too"),
                           top(0, "Allocating ops listed per device"), range()}));
    all.push_back(command("roofline", "Roofline",
                          "Each op against its device's roof: achieved TFLOP/s and GB/s, compute or memory bound. "
                          "A trace's, or a model's (profiled in its worker).",
                          "roofline",
                          {handle("handle", {DocKind::Trace, DocKind::Model}, "A trace's or a model's handle"),
                           text("input", "--input", "A model's input shapes, B for the batch: Bx3x224x224"),
                           text("batches", "--batches", "A model's batch sizes, 1,8,32"),
                           flag("by_shape", "--by-shape", "One row per op and input dims"),
                           flag("by_kernel", "--by-kernel", "One row per kernel"),
                           number("peak", "--peak", "Peak TFLOP/s of a device the table lacks (with bandwidth)"),
                           number("bandwidth", "--bandwidth", "Memory bandwidth in GB/s (with peak)"), top()}));
    all.push_back(
        command("advise", "Advice", "Findings with their evidence and what to change.", "advise", {traceHandle()}));
    all.push_back(command("diff", "Diff of two traces", "Per-op and per-kernel deltas from base to other.", "diff",
                          {handle("base", {DocKind::Trace}, "The baseline trace's handle"),
                           handle("other", {DocKind::Trace}, "The handle of the trace compared with it"),
                           top(1, "Only the first N rows (largest deltas)")}));
    all.push_back(
        command("snapshot", "Memory snapshot",
                "What was live at an instant (the peak, an OOM, a time), grouped by stack, context or "
                "annotation; what grew against another snapshot; the ops of a trace that made it.",
                "snapshot",
                {handle("handle", {DocKind::Snapshot}, "The snapshot's handle"),
                 text("at", "--at", "peak (default), oom, oom:N, start, end, #EVENT or a time (250ms)"),
                 choice("by", "--by", {"stack", "context", "annotation"}, "Group live memory"),
                 top(0, "Groups listed (0: all)"),
                 handle("diff", {DocKind::Snapshot}, "A second snapshot's handle: what grew to it", "--diff", false),
                 handle("trace", {DocKind::Trace}, "A trace of the same run (profile_memory=True)", "--trace", false),
                 text("offset", "--offset", "Seconds from the snapshot's clock to the trace's (default: found)"),
                 integer("device", "--device", 0, "The device (default: the one with most events)")}));
    all.push_back(command("ranks", "Ranks of a job",
                          "A distributed job's ranks side by side, the straggler, the collectives.", "ranks",
                          {handle("handle", {DocKind::Job}, "The job's handle, from open_job")}));
    all.push_back(command("profile", "Profile a model",
                          "Cold and warm latency, per-layer times with parameters and FLOPs, memory.", "profile",
                          {modelHandle(), input(), integer("warmup", "--warmup", 0, "Untimed runs after the cold one"),
                           integer("iters", "--iters", 1, "Timed runs"),
                           integer("profile_iters", "--profile-iters", 1, "Runs recorded by the per-layer profiler"),
                           integer("threads", "--threads", 0, "Intra-op threads (0: the default)"),
                           choice("mode", "--mode", {"infer", "train"}, "Inference, or a training step"), timeout()}));
    all.push_back(command("flops", "FLOPs of a model", "Parameters and FLOPs per layer.", "flops",
                          {modelHandle(), input(), timeout()}));
    all.push_back(
        command("sweep", "Batch sweep", "Latency, throughput and memory per batch size, and the knee.", "sweep",
                {modelHandle(), input(), text("batches", "--batches", "Batch sizes, 1,2,4,8"),
                 text("memory_budget", "--memory-budget", "Largest peak memory that fits, 4GiB"),
                 integer("max_batch", "--max-batch", 1, "Where the doubling range ends"),
                 number("knee_threshold", "--knee-threshold", "Knee: doubling gains less than PCT %"), timeout()}));
    all.push_back(command("compare", "Compare variants",
                          "The model against its optimized variants (int8, frozen, channels_last, bf16, ...).",
                          "compare",
                          {modelHandle(), input(), text("variants", "--variants", "Comma-separated variants"),
                           integer("warmup", "--warmup", 0, "Untimed runs per measurement"),
                           integer("iters", "--iters", 1, "Timed runs per measurement"), timeout()}));
    all.push_back({"report",
                   "Write a report",
                   "Write a report of a trace, job or snapshot (HTML or Markdown) into the folder the server was "
                   "started with (--write-dir); the same reports are resources too.",
                   A::Report,
                   "",
                   {handle("handle", {DocKind::Trace, DocKind::Job, DocKind::Snapshot}, "The document's handle"),
                    text("name", "", "The file's name in the folder: NAME.html or NAME.md", true)},
                   false});
    return all;
}

const char *typeName(Type type)
{
    switch (type) {
    case Type::Integer: return "integer";
    case Type::Number: return "number";
    case Type::Boolean: return "boolean";
    case Type::StringList: return "array";
    case Type::String:
    case Type::Handle: break;
    }
    return "string";
}

bool fits(Type type, const nlohmann::json &value)
{
    switch (type) {
    case Type::Integer:
        return value.is_number_integer() ||
               (value.is_number_float() && std::isfinite(value.get<double>()) &&
                value.get<double>() == std::floor(value.get<double>()) && std::abs(value.get<double>()) < 9e15);
    case Type::Number: return value.is_number() && std::isfinite(value.get<double>());
    case Type::Boolean: return value.is_boolean();
    case Type::StringList:
        return value.is_array() && std::all_of(value.begin(), value.end(), [](const auto &v) { return v.is_string(); });
    case Type::String:
    case Type::Handle: break;
    }
    return value.is_string();
}

std::string numberText(const nlohmann::json &value)
{
    if (value.is_number_integer())
        return std::to_string(value.get<long long>());
    const double v = value.get<double>();
    if (v == std::floor(v) && std::abs(v) < 9e15)
        return std::to_string(static_cast<long long>(v));
    return value.dump();
}

} // namespace

const char *docKindName(DocKind kind)
{
    switch (kind) {
    case DocKind::Job: return "job";
    case DocKind::Snapshot: return "snapshot";
    case DocKind::Model: return "model";
    case DocKind::Trace: break;
    }
    return "trace";
}

const std::vector<Tool> &tools()
{
    static const std::vector<Tool> all = makeTools();
    return all;
}

const Tool *findTool(const std::string &name)
{
    for (const auto &tool : tools())
        if (tool.name == name)
            return &tool;
    return nullptr;
}

nlohmann::json toolJson(const Tool &tool)
{
    nlohmann::json properties = nlohmann::json::object();
    nlohmann::json required = nlohmann::json::array();
    for (const auto &argument : tool.arguments) {
        nlohmann::json property{{"type", typeName(argument.type)}, {"description", argument.description}};
        if (argument.type == Type::StringList)
            property["items"] = {{"type", "string"}};
        if (!argument.choices.empty())
            property["enum"] = argument.choices;
        if (argument.minimum != LLONG_MIN)
            property["minimum"] = argument.minimum;
        properties[argument.name] = std::move(property);
        if (argument.required)
            required.push_back(argument.name);
    }
    nlohmann::json schema{{"type", "object"}, {"properties", properties}, {"additionalProperties", false}};
    if (!required.empty())
        schema["required"] = required;
    return {{"name", tool.name},
            {"title", tool.title},
            {"description", tool.description},
            {"inputSchema", schema},
            {"annotations", {{"title", tool.title}, {"readOnlyHint", tool.readOnly}, {"openWorldHint", false}}}};
}

std::optional<std::string> checkArguments(const Tool &tool, const nlohmann::json &arguments)
{
    if (!arguments.is_object())
        return std::string("the arguments must be an object");
    for (const auto &item : arguments.items()) {
        const std::string &name = item.key();
        const auto &value = item.value();
        const auto it = std::find_if(tool.arguments.begin(), tool.arguments.end(),
                                     [&](const Argument &a) { return a.name == name; });
        if (it == tool.arguments.end())
            return tool.name + " takes no argument \"" + name + "\"";
        if (value.is_null() && !it->required)
            continue;
        if (!fits(it->type, value))
            return "\"" + name + "\" must be " + (it->type == Type::Integer ? "an " : "a ") + typeName(it->type) +
                   (it->type == Type::StringList ? " of strings" : "");
        if (!it->choices.empty() &&
            std::find(it->choices.begin(), it->choices.end(), value.get<std::string>()) == it->choices.end()) {
            std::string list;
            for (const auto &c : it->choices)
                list += (list.empty() ? "" : ", ") + c;
            return "\"" + name + "\" must be one of " + list;
        }
        if (it->type == Type::Integer && it->minimum != LLONG_MIN && value.get<double>() < double(it->minimum))
            return "\"" + name + "\" must be at least " + std::to_string(it->minimum);
        if (it->type == Type::String || it->type == Type::Handle) {
            const auto &s = value.get_ref<const std::string &>();
            if (s.find('\0') != std::string::npos)
                return "\"" + name + "\" holds a NUL character";
        }
    }
    for (const auto &argument : tool.arguments)
        if (argument.required && (!arguments.contains(argument.name) || arguments[argument.name].is_null()))
            return tool.name + " needs \"" + argument.name + "\"";
    return std::nullopt;
}

std::vector<std::string> commandLine(const Tool &tool, const nlohmann::json &arguments,
                                     const std::function<std::string(const std::string &handle)> &pathOf)
{
    std::vector<std::string> line;
    for (const auto &argument : tool.arguments)
        if (argument.type == Type::Handle && argument.flag.empty() && arguments.contains(argument.name))
            line.push_back(pathOf(arguments[argument.name].get<std::string>()));
    for (const auto &argument : tool.arguments) {
        if (argument.flag.empty() || !arguments.contains(argument.name) || arguments[argument.name].is_null())
            continue;
        const auto &value = arguments[argument.name];
        switch (argument.type) {
        case Type::Boolean:
            if (value.get<bool>())
                line.push_back(argument.flag);
            break;
        case Type::Integer:
        case Type::Number: line.push_back(argument.flag + "=" + numberText(value)); break;
        case Type::StringList: {
            std::string joined;
            for (const auto &v : value)
                joined += (joined.empty() ? "" : ",") + v.get<std::string>();
            line.push_back(argument.flag + "=" + joined);
            break;
        }
        case Type::Handle: line.push_back(argument.flag + "=" + pathOf(value.get<std::string>())); break;
        case Type::String: line.push_back(argument.flag + "=" + value.get<std::string>()); break;
        }
    }
    return line;
}

} // namespace pyrometer::cli::mcp
