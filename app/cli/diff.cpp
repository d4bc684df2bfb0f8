// pyrometer-cli diff BASE OTHER: per-op and per-kernel deltas, and a regression gate.
#include "core/analysis/diff.h"
#include "app/cli/analysisinput.h"
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/cli/compareoptions.h"

#include <iostream>

namespace pyrometer::cli {
namespace {

// "other's mean step 103.2 ms against 98.1 ms (1.05x, 95% CI 0.97-1.13: within noise) over 8 and 8
// steady steps".
std::string stepsSentence(const analysis::StepTimes &steps)
{
    std::string text = "other's mean step " + fixed(steps.other.mean, 3) + " ms against " + fixed(steps.base.mean, 3) +
                       " ms (" + fixed(steps.ratioOfMeans(), 3) + "x";
    if (steps.ratio)
        text += ", 95% CI " + fixed(steps.ratio->low, 3) + "-" + fixed(steps.ratio->high, 3) +
                (withinNoise(steps.ratio) ? ": within noise" : ": beyond noise");
    else
        text += "; too few steps for an interval";
    return text + ") over " + std::to_string(steps.other.n) + " and " + std::to_string(steps.base.n) + " steady steps";
}

struct DiffOptions {
    std::string base;
    std::string other;
    Format format = Format::Table;
    std::size_t top = 0;
    std::optional<double> failIfSlower;
};

// "OTHER is 12.50% slower than BASE (limit 5.00%)"
std::string slowerText(const DiffOptions &options, double deltaPercent)
{
    return options.other + " is " + fixed(deltaPercent, 2) + "% slower than " + options.base + " (limit " +
           fixed(*options.failIfSlower, 2) + "%)";
}

int runDiff(const DiffOptions &options)
{
    const auto base = loadAnalysisInput(options.base);
    if (!base)
        return kBadInput;
    const auto other = loadAnalysisInput(options.other);
    if (!other)
        return kBadInput;
    const auto diff = analysis::diffTraces(*base->index, *other->index);
    const auto count = options.top > 0 ? std::min(options.top, diff.rows.size()) : diff.rows.size();
    if (options.format == Format::Json) {
        nlohmann::json rows = nlohmann::json::array();
        for (std::size_t i = 0; i < count; ++i) {
            const auto &row = diff.rows[i];
            rows.push_back({{"kind", row.kind},
                            {"name", row.name},
                            {"base_us", micros(row.baseNs)},
                            {"other_us", micros(row.otherNs)},
                            {"delta_us", micros(row.deltaNs())},
                            {"delta_pct", deltaPercentJson(row.deltaPercent())},
                            {"base_calls", row.baseCalls},
                            {"other_calls", row.otherCalls},
                            {"presence", analysis::presenceName(row.presence)}});
        }
        const auto total = [](const analysis::DiffTotal &t) {
            return nlohmann::json{{"base_us", micros(t.baseNs)},
                                  {"other_us", micros(t.otherNs)},
                                  {"delta_us", micros(t.deltaNs())},
                                  {"delta_pct", t.deltaPercent()}};
        };
        nlohmann::json steps;
        if (diff.steps)
            steps = {{"base_mean_ms", diff.steps->base.mean},
                     {"other_mean_ms", diff.steps->other.mean},
                     {"base_steps", diff.steps->base.n},
                     {"other_steps", diff.steps->other.n},
                     {"ratio", diff.steps->ratioOfMeans()},
                     {"ratio_ci95", intervalJson(diff.steps->ratio)},
                     {"within_noise", withinNoise(diff.steps->ratio)}};
        writeJson(cliOut(), {{"rows", rows},
                             {"total", total(diff.total)},
                             {"ops", total(diff.ops)},
                             {"kernels", total(diff.kernels)},
                             {"steps", steps}});
    } else {
        TextTable text{{"kind", "name", "base us", "other us", "delta us", "delta %", "presence"},
                       {},
                       {false, false, true, true, true, true, false}};
        // Narrow terminals keep the kind, the name and the delta.
        text.dropFirst = {"presence", "base us", "other us"};
        for (std::size_t i = 0; i < count; ++i) {
            const auto &row = diff.rows[i];
            text.rows.push_back({row.kind, row.name, microsText(row.baseNs, options.format), microsText(row.otherNs, options.format),
                                 microsText(row.deltaNs(), options.format), deltaPercentText(row.deltaPercent(), 2),
                                 std::string(analysis::presenceName(row.presence))});
        }
        text.rows.push_back({"total", "ops self + kernels", microsText(diff.total.baseNs, options.format),
                             microsText(diff.total.otherNs, options.format), microsText(diff.total.deltaNs(), options.format),
                             fixed(diff.total.deltaPercent(), 2), ""});
        writeTable(cliOut(), text, options.format);
        if (diff.steps && options.format != Format::Csv)
            writeText(cliOut(),
                      (options.format == Format::Markdown ? "- " : "") + std::string("steps: ") +
                          stepsSentence(*diff.steps),
                      options.format);
    }
    if (options.failIfSlower && diff.total.deltaPercent() > *options.failIfSlower) {
        // Steps that repeat tell a slowdown from their noise: one whose interval reaches the limit
        // is not a failure.
        if (diff.steps && reachesLimit(diff.steps->ratio, *options.failIfSlower)) {
            cliErr() << "pyrometer-cli: " << slowerText(options, diff.total.deltaPercent())
                     << ", but its step time is within noise: " << stepsSentence(*diff.steps) << '\n';
            return kSuccess;
        }
        cliErr() << "pyrometer-cli: " << slowerText(options, diff.total.deltaPercent()) << '\n';
        return kFinding;
    }
    return kSuccess;
}

} // namespace

void setupDiff(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<DiffOptions>();
    command.add_option("BASE", options->base, "The baseline trace")->required();
    command.add_option("OTHER", options->other, "The trace compared with it")->required();
    command.add_option("--fail-if-slower", options->failIfSlower, "Exit 1 when the total delta exceeds PCT percent");
    addCountOption(command, "--top", options->top, 1, "Only the first N rows (largest deltas)", false);
    addFormatOption(command, &options->format);
    command.callback([options, exitCode] { *exitCode = runDiff(*options); });
}

} // namespace pyrometer::cli
