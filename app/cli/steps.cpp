// pyrometer-cli steps TRACE: time per step (ProfilerStep, else optimizer steps, else a repeated
// annotation) by category (the TensorBoard plugin's rule).
#include "core/analysis/steps.h"
#include "app/cli/analysisinput.h"
#include "app/cli/commands.h"
#include "core/analysis/utilization.h"
#include "core/analysis/workclass.h"

#include <iostream>

namespace pyrometer::cli {
namespace {

struct StepsOptions {
    std::string trace;
    Format format = Format::Table;
    std::string range;
};

// What narrow terminals leave out first: the idle gap, then the categories from the least time
// over every step up; the step, its duration and its largest category stay.
std::vector<std::string> stepColumnsToDrop(const analysis::StepBreakdown &breakdown)
{
    std::vector<std::pair<std::int64_t, std::size_t>> byTime;
    for (std::size_t c = 0; c < analysis::kStepCategoryCount; ++c) {
        std::int64_t total = 0;
        for (const auto &step : breakdown.steps)
            total += step.categoryNs[c];
        byTime.emplace_back(total, c);
    }
    std::stable_sort(byTime.begin(), byTime.end());
    std::vector<std::string> columns{"largest idle gap us"};
    for (std::size_t i = 0; i + 1 < byTime.size(); ++i) {
        if (i + 2 == byTime.size())
            columns.emplace_back("gpu util %"); // kept beside the two largest categories
        columns.push_back(std::string(analysis::stepCategoryName(analysis::StepCategory(byTime[i].second))) + " us");
    }
    return columns;
}

int runSteps(const StepsOptions &options)
{
    const auto input = loadAnalysisInput(options.trace);
    if (!input)
        return kBadInput;
    const auto range = parseRangeOption(options.range, *input, options.trace);
    if (!range)
        return kBadInput;
    const auto breakdown = analysis::buildStepBreakdown(*input->index, *range);
    using analysis::StepCategory;
    // Shown in json and under the table; csv and md hold the steps only.
    const auto gpu = options.format == Format::Json || options.format == Format::Table
                         ? analysis::gpuUtilization(*input->index, breakdown.steps, *range)
                         : analysis::GpuUtilization{};
    const auto mean = analysis::stepMean(breakdown);

    if (options.format == Format::Json) {
        nlohmann::json rows = nlohmann::json::array();
        for (std::size_t i = 0; i < breakdown.steps.size(); ++i) {
            const auto &step = breakdown.steps[i];
            nlohmann::json r{{"step", step.name},
                             {"kind", analysis::stepKindName(mean.kinds[i])},
                             {"start_us", micros(step.startNs)},
                             {"duration_us", micros(step.durationNs)}};
            for (std::size_t c = 0; c < analysis::kStepCategoryCount; ++c)
                r[std::string(analysis::stepCategoryName(StepCategory(c))) + "_us"] = micros(step.categoryNs[c]);
            r["gpu_busy_us"] = micros(step.gpuBusyNs);
            r["gpu_utilization"] = step.gpuUtilization;
            nlohmann::json gaps = nlohmann::json::array();
            for (const auto &gap : step.largestIdleGaps)
                gaps.push_back({{"start_us", micros(gap.startNs)}, {"duration_us", micros(gap.durationNs)}});
            r["idle_gaps"] = gaps;
            rows.push_back(std::move(r));
        }
        nlohmann::json devices = nlohmann::json::array();
        for (const auto &busy : gpu.devices)
            devices.push_back({{"device", busy.device},
                               {"busy_us", micros(busy.busyNs)},
                               {"time_us", micros(busy.spanNs)},
                               {"utilization", busy.utilization()}});
        writeJson(cliOut(), {{"rows", rows},
                             {"step_rule", analysis::stepRuleText(breakdown.rule, breakdown.ruleExample)},
                             {"mean_step",
                              {{"mean_us", micros(mean.meanNs)},
                               {"steady", mean.steady},
                               {"warm_up", mean.warmUp},
                               {"partial", mean.partial}}},
                             {"gpu_utilization", {{"over", gpu.overSteps ? "steps" : "span"}, {"devices", devices}}}});
        return kSuccess;
    }
    TextTable text;
    text.header = {"step", "duration us"};
    for (std::size_t c = 0; c < analysis::kStepCategoryCount; ++c)
        text.header.push_back(std::string(analysis::stepCategoryName(StepCategory(c))) + " us");
    if (breakdown.hasDevice)
        text.header.insert(text.header.end(), {"gpu util %", "largest idle gap us"});
    text.rightAligned.assign(text.header.size(), true);
    text.rightAligned[0] = false;
    text.dropFirst = stepColumnsToDrop(breakdown);
    for (std::size_t i = 0; i < breakdown.steps.size(); ++i) {
        const auto &step = breakdown.steps[i];
        // Csv keeps the name alone; the table says which steps the mean leaves out.
        const auto kind = mean.kinds[i];
        const auto name = options.format == Format::Csv || kind == analysis::StepKind::Steady
                              ? step.name
                              : step.name + " (" + std::string(analysis::stepKindName(kind)) + ")";
        std::vector<std::string> cells{name, microsText(step.durationNs, options.format)};
        for (const auto ns : step.categoryNs)
            cells.push_back(microsText(ns, options.format));
        if (breakdown.hasDevice)
            cells.insert(cells.end(),
                         {fixed(100.0 * step.gpuUtilization, 1),
                          step.largestIdleGaps.empty() ? microsText(0, options.format)
                                                       : microsText(step.largestIdleGaps.front().durationNs, options.format)});
        text.rows.push_back(std::move(cells));
    }
    writeTable(cliOut(), text, options.format);
    if (options.format == Format::Table)
        writeText(cliOut(), analysis::stepRuleText(breakdown.rule, breakdown.ruleExample), options.format);
    if (options.format == Format::Table && !breakdown.steps.empty())
        writeText(cliOut(), "Steps: " + analysis::describeStepMean(mean), options.format);
    const auto device = analysis::acceleratorName(*input->index);
    for (const auto &busy : gpu.devices)
        writeText(cliOut(),
                  device + " " + std::to_string(busy.device) + " busy " + fixed(100.0 * busy.utilization(), 1) +
                      "% of the " + (gpu.overSteps ? "step time" : "trace's span (no steps)") + ": " +
                      microsText(busy.busyNs, options.format) + " of " + microsText(busy.spanNs, options.format) +
                      " us",
                  options.format);
    return kSuccess;
}

} // namespace

void setupSteps(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<StepsOptions>();
    command.add_option("TRACE", options->trace, "A .json or .json.gz trace, or a TensorBoard log directory")
        ->required();
    addRangeOption(command, &options->range);
    addFormatOption(command, &options->format);
    command.callback([options, exitCode] { *exitCode = runSteps(*options); });
}

} // namespace pyrometer::cli
