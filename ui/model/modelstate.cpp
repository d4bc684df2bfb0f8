#include "ui/model/modelstate.h"

#include "core/model/inputspec.h"

namespace pyrometer::ui {
namespace {

using nlohmann::json;

json statsToJson(const model::LatencyStats &s)
{
    return {{"mean", s.mean}, {"std", s.std}, {"min", s.min}, {"p50", s.p50},
            {"p90", s.p90},   {"p99", s.p99}, {"max", s.max}, {"n", s.n}};
}

model::LatencyStats statsFromJson(const json &j)
{
    model::LatencyStats s;
    s.mean = j.at("mean").get<double>();
    s.std = j.at("std").get<double>();
    s.min = j.at("min").get<double>();
    s.p50 = j.at("p50").get<double>();
    s.p90 = j.at("p90").get<double>();
    s.p99 = j.at("p99").get<double>();
    s.max = j.at("max").get<double>();
    s.n = j.value("n", std::size_t(0)); // sessions before the count was kept: no interval
    return s;
}

std::vector<model::InputSpec> inputsFromJson(const json &j)
{
    const auto text = j.get<std::string>();
    if (text.empty())
        return {};
    auto inputs = model::parseInputSpecs(text, model::BatchDim::Swept);
    if (!inputs.ok())
        throw std::invalid_argument(inputs.error().message);
    return std::move(inputs).value();
}

const char *modeName(model::RunMode mode)
{
    return mode == model::RunMode::Train ? "train" : "inference";
}

model::RunMode modeFromJson(const json &j)
{
    return j.get<std::string>() == "train" ? model::RunMode::Train : model::RunMode::Inference;
}

json layerToJson(const model::LayerRow &row)
{
    return {{"module", row.module},
            {"type", row.type},
            {"depth", row.depth},
            {"leaf", row.leaf},
            {"calls", row.calls},
            {"self_ms", row.selfMs},
            {"total_ms", row.totalMs},
            {"percent", row.percent},
            {"output_shapes", row.outputShapes},
            {"params", row.params},
            {"macs", row.macs},
            {"flops", row.flops},
            {"gflops_per_second", row.gflopsPerSecond},
            {"allocated_bytes", row.allocatedBytes},
            {"self_allocated_bytes", row.selfAllocatedBytes},
            {"bytes", row.bytes},
            {"element_bytes", row.elementBytes},
            {"dtype", row.dtype},
            {"self_device_ms", row.selfDeviceMs},
            {"device_ms", row.deviceMs}};
}

model::LayerRow layerFromJson(const json &j)
{
    model::LayerRow row;
    row.module = j.at("module").get<std::string>();
    row.type = j.at("type").get<std::string>();
    row.depth = j.at("depth").get<int>();
    row.leaf = j.at("leaf").get<bool>();
    row.calls = j.at("calls").get<int>();
    row.selfMs = j.at("self_ms").get<double>();
    row.totalMs = j.at("total_ms").get<double>();
    row.percent = j.at("percent").get<double>();
    row.outputShapes = j.at("output_shapes").get<std::vector<std::vector<std::int64_t>>>();
    row.params = j.at("params").get<std::uint64_t>();
    row.macs = j.at("macs").get<double>();
    row.flops = j.at("flops").get<double>();
    row.gflopsPerSecond = j.at("gflops_per_second").get<double>();
    row.allocatedBytes = j.at("allocated_bytes").get<std::int64_t>();
    row.selfAllocatedBytes = j.at("self_allocated_bytes").get<std::int64_t>();
    // Sessions written before the roofline columns: bytes unknown.
    row.bytes = j.value("bytes", -1.0);
    row.elementBytes = j.value("element_bytes", 0);
    // Sessions written before dtypes and device times: none.
    row.dtype = j.value("dtype", std::string());
    row.selfDeviceMs = j.value("self_device_ms", 0.0);
    row.deviceMs = j.value("device_ms", 0.0);
    return row;
}

json roofToJson(const std::optional<analysis::DeviceRoof> &roof)
{
    if (!roof)
        return nullptr;
    return {{"name", roof->name},           {"bandwidth", roof->bandwidth}, {"vector_flops", roof->vectorFlops},
            {"matrix_flops", roof->matrixFlops}, {"source", roof->source}, {"nvidia", roof->nvidia},
            {"measured", roof->measured},       {"cache_bandwidth", roof->cacheBandwidth},
            {"cache_name", roof->cacheName}};
}

std::optional<analysis::DeviceRoof> roofFromJson(const json &j)
{
    if (!j.is_object())
        return std::nullopt;
    analysis::DeviceRoof roof;
    roof.name = j.at("name").get<std::string>();
    roof.bandwidth = j.at("bandwidth").get<double>();
    roof.vectorFlops = j.at("vector_flops").get<double>();
    roof.matrixFlops = j.at("matrix_flops").get<decltype(roof.matrixFlops)>();
    roof.source = j.at("source").get<std::string>();
    roof.nvidia = j.at("nvidia").get<bool>();
    roof.measured = j.at("measured").get<bool>();
    roof.cacheBandwidth = j.value("cache_bandwidth", 0.0);
    roof.cacheName = j.value("cache_name", std::string());
    return roof;
}

json pointToJson(const model::SweepPoint &p)
{
    return {{"variant", p.variant},
            {"batch", p.batch},
            {"latency_ms", statsToJson(p.latency)},
            {"throughput_per_second", p.throughputPerSecond},
            {"peak_memory_bytes", p.peakMemoryBytes},
            {"fits_budget", p.fitsBudget},
            {"energy_mj", p.energyMjPerInference ? json(*p.energyMjPerInference) : json()},
            {"machine_energy_mj", p.machineEnergyMjPerInference ? json(*p.machineEnergyMjPerInference) : json()},
            {"idle_power_w", p.idlePowerW ? json(*p.idlePowerW) : json()}};
}

model::SweepPoint pointFromJson(const json &j)
{
    model::SweepPoint p;
    p.variant = j.at("variant").get<std::string>();
    p.batch = j.at("batch").get<std::int64_t>();
    p.latency = statsFromJson(j.at("latency_ms"));
    p.throughputPerSecond = j.at("throughput_per_second").get<double>();
    p.peakMemoryBytes = j.at("peak_memory_bytes").get<std::int64_t>();
    p.fitsBudget = j.at("fits_budget").get<bool>();
    const auto number = [&j](const char *key) -> std::optional<double> {
        const auto found = j.find(key);
        return found != j.end() && found->is_number() ? std::optional(found->get<double>()) : std::nullopt;
    };
    p.machineEnergyMjPerInference = number("machine_energy_mj");
    p.idlePowerW = number("idle_power_w");
    if (p.machineEnergyMjPerInference)
        p.energyMjPerInference = number("energy_mj");
    else // saved before: its one figure is the machine's, and none above idle was measured
        p.machineEnergyMjPerInference = number("energy_mj");
    return p;
}

json summaryToJson(const model::SweepSummary &s)
{
    json out{{"variant", s.variant}, {"largest_fitting_batch", s.largestFittingBatch}, {"error", s.error}, {"note", s.note}};
    if (s.knee)
        out["knee"] = {{"batch", s.knee->batch},
                       {"throughput_per_second", s.knee->throughputPerSecond},
                       {"gain_per_doubling", s.knee->gainPerDoubling}};
    return out;
}

model::SweepSummary summaryFromJson(const json &j)
{
    model::SweepSummary s;
    s.variant = j.at("variant").get<std::string>();
    s.largestFittingBatch = j.at("largest_fitting_batch").get<std::int64_t>();
    s.error = j.at("error").get<std::string>();
    s.note = j.at("note").get<std::string>();
    if (const auto knee = j.find("knee"); knee != j.end())
        s.knee = model::Knee{knee->at("batch").get<std::int64_t>(), knee->at("throughput_per_second").get<double>(),
                             knee->at("gain_per_doubling").get<double>()};
    return s;
}

// Reading a session written by hand (or by a damaged disk) must not throw into the window.
template <typename T, typename Read>
std::optional<T> readOrNothing(const json &j, Read read)
{
    if (!j.is_object() && !j.is_array())
        return std::nullopt;
    try {
        return read(j);
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

} // namespace

json profileRunToJson(const ProfileRun &run)
{
    const auto &l = run.latency;
    const auto &p = run.profile;
    json layers = json::array();
    for (const auto &row : p.rows)
        layers.push_back(layerToJson(row));
    return {{"latency",
             {{"model", l.path.string()},
              {"inputs", model::formatInputSpecs(l.inputs)},
              {"mode", modeName(l.mode)},
              {"threads", l.threads},
              {"warmup", l.warmup},
              {"iterations", l.iterations},
              {"batch_size", l.batchSize},
              {"cold_ms", l.coldMs},
              {"warm_ms", statsToJson(l.warm)},
              {"throughput_per_second", l.throughputPerSecond},
              {"samples_ms", l.samplesMs},
              {"engine", l.engine}}},
            {"profile",
             {{"model", p.path.string()},
              {"inputs", model::formatInputSpecs(p.inputs)},
              {"mode", modeName(p.mode)},
              {"iterations", p.iterations},
              {"forward_ms", p.forwardMs},
              {"device_times", p.deviceTimes},
              {"device_forward_ms", p.deviceForwardMs},
              {"peak_memory_bytes", p.peakMemoryBytes},
              {"total_macs", p.totalMacs},
              {"total_flops", p.totalFlops},
              {"layers", layers}}},
            {"trace", run.tracePath.string()},
            {"roof", roofToJson(run.roof)}};
}

std::optional<ProfileRun> profileRunFromJson(const json &json)
{
    return readOrNothing<ProfileRun>(json, [](const nlohmann::json &j) {
        ProfileRun run;
        const auto &l = j.at("latency");
        run.latency.path = l.at("model").get<std::string>();
        run.latency.inputs = inputsFromJson(l.at("inputs"));
        run.latency.mode = modeFromJson(l.at("mode"));
        run.latency.threads = l.at("threads").get<int>();
        run.latency.warmup = l.at("warmup").get<int>();
        run.latency.iterations = l.at("iterations").get<int>();
        run.latency.batchSize = l.at("batch_size").get<std::int64_t>();
        run.latency.coldMs = l.at("cold_ms").get<double>();
        run.latency.warm = statsFromJson(l.at("warm_ms"));
        run.latency.throughputPerSecond = l.at("throughput_per_second").get<double>();
        run.latency.samplesMs = l.at("samples_ms").get<std::vector<double>>();
        run.latency.engine = l.value("engine", std::string());
        const auto &p = j.at("profile");
        run.profile.path = p.at("model").get<std::string>();
        run.profile.inputs = inputsFromJson(p.at("inputs"));
        run.profile.mode = modeFromJson(p.at("mode"));
        run.profile.iterations = p.at("iterations").get<int>();
        run.profile.forwardMs = p.at("forward_ms").get<double>();
        run.profile.deviceTimes = p.value("device_times", false);
        run.profile.deviceForwardMs = p.value("device_forward_ms", 0.0);
        run.profile.peakMemoryBytes = p.at("peak_memory_bytes").get<std::int64_t>();
        run.profile.totalMacs = p.at("total_macs").get<double>();
        run.profile.totalFlops = p.at("total_flops").get<double>();
        for (const auto &layer : p.at("layers"))
            run.profile.rows.push_back(layerFromJson(layer));
        run.tracePath = j.at("trace").get<std::string>();
        if (const auto roof = j.find("roof"); roof != j.end())
            run.roof = roofFromJson(*roof);
        return run;
    });
}

json sweepPointsToJson(const std::vector<model::SweepPoint> &points)
{
    json out = json::array();
    for (const auto &point : points)
        out.push_back(pointToJson(point));
    return out;
}

std::optional<std::vector<model::SweepPoint>> sweepPointsFromJson(const json &json)
{
    return readOrNothing<std::vector<model::SweepPoint>>(json, [](const nlohmann::json &j) {
        std::vector<model::SweepPoint> points;
        for (const auto &point : j)
            points.push_back(pointFromJson(point));
        return points;
    });
}

json sweepReportToJson(const model::SweepReport &report)
{
    json summaries = json::array();
    for (const auto &summary : report.summaries)
        summaries.push_back(summaryToJson(summary));
    return {{"model", report.path.string()},
            {"inputs", model::formatInputSpecs(report.inputs)},
            {"memory_budget_bytes", report.memoryBudgetBytes},
            {"memory_source", report.memorySource},
            {"energy_unavailable", report.energyUnavailable},
            {"points", sweepPointsToJson(report.points)},
            {"summaries", summaries}};
}

std::optional<model::SweepReport> sweepReportFromJson(const json &json)
{
    return readOrNothing<model::SweepReport>(json, [](const nlohmann::json &j) {
        model::SweepReport report;
        report.path = j.at("model").get<std::string>();
        report.inputs = inputsFromJson(j.at("inputs"));
        report.memoryBudgetBytes = j.at("memory_budget_bytes").get<std::int64_t>();
        report.memorySource = j.at("memory_source").get<std::string>();
        // Sweeps saved before energy was measured say so, rather than claim a reading.
        report.energyUnavailable = j.value("energy_unavailable", std::string("not measured when this sweep was saved"));
        auto points = sweepPointsFromJson(j.at("points"));
        if (!points)
            throw std::invalid_argument("points");
        report.points = std::move(*points);
        for (const auto &summary : j.at("summaries"))
            report.summaries.push_back(summaryFromJson(summary));
        return report;
    });
}

} // namespace pyrometer::ui
