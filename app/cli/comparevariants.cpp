// pyrometer-cli compare MODEL --variants ...: optimized and pruned variants against the
// baseline (speed, size, weights, MACs, sparsity, energy, and accuracy on the user's data),
// with a speed gate and an accuracy gate.
#include "app/cli/analysisinput.h"
#include "app/cli/commands.h"
#include "app/cli/compareoptions.h"
#include "core/util/energy.h"
#include "core/util/format.h"

#include <iostream>

namespace pyrometer::cli {
namespace {

std::string optionalFixed(const std::optional<double> &value, int decimals)
{
    if (!value)
        return "";
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.*g", decimals, *value);
    return buffer;
}

template <typename T> nlohmann::json optionalJson(const std::optional<T> &value)
{
    return value ? nlohmann::json(*value) : nlohmann::json();
}

std::string percentText(const std::optional<double> &fraction)
{
    return fraction ? fixed(*fraction * 100, 1) + "%" : "";
}

std::string signedPoints(const std::optional<double> &points)
{
    return points ? (*points > 0 ? "+" : "") + fixed(*points, 1) : "";
}

// "1.42x (1.31-1.55)", "1.02x (0.97-1.08) within noise": the baseline row shows its 1.00x alone.
std::string speedupText(const model::VariantResult &row, Format format)
{
    std::string text = fixed(row.speedup, 2) + "x";
    if (format == Format::Csv || row.variant.kind == model::VariantKind::Baseline || !row.speedupInterval)
        return text;
    text += " (" + fixed(row.speedupInterval->low, 2) + "-" + fixed(row.speedupInterval->high, 2) + ")";
    return withinNoise(row.speedupInterval) ? text + " within noise" : text;
}

nlohmann::json rowJson(const model::VariantResult &row)
{
    nlohmann::json entry{
        {"variant", row.name},
        {"latency_ms", row.latency.mean},
        {"p50_ms", row.latency.p50},
        {"p90_ms", row.latency.p90},
        {"throughput_per_s", row.throughputPerSecond},
        {"speedup", row.speedup},
        {"speedup_ci95", intervalJson(row.speedupInterval)},
        {"within_noise", row.speedupInterval ? nlohmann::json(withinNoise(row.speedupInterval)) : nlohmann::json()},
        {"timed_runs", row.latency.n},
        {"model_bytes", row.modelBytes},
        {"compressed_bytes", row.compressedBytes},
        {"params", optionalJson(row.params)},
        {"macs", optionalJson(row.macs)},
        {"sparsity", optionalJson(row.sparsity)},
        {"max_abs_diff", optionalJson(row.maxAbsDiff)},
        {"relative_error", optionalJson(row.relativeError)},
        {"accuracy", optionalJson(row.accuracy)},
        {"accuracy_change_points", optionalJson(row.accuracyChange)},
        {"agreement", optionalJson(row.agreement)},
        {"energy_mj", optionalJson(row.energyMjPerInference)}, // above idle
        {"machine_energy_mj", optionalJson(row.machineEnergyMjPerInference)},
        {"idle_power_w", optionalJson(row.idlePowerW)},
        {"inferences_per_j", optionalJson(model::inferencesPerJoule(row.energyMjPerInference))}};
    if (!row.error.empty()) {
        entry["error"] = row.error;
        for (const char *measured : {"latency_ms", "p50_ms", "p90_ms", "throughput_per_s", "speedup", "model_bytes",
                                     "compressed_bytes", "timed_runs"})
            entry[measured] = nullptr; // not measured, rather than zero
    }
    if (!row.note.empty())
        entry["note"] = row.note;
    if (row.variant.kind == model::VariantKind::PruneL1 || row.variant.kind == model::VariantKind::PruneChannels) {
        nlohmann::json layers = nlohmann::json::array();
        for (const auto &layer : row.layerSparsity)
            layers.push_back({{"module", layer.module},
                              {"type", layer.type},
                              {"weights", layer.weights},
                              {"zeros", layer.zeros},
                              {"sparsity", layer.fraction()}});
        entry["layers"] = std::move(layers);
    }
    return entry;
}

void writeVariantsTable(const model::CompareReport &report, Format format)
{
    const bool data = !report.dataNote.empty();
    const bool labels = data && !report.rows.empty() && report.rows.front().accuracy;
    TextTable table;
    table.header = {"variant", "latency ms", "p90 ms",   "speedup",     "mJ/inf",
                    "params",  "GMACs",      "sparsity", "model bytes", "zlib bytes"};
    if (labels)
        table.header.insert(table.header.end(), {"accuracy", "change pt"});
    if (data)
        table.header.push_back("agreement");
    table.header.insert(table.header.end(), {"max abs diff", "rel error", "note"});
    table.rightAligned.assign(table.header.size(), true);
    table.rightAligned.front() = false;
    table.rightAligned.back() = false;
    table.prose.assign(table.header.size(), false);
    table.prose.back() = true;
    // Narrow terminals keep the variant, its latency, speedup and accuracy.
    table.dropFirst = {"p90 ms",   "rel error", "max abs diff", "zlib bytes", "model bytes",
                       "sparsity", "params",    "mJ/inf",       "GMACs"};
    for (const auto &row : report.rows) {
        std::vector<std::string> cells{row.name};
        if (!row.ok()) {
            cells.resize(table.header.size() - 1);
            cells.push_back("failed: " + row.error);
            table.rows.push_back(std::move(cells));
            continue;
        }
        cells.insert(cells.end(), {fixed(row.latency.mean), fixed(row.latency.p90), speedupText(row, format),
                                   row.energyMjPerInference ? fixed(*row.energyMjPerInference, 2) : std::string("n/a"),
                                   row.params ? (format == Format::Table ? formatCount(std::uint64_t(*row.params))
                                                                         : std::to_string(*row.params))
                                              : std::string(),
                                   row.macs ? fixed(*row.macs / 1e9, format == Format::Table ? 3 : 6) : std::string(),
                                   percentText(row.sparsity), bytesText(row.modelBytes, format),
                                   bytesText(row.compressedBytes, format)});
        if (labels)
            cells.insert(cells.end(), {percentText(row.accuracy), signedPoints(row.accuracyChange)});
        if (data)
            cells.push_back(percentText(row.agreement));
        cells.insert(cells.end(), {optionalFixed(row.maxAbsDiff, 3), optionalFixed(row.relativeError, 3), row.note});
        table.rows.push_back(std::move(cells));
    }
    writeTable(cliOut(), table, format);
    if (format == Format::Csv)
        return;
    const std::string bullet = format == Format::Markdown ? "- " : "";
    if (!report.engine.empty())
        writeText(cliOut(), bullet + "engine: " + report.engine, format);
    if (!report.rows.empty() && report.rows.front().latency.n > 1)
        writeText(
            cliOut(),
            bullet + "speedup: the 95% confidence interval from " + std::to_string(report.rows.front().latency.n) +
                " timed runs of each variant, taken in turns with the baseline's; \"within noise\" when it holds 1x",
            format);
    if (data)
        writeText(cliOut(), bullet + "data: " + report.dataNote, format);
    writeText(cliOut(),
              bullet + "energy: " +
                  (report.energyUnavailable.empty() ? energyMethod() : "unavailable: " + report.energyUnavailable),
              format);
}

// The accuracy gate's failures, one line each.
std::vector<std::string> accuracyFailures(const model::CompareReport &report, const std::string &gate, double limit)
{
    std::vector<std::string> failures;
    for (const auto &row : report.rows) {
        if (row.variant == model::Variant{} || (!gate.empty() && row.name != gate))
            continue;
        if (!row.ok()) {
            failures.push_back("the variant " + row.name + " failed: " + row.error);
            continue;
        }
        const auto drop = model::accuracyDrop(row);
        if (!drop || *drop <= limit)
            continue;
        char buffer[256];
        if (row.accuracy)
            std::snprintf(buffer, sizeof buffer,
                          "%s drops top-1 accuracy by %.2f points (%.2f%% vs the baseline's %.2f%%; limit %.2f)",
                          row.name.c_str(), *drop, *row.accuracy * 100, *report.rows.front().accuracy * 100, limit);
        else
            std::snprintf(buffer, sizeof buffer,
                          "%s changes %.2f%% of the baseline's top-1 predictions (no labels given; limit %.2f%%)",
                          row.name.c_str(), *drop, limit);
        failures.push_back(buffer);
    }
    return failures;
}

} // namespace

int compareModelVariants(const CompareCliOptions &options)
{
    auto run = options.run;
    run.model = options.files.front();
    if (run.variants == kEmbeddedVariants && engine::isPython(engine::resolveEngine({run.engine.python, run.engine.device}, run.model)))
        run.variants = kPythonVariants;
    const auto parsed = parseModelRun(run);
    if (!parsed)
        return kBadInput;
    model::CompareOptions compare;
    compare.inputs = parsed->inputs;
    compare.variants = parsed->variants;
    compare.warmup = run.warmup;
    compare.iterations = run.iterations;
    compare.data = options.data;
    compare.labels = options.labels;
    if (options.maxAccuracyDrop && options.data.empty())
        return badInput(run.model + ": --max-accuracy-drop needs --data (and --labels for accuracy)");
    std::string gate = options.gate;
    if (options.failIfSlower && gate.empty()) {
        std::vector<std::string> others;
        for (const auto &variant : compare.variants)
            if (variant != model::Variant{})
                others.push_back(model::variantName(variant));
        if (others.size() != 1)
            return badInput(run.model + ": --fail-if-slower needs --gate VARIANT to say which variant it judges");
        gate = others.front();
    }
    if (!gate.empty()) {
        const auto gated = model::parseVariants(gate);
        if (!gated.ok() || gated->size() != 1)
            return badInput(run.model + ": --gate \"" + gate + "\": not one variant name");
        gate = model::variantName(gated->front());
        if (std::find(compare.variants.begin(), compare.variants.end(), gated->front()) == compare.variants.end())
            compare.variants.push_back(gated->front());
    }
    ProgressReporter progress;
    const RunStop stop(run.engine.timeout);
    const auto report = engine::compareVariants(parsed->engine, run.model, compare, {}, progress, stop.token());
    if (!report.ok())
        return badInput(stop.message(run.model, report.error().message));
    const auto &rows = report->rows;
    if (run.format == Format::Json) {
        nlohmann::json json = nlohmann::json::array();
        for (const auto &row : rows)
            json.push_back(rowJson(row));
        writeJson(cliOut(),
                  {{"model", run.model},
                   {"engine", report->engine},
                   {"input", model::formatInputSpecs(report->inputs)},
                   {"quantized_engines", report->quantizationEngines},
                   {"data", report->dataNote.empty() ? nlohmann::json() : nlohmann::json(report->dataNote)},
                   {"energy_unavailable",
                    report->energyUnavailable.empty() ? nlohmann::json() : nlohmann::json(report->energyUnavailable)},
                   {"rows", json}});
    } else {
        writeVariantsTable(report.value(), run.format);
    }
    int status = kSuccess;
    if (options.failIfSlower) {
        for (const auto &row : rows) {
            if (row.name != gate)
                continue;
            if (!row.ok()) {
                cliErr() << "pyrometer-cli: " << run.model << ": the gated variant " << gate << " failed: " << row.error
                         << '\n';
                status = kFinding;
                continue;
            }
            const auto verdict = gateVerdict(run.model + " " + gate, rows.front().latency.sample(),
                                             row.latency.sample(), *options.failIfSlower);
            if (!verdict.text.empty())
                cliErr() << "pyrometer-cli: " << verdict.text << '\n';
            if (verdict.fails)
                status = kFinding;
        }
    }
    if (options.maxAccuracyDrop) {
        for (const auto &failure : accuracyFailures(report.value(), gate, *options.maxAccuracyDrop)) {
            cliErr() << "pyrometer-cli: " << run.model << ": " << failure << '\n';
            status = kFinding;
        }
    }
    return status;
}

} // namespace pyrometer::cli
