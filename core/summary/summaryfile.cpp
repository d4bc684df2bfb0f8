#include "core/summary/summaryfile.h"

#include "core/analysis/job.h"
#include "core/util/atomicfile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <tuple>

namespace pyrometer::summary {

namespace fs = std::filesystem;
using analysis::CollectiveCall;
using analysis::EventKind;
using analysis::KernelRow;
using analysis::MemoryPeak;
using analysis::OpRow;
using analysis::RankFigures;
using analysis::RankStep;
using analysis::RankSummary;
using Json = nlohmann::ordered_json;

namespace {

constexpr std::string_view kRankKind = "pyrometer-rank-summary";
constexpr std::string_view kJobKind = "pyrometer-job-summary";

// Kernel rows name their kind as kindName spells it.
EventKind kindFromName(const std::string &name)
{
    for (const auto kind : {EventKind::Kernel, EventKind::Memcpy, EventKind::Memset})
        if (analysis::kindName(kind) == name)
            return kind;
    return EventKind::Other;
}

// Steps and collectives are many: rows of arrays, not objects, keep a summary in kilobytes.
Json figuresJson(const RankFigures &f)
{
    Json steps = Json::array();
    for (const auto &s : f.steps)
        steps.push_back(
            {s.name, s.startNs, s.durationNs, s.computeNs, s.communicationNs, s.gpuStartNs, s.gpuEndNs, s.exposedCommunicationNs});
    Json names = Json::array();
    Json groups = Json::array();
    Json calls = Json::array();
    const auto indexOf = [](Json &list, Json value) {
        auto at = std::find(list.begin(), list.end(), value);
        if (at == list.end()) {
            list.push_back(std::move(value));
            at = list.end() - 1;
        }
        return at - list.begin();
    };
    for (const auto &c : f.collectives) {
        const auto name = indexOf(names, c.name);
        // Process groups as [name, description, ranks]; -1 for a call without one.
        const auto group =
            c.hasGroup() || !c.groupDesc.empty() ? indexOf(groups, {c.group, c.groupDesc, c.groupRanks}) : -1;
        calls.push_back({name, c.bytes, c.groupSize, c.startNs, c.endNs, c.onDevice, group, c.sequence});
    }
    return {{"rank", f.rank},
            {"world_size", f.worldSize},
            {"backend", f.backend},
            {"step_time_us", f.stepTimeUs},
            {"window_ns", {f.windowStartNs, f.windowEndNs}},
            {"compute_ns", f.computeNs},
            {"communication_ns", f.communicationNs},
            {"memory_ns", f.memoryNs},
            {"idle_ns", f.idleNs},
            {"overlap_ns", f.overlapNs},
            {"overlap_pct", f.overlapPct},
            {"compute_only_ns", f.computeOnlyNs},
            {"hidden_communication_ns", f.hiddenCommunicationNs},
            {"exposed_communication_ns", f.exposedCommunicationNs},
            {"memory_only_ns", f.memoryOnlyNs},
            {"cpu_only", f.cpuOnly},
            {"steps_columns",
             {"name", "start_ns", "duration_ns", "compute_ns", "communication_ns", "gpu_start_ns", "gpu_end_ns",
              "exposed_communication_ns"}},
            {"steps", std::move(steps)},
            {"collective_names", std::move(names)},
            {"collective_groups_columns", {"name", "description", "ranks"}},
            {"collective_groups", std::move(groups)},
            {"collectives_columns",
             {"name", "bytes", "group_size", "start_ns", "end_ns", "on_device", "group", "sequence"}},
            {"collectives", std::move(calls)}};
}

Json opJson(const OpRow &r)
{
    return {{"name", r.name},
            {"calls", r.calls},
            {"total_ns", r.totalNs},
            {"self_ns", r.selfNs},
            {"min_ns", r.minNs},
            {"max_ns", r.maxNs},
            {"device_self_ns", r.deviceSelfNs},
            {"device_total_ns", r.deviceTotalNs},
            {"cpu_mem_self_bytes", r.cpuMemSelfBytes},
            {"cpu_mem_total_bytes", r.cpuMemTotalBytes},
            {"device_mem_self_bytes", r.deviceMemSelfBytes},
            {"device_mem_total_bytes", r.deviceMemTotalBytes},
            {"self_pct", r.selfPercent},
            {"total_pct", r.totalPercent}};
}

Json kernelJson(const KernelRow &r)
{
    return {{"kind", analysis::kindName(r.kind)},
            {"name", r.name},
            {"count", r.count},
            {"total_ns", r.totalNs},
            {"min_ns", r.minNs},
            {"max_ns", r.maxNs},
            {"pct", r.percent},
            {"launch_op", r.launchOp},
            {"region", r.region}};
}

Json rankJson(const RankSummary &s)
{
    Json ops = Json::array();
    for (const auto &r : s.topOps)
        ops.push_back(opJson(r));
    Json kernels = Json::array();
    for (const auto &r : s.topKernels)
        kernels.push_back(kernelJson(r));
    Json peaks = Json::array();
    for (const auto &p : s.memoryPeaks)
        peaks.push_back({{"device", p.device}, {"peak_bytes", p.peakBytes}, {"peak_time_ns", p.peakTimeNs}});
    return {{"trace", {{"file", s.figures.file}, {"bytes", s.traceBytes}, {"crc32", s.traceCrc32}}},
            {"figures", figuresJson(s.figures)},
            {"top_ops", std::move(ops)},
            {"op_self_sum_ns", s.opSelfSumNs},
            {"top_kernels", std::move(kernels)},
            {"kernel_total_ns", s.kernelTotalNs},
            {"memory_peaks", std::move(peaks)}};
}

// Reading: nlohmann's exceptions (a missing key, a wrong type) become one Error naming the file.

// nlohmann's get<>() casts a float to an integer type whatever its value, which is undefined
// beyond the type's range: a float where an integer is read is a damaged summary too.
struct NotAnInteger : std::runtime_error {
    using std::runtime_error::runtime_error;
};

template <typename T> T integer(const nlohmann::json &value)
{
    if (value.is_number_float())
        throw NotAnInteger(value.dump() + " where an integer belongs");
    return value.get<T>();
}

RankFigures figuresFrom(const nlohmann::json &j)
{
    RankFigures f;
    f.rank = integer<int>(j.at("rank"));
    f.worldSize = integer<int>(j.at("world_size"));
    f.backend = j.at("backend").get<std::string>();
    f.stepTimeUs = j.at("step_time_us").get<double>();
    f.windowStartNs = integer<std::int64_t>(j.at("window_ns").at(0));
    f.windowEndNs = integer<std::int64_t>(j.at("window_ns").at(1));
    f.computeNs = integer<std::int64_t>(j.at("compute_ns"));
    f.communicationNs = integer<std::int64_t>(j.at("communication_ns"));
    f.memoryNs = integer<std::int64_t>(j.at("memory_ns"));
    f.idleNs = integer<std::int64_t>(j.at("idle_ns"));
    f.overlapNs = integer<std::int64_t>(j.at("overlap_ns"));
    f.overlapPct = j.at("overlap_pct").get<double>();
    f.computeOnlyNs = integer<std::int64_t>(j.at("compute_only_ns"));
    f.hiddenCommunicationNs = integer<std::int64_t>(j.at("hidden_communication_ns"));
    f.exposedCommunicationNs = integer<std::int64_t>(j.at("exposed_communication_ns"));
    f.memoryOnlyNs = integer<std::int64_t>(j.at("memory_only_ns"));
    f.cpuOnly = j.at("cpu_only").get<bool>();
    for (const auto &s : j.at("steps")) {
        f.steps.push_back({s.at(0).get<std::string>(), integer<std::int64_t>(s.at(1)), integer<std::int64_t>(s.at(2)),
                           integer<std::int64_t>(s.at(3)), integer<std::int64_t>(s.at(4))});
        if (s.size() >= 7) { // the step's GPU span, written since steps are split on the GPU's clock
            f.steps.back().gpuStartNs = integer<std::int64_t>(s.at(5));
            f.steps.back().gpuEndNs = integer<std::int64_t>(s.at(6));
        }
        if (s.size() >= 8) // written since steps keep their exposed communication
            f.steps.back().exposedCommunicationNs = integer<std::int64_t>(s.at(7));
    }
    const auto &names = j.at("collective_names");
    // Summaries written before process groups have six columns and no groups.
    const auto groups = j.value("collective_groups", nlohmann::json::array());
    for (const auto &c : j.at("collectives")) {
        CollectiveCall call{names.at(integer<std::size_t>(c.at(0))).get<std::string>(),
                            integer<std::int64_t>(c.at(1)),
                            integer<int>(c.at(2)),
                            integer<std::int64_t>(c.at(3)),
                            integer<std::int64_t>(c.at(4)),
                            c.at(5).get<bool>()};
        if (c.size() > 7) {
            if (const auto group = integer<int>(c.at(6)); group >= 0) {
                const auto &g = groups.at(static_cast<std::size_t>(group));
                call.group = g.at(0).get<std::string>();
                call.groupDesc = g.at(1).get<std::string>();
                call.groupRanks = g.at(2).get<std::string>();
            }
            call.sequence = integer<std::int64_t>(c.at(7));
        }
        f.collectives.push_back(std::move(call));
    }
    return f;
}

RankSummary rankFrom(const nlohmann::json &j)
{
    RankSummary s;
    s.figures = figuresFrom(j.at("figures"));
    const auto &trace = j.at("trace");
    s.figures.file = trace.at("file").get<std::string>();
    s.traceBytes = integer<std::uint64_t>(trace.at("bytes"));
    s.traceCrc32 = integer<std::uint32_t>(trace.at("crc32"));
    for (const auto &r : j.at("top_ops")) {
        OpRow row;
        row.name = r.at("name").get<std::string>();
        row.calls = integer<std::uint64_t>(r.at("calls"));
        row.totalNs = integer<std::int64_t>(r.at("total_ns"));
        row.selfNs = integer<std::int64_t>(r.at("self_ns"));
        row.minNs = integer<std::int64_t>(r.at("min_ns"));
        row.maxNs = integer<std::int64_t>(r.at("max_ns"));
        row.deviceSelfNs = integer<std::int64_t>(r.at("device_self_ns"));
        row.deviceTotalNs = integer<std::int64_t>(r.at("device_total_ns"));
        row.cpuMemSelfBytes = integer<std::int64_t>(r.at("cpu_mem_self_bytes"));
        row.cpuMemTotalBytes = integer<std::int64_t>(r.at("cpu_mem_total_bytes"));
        row.deviceMemSelfBytes = integer<std::int64_t>(r.at("device_mem_self_bytes"));
        row.deviceMemTotalBytes = integer<std::int64_t>(r.at("device_mem_total_bytes"));
        row.selfPercent = r.at("self_pct").get<double>();
        row.totalPercent = r.at("total_pct").get<double>();
        s.topOps.push_back(std::move(row));
    }
    s.opSelfSumNs = integer<std::int64_t>(j.at("op_self_sum_ns"));
    for (const auto &r : j.at("top_kernels")) {
        KernelRow row;
        row.kind = kindFromName(r.at("kind").get<std::string>());
        row.name = r.at("name").get<std::string>();
        row.count = integer<std::uint64_t>(r.at("count"));
        row.totalNs = integer<std::int64_t>(r.at("total_ns"));
        row.minNs = integer<std::int64_t>(r.at("min_ns"));
        row.maxNs = integer<std::int64_t>(r.at("max_ns"));
        row.percent = r.at("pct").get<double>();
        row.launchOp = r.at("launch_op").get<std::string>();
        row.region = r.value("region", std::string());
        s.topKernels.push_back(std::move(row));
    }
    s.kernelTotalNs = integer<std::int64_t>(j.at("kernel_total_ns"));
    for (const auto &p : j.at("memory_peaks"))
        s.memoryPeaks.push_back({p.at("device").get<std::string>(), integer<std::int64_t>(p.at("peak_bytes")),
                                 integer<std::int64_t>(p.at("peak_time_ns"))});
    return s;
}

std::string header(std::string_view kind)
{
    // kind first: isSummaryFile recognises a summary by its first bytes.
    return Json{{"kind", kind}, {"format", kFormat}}.dump();
}

} // namespace

JobSummary merge(std::vector<JobSummary> parts)
{
    JobSummary merged;
    for (auto &part : parts)
        for (auto &rank : part.ranks)
            merged.ranks.push_back(std::move(rank));
    auto &ranks = merged.ranks;
    // A total order over whole summaries: every grouping of the same parts sorts alike.
    const auto key = [](const RankSummary &s) {
        return std::tie(s.figures.rank, s.figures.file, s.traceCrc32, s.traceBytes, s.figures.windowStartNs);
    };
    std::stable_sort(ranks.begin(), ranks.end(),
                     [&](const RankSummary &a, const RankSummary &b) { return key(a) < key(b); });
    // Exact duplicates sort next to each other unless equal keys interleave; compare every pair
    // of an equal-key run so that the result does not depend on the order parts came in.
    std::vector<RankSummary> unique;
    for (auto &rank : ranks) {
        bool seen = false;
        for (auto it = unique.rbegin(); it != unique.rend() && key(*it) == key(rank); ++it)
            seen = seen || *it == rank;
        if (!seen)
            unique.push_back(std::move(rank));
    }
    ranks = std::move(unique);
    return merged;
}

std::string rankSummaryJson(const RankSummary &rank)
{
    auto json = nlohmann::ordered_json::parse(header(kRankKind));
    json["rank"] = rankJson(rank);
    return json.dump() + '\n';
}

std::string jobSummaryJson(const JobSummary &job)
{
    auto json = nlohmann::ordered_json::parse(header(kJobKind));
    Json ranks = Json::array();
    for (const auto &rank : job.ranks)
        ranks.push_back(rankJson(rank));
    json["ranks"] = std::move(ranks);
    return json.dump() + '\n';
}

Result<fs::path> writeRankSummary(const fs::path &file, const RankSummary &rank)
{
    return writeFileAtomically(file, rankSummaryJson(rank));
}

Result<fs::path> writeJobSummary(const fs::path &file, const JobSummary &job)
{
    return writeFileAtomically(file, jobSummaryJson(job));
}

Result<JobSummary> readSummary(const fs::path &file)
{
    const auto text = readWholeFile(file);
    if (!text.ok())
        return text.error();
    const auto json = nlohmann::json::parse(text.value(), nullptr, /*allow_exceptions=*/false);
    const auto name = file.string();
    if (json.is_discarded())
        return Error{name + ": not a Pyrometer summary (not valid JSON)"};
    if (!json.is_object() || !json.contains("kind") || !json["kind"].is_string())
        return Error{name + ": not a Pyrometer summary (no \"kind\"; make one with pyrometer-cli summarize)"};
    const auto kind = json["kind"].get<std::string>();
    if (kind != kRankKind && kind != kJobKind)
        return Error{name + ": not a Pyrometer summary (kind \"" + kind + "\")"};
    try {
        const int format = integer<int>(json.at("format"));
        if (format > kFormat)
            return Error{name + ": summary format " + std::to_string(format) + " is newer than this Pyrometer reads (" +
                         std::to_string(kFormat) + "); update Pyrometer"};
        if (format < 1)
            return Error{name + ": summary format " + std::to_string(format) + " is not one Pyrometer wrote"};
        JobSummary job;
        if (kind == kRankKind) {
            job.ranks.push_back(rankFrom(json.at("rank")));
        } else {
            for (const auto &rank : json.at("ranks"))
                job.ranks.push_back(rankFrom(rank));
        }
        return job;
    } catch (const nlohmann::json::exception &error) {
        return Error{name + ": a damaged summary (" + error.what() + ")"};
    } catch (const NotAnInteger &error) {
        return Error{name + ": a damaged summary (" + error.what() + ")"};
    }
}

bool isSummaryFile(const fs::path &file)
{
    if (analysis::isSummaryFileName(file.filename().string()))
        return true;
    std::ifstream in(file, std::ios::binary);
    std::string head(256, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    // Written by jobSummaryJson/rankSummaryJson, or pretty-printed by a tool that keeps key order.
    const auto kind = head.find("\"kind\"");
    const auto brace = head.find_first_not_of(" \t\r\n");
    if (kind == std::string::npos || brace == std::string::npos || head[brace] != '{')
        return false;
    const auto value = head.find("\"pyrometer-", kind);
    return value != std::string::npos && head.find_first_not_of(" \t\r\n:", kind + 6) == value;
}

} // namespace pyrometer::summary
