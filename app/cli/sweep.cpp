// pyrometer-cli sweep MODEL --batches 1,2,4,8: latency, throughput and peak memory per
// variant and batch size, the knee of each throughput curve, and what fits a memory budget.
#include "core/model/sweep.h"
#include "app/cli/analysisinput.h"
#include "app/cli/commands.h"
#include "app/cli/variantoptions.h"
#include "core/util/energy.h"
#include "core/util/format.h"

#include <iostream>

namespace pyrometer::cli {
namespace {

struct SweepCliOptions {
    ModelRunOptions run;
    std::vector<std::int64_t> batches;
    std::string memoryBudget;
    std::int64_t maxBatch = 1024;
    double kneePercent = 10;
};

nlohmann::json kneeJson(const std::optional<model::Knee> &knee)
{
    if (!knee)
        return nullptr;
    return {{"batch", knee->batch}, {"throughput_per_s", knee->throughputPerSecond}, {"gain_per_doubling", knee->gainPerDoubling}};
}

nlohmann::json energyJson(const std::optional<double> &value)
{
    return value ? nlohmann::json(*value) : nlohmann::json();
}

int runSweep(const SweepCliOptions &options)
{
    const auto parsed = parseModelRun(options.run);
    if (!parsed)
        return kBadInput;
    model::SweepOptions sweep;
    sweep.inputs = parsed->inputs;
    sweep.variants = parsed->variants;
    sweep.batches = options.batches;
    sweep.maxBatch = options.maxBatch;
    sweep.warmup = options.run.warmup;
    sweep.iterations = options.run.iterations;
    sweep.kneeThreshold = options.kneePercent / 100.0;
    if (!options.memoryBudget.empty()) {
        const auto budget = model::parseByteSize(options.memoryBudget);
        if (!budget)
            return badInput(options.run.model + ": --memory-budget \"" + options.memoryBudget + "\": not a size such as 4GiB or 512MiB");
        sweep.memoryBudgetBytes = *budget;
    }
    ProgressReporter progress;
    const RunStop stop(options.run.engine.timeout);
    const auto report = engine::runSweep(parsed->engine, options.run.model, sweep, {}, progress, stop.token());
    if (!report.ok())
        return badInput(stop.message(options.run.model, report.error().message));
    const auto &r = report.value();
    if (options.run.format == Format::Json) {
        nlohmann::json rows = nlohmann::json::array();
        for (const auto &point : r.points)
            rows.push_back(
                {{"variant", point.variant},
                 {"batch", point.batch},
                 {"latency_ms", point.latency.mean},
                 {"latency_ci95_ms", intervalJson(meanInterval(point.latency.sample()))},
                 {"timed_runs", point.latency.n},
                 {"p50_ms", point.latency.p50},
                 {"p90_ms", point.latency.p90},
                 {"throughput_per_s", point.throughputPerSecond},
                 {"peak_memory_bytes",
                  point.memoryMeasured() ? nlohmann::json(point.peakMemoryBytes) : nlohmann::json()},
                 {"fits_budget", r.memoryBudgetBytes > 0 && point.memoryMeasured() ? nlohmann::json(point.fitsBudget)
                                                                                   : nlohmann::json()},
                 {"energy_mj", energyJson(point.energyMjPerInference)}, // above idle
                 {"machine_energy_mj", energyJson(point.machineEnergyMjPerInference)},
                 {"idle_power_w", energyJson(point.idlePowerW)},
                 {"inferences_per_j", energyJson(model::inferencesPerJoule(point.energyMjPerInference))}});
        nlohmann::json knees = nlohmann::json::object();
        nlohmann::json variants = nlohmann::json::array();
        for (const auto &summary : r.summaries) {
            knees[summary.variant] = kneeJson(summary.knee);
            nlohmann::json entry{{"variant", summary.variant},
                                 {"knee", kneeJson(summary.knee)},
                                 {"largest_fitting_batch", summary.largestFittingBatch}};
            if (!summary.error.empty())
                entry["error"] = summary.error;
            if (!summary.note.empty())
                entry["note"] = summary.note;
            variants.push_back(std::move(entry));
        }
        writeJson(cliOut(), {{"model", options.run.model},
                             {"engine", r.engine},
                             {"input", model::formatInputSpecs(r.inputs)},
                             {"memory_source", r.memorySource},
                             {"energy_unavailable",
                              r.energyUnavailable.empty() ? nlohmann::json() : nlohmann::json(r.energyUnavailable)},
                             {"memory_budget_bytes", r.memoryBudgetBytes},
                             {"knee_threshold", sweep.kneeThreshold},
                             {"rows", rows},
                             {"knee", knees},
                             {"variants", variants}});
        return kSuccess;
    }
    TextTable table{
        {"variant", "batch", "latency ms", "p50 ms", "p90 ms", "samples/s", "mJ/inf", "inf/J", "peak memory", "fits"},
        {},
        {false, true, true, true, true, true, true, true, true, false}};
    // Narrow terminals keep the variant, the batch, its latency and throughput.
    table.dropFirst = {"p50 ms", "p90 ms", "fits", "inf/J", "mJ/inf", "peak memory"};
    for (const auto &point : r.points) {
        const auto perJoule = model::inferencesPerJoule(point.energyMjPerInference);
        table.rows.push_back({point.variant, std::to_string(point.batch), fixed(point.latency.mean),
                              fixed(point.latency.p50), fixed(point.latency.p90), fixed(point.throughputPerSecond, 1),
                              point.energyMjPerInference ? fixed(*point.energyMjPerInference, 2) : std::string("n/a"),
                              perJoule ? fixed(*perJoule, 1) : std::string("n/a"),
                              point.memoryMeasured()
                                  ? formatBytes(std::uint64_t(std::max<std::int64_t>(0, point.peakMemoryBytes)))
                                  : std::string("not measured"),
                              r.memoryBudgetBytes == 0  ? std::string("no budget")
                              : !point.memoryMeasured() ? std::string("not measured")
                              : point.fitsBudget        ? std::string("yes")
                                                        : std::string("no")});
    }
    writeTable(cliOut(), table, options.run.format);
    if (options.run.format == Format::Csv)
        return kSuccess;
    cliOut() << "\n";
    for (const auto &summary : r.summaries) {
        std::string line = (options.run.format == Format::Markdown ? "- " : "") + summary.variant + ": ";
        if (!summary.error.empty()) {
            writeText(cliOut(), line + "failed: " + summary.error, options.run.format);
            continue;
        }
        if (summary.knee)
            line += "knee at batch " + std::to_string(summary.knee->batch) + " (" + fixed(summary.knee->throughputPerSecond, 1) +
                    " samples/s; doubling gains " + fixed(summary.knee->gainPerDoubling * 100, 1) + "%)";
        else
            line += "no knee: throughput still gains " + fixed(options.kneePercent, 0) + "% or more per doubling";
        if (r.memoryBudgetBytes > 0)
            line += "; largest batch within " + formatBytes(std::uint64_t(r.memoryBudgetBytes)) + ": " +
                    (summary.largestFittingBatch ? std::to_string(summary.largestFittingBatch) : std::string("none"));
        if (!summary.note.empty())
            line += "; " + summary.note;
        writeText(cliOut(), line, options.run.format);
    }
    writeText(cliOut(), "engine: " + r.engine, options.run.format);
    writeText(cliOut(),
              r.memorySource == "cpu-allocator"
                  ? "peak memory: weights (serialized size) + inputs + the CPU allocator's highest use during the runs"
              : r.memorySource == "cuda-allocator" ? "peak memory: torch.cuda.max_memory_allocated over the runs"
                                                   : "peak memory: not measured by the Python engine on the CPU",
              options.run.format);
    writeText(cliOut(),
              r.energyUnavailable.empty() ? "energy: " + energyMethod() : "energy: unavailable: " + r.energyUnavailable,
              options.run.format);
    return kSuccess;
}

} // namespace

void setupSweep(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<SweepCliOptions>();
    command.add_option("MODEL", options->run.model, "A TorchScript model (.pt), a torch.export program (.pt2) or model.py:factory (a function returning an nn.Module; the last two run in the Python engine)")->required();
    command.add_option("--batches", options->batches, "Batch sizes, 1,2,4,8 (default: 1, 2, 4, ... up to the budget or --max-batch)")
        ->delimiter(',')
        ->check(wholeNumberFrom(1));
    command.add_option("--memory-budget", options->memoryBudget, "Largest peak memory that fits, 4GiB or 512MiB");
    addCountOption(command, "--max-batch", options->maxBatch, 1, "Where the doubling range ends");
    command.add_option("--knee-threshold", options->kneePercent, "Knee: doubling the batch gains less than PCT percent throughput")
        ->check(CLI::Range(0.0, 1000.0))
        ->capture_default_str();
    addModelRunOptions(command, &options->run, "baseline", 3, 10, model::BatchDim::Swept);
    command.callback([options, exitCode] { *exitCode = runSweep(*options); });
}

} // namespace pyrometer::cli
