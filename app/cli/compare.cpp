// pyrometer-cli compare MODEL --variants ...: optimized variants against the baseline, with a
// regression gate; or compare BASE.json OTHER.json: two saved per-layer profiles
// (`pyrometer-cli profile --format json`).
#include "app/cli/analysisinput.h"
#include "app/cli/commands.h"
#include "app/cli/variantoptions.h"
#include "core/torch/layerdelta.h"

#include <fstream>
#include <iostream>

namespace pyrometer::cli {
namespace {

struct CompareCliOptions {
    ModelRunOptions run;
    std::vector<std::string> files;
    std::optional<double> failIfSlower;
    std::string gate;
};

std::string optionalFixed(const std::optional<double> &value, int decimals)
{
    if (!value)
        return "";
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%.*g", decimals, *value);
    return buffer;
}

// A gate failure message, or empty when the gate passes.
std::string gateFailure(const std::string &what, double baseMs, double otherMs, double limitPercent)
{
    if (baseMs <= 0)
        return {};
    const double slower = (otherMs / baseMs - 1.0) * 100.0;
    if (slower <= limitPercent)
        return {};
    char buffer[256];
    std::snprintf(buffer, sizeof buffer, "%s is %.2f%% slower than the baseline (%.3f ms vs %.3f ms; limit %.2f%%)", what.c_str(), slower,
                  otherMs, baseMs, limitPercent);
    return buffer;
}

int compareModelVariants(const CompareCliOptions &options)
{
    auto run = options.run;
    run.model = options.files.front();
    const auto parsed = parseModelRun(run);
    if (!parsed)
        return kBadInput;
    torch::CompareOptions compare;
    compare.inputs = parsed->inputs;
    compare.variants = parsed->variants;
    compare.warmup = run.warmup;
    compare.iterations = run.iterations;
    std::string gate = options.gate;
    if (options.failIfSlower && gate.empty()) {
        std::vector<std::string> others;
        for (const auto &variant : compare.variants)
            if (variant != torch::Variant{})
                others.push_back(torch::variantName(variant));
        if (others.size() != 1)
            return badInput(run.model + ": --fail-if-slower needs --gate VARIANT to say which variant it judges");
        gate = others.front();
    }
    if (!gate.empty()) {
        const auto gated = torch::parseVariants(gate);
        if (!gated.ok() || gated->size() != 1)
            return badInput(run.model + ": --gate \"" + gate + "\": not one variant name");
        gate = torch::variantName(gated->front());
        if (std::find(compare.variants.begin(), compare.variants.end(), gated->front()) == compare.variants.end())
            compare.variants.push_back(gated->front());
    }
    ProgressReporter progress;
    const auto report = torch::compareVariants(run.model, compare, {}, progress, StopToken());
    if (!report.ok())
        return badInput(report.error().message);
    const auto &rows = report->rows;
    if (run.format == Format::Json) {
        nlohmann::json json = nlohmann::json::array();
        for (const auto &row : rows) {
            nlohmann::json entry{{"variant", row.name},
                                 {"latency_ms", row.latency.mean},
                                 {"p50_ms", row.latency.p50},
                                 {"p90_ms", row.latency.p90},
                                 {"throughput_per_s", row.throughputPerSecond},
                                 {"speedup", row.speedup},
                                 {"model_bytes", row.modelBytes},
                                 {"max_abs_diff", row.maxAbsDiff ? nlohmann::json(*row.maxAbsDiff) : nlohmann::json()},
                                 {"relative_error", row.relativeError ? nlohmann::json(*row.relativeError) : nlohmann::json()}};
            if (!row.error.empty()) {
                entry["error"] = row.error;
                for (const char *measured : {"latency_ms", "p50_ms", "p90_ms", "throughput_per_s", "speedup", "model_bytes"})
                    entry[measured] = nullptr; // not measured, rather than zero
            }
            if (!row.note.empty())
                entry["note"] = row.note;
            json.push_back(std::move(entry));
        }
        writeJson(std::cout, {{"model", run.model},
                              {"input", torch::formatInputSpecs(report->inputs)},
                              {"quantized_engines", report->quantizationEngines},
                              {"rows", json}});
    } else {
        TextTable table{{"variant", "latency ms", "p90 ms", "speedup", "model bytes", "max abs diff", "rel error", "note"},
                        {},
                        {false, true, true, true, true, true, true, false},
                        {false, false, false, false, false, false, false, true}};
        // Narrow terminals keep the variant, its latency and speedup.
        table.dropFirst = {"p90 ms", "rel error", "max abs diff", "model bytes"};
        for (const auto &row : rows) {
            if (!row.ok()) {
                table.rows.push_back({row.name, "", "", "", "", "", "", "failed: " + row.error});
                continue;
            }
            table.rows.push_back({row.name, fixed(row.latency.mean), fixed(row.latency.p90), fixed(row.speedup, 2) + "x",
                                  bytesText(row.modelBytes, run.format), optionalFixed(row.maxAbsDiff, 3), optionalFixed(row.relativeError, 3),
                                  row.note});
        }
        writeTable(std::cout, table, run.format);
    }
    if (options.failIfSlower) {
        for (const auto &row : rows) {
            if (row.name != gate)
                continue;
            if (!row.ok()) {
                std::fprintf(stderr, "pyrometer-cli: %s: the gated variant %s failed: %s\n", run.model.c_str(), gate.c_str(),
                             row.error.c_str());
                return kFinding;
            }
            const auto failure = gateFailure(run.model + " " + gate, rows.front().latency.mean, row.latency.mean, *options.failIfSlower);
            if (!failure.empty()) {
                std::fprintf(stderr, "pyrometer-cli: %s\n", failure.c_str());
                return kFinding;
            }
        }
    }
    return kSuccess;
}

// The per-layer rows of `pyrometer-cli profile --format json`, or an Error naming the file.
Result<std::vector<torch::LayerRow>> readProfileJson(const std::string &path)
{
    std::ifstream file(path);
    if (!file)
        return Error{path + ": cannot be opened"};
    nlohmann::json json;
    try {
        json = nlohmann::json::parse(file);
    } catch (const nlohmann::json::exception &error) {
        return Error{path + ": not JSON: " + error.what()};
    }
    if (!json.is_object() || !json.contains("layers") || !json["layers"].is_array())
        return Error{path + ": not a per-layer profile (no \"layers\" array; write one with pyrometer-cli profile --format json)"};
    std::vector<torch::LayerRow> rows;
    try {
        for (const auto &layer : json["layers"]) {
            torch::LayerRow row;
            row.module = layer.at("module").get<std::string>();
            row.type = layer.value("type", "");
            row.depth = layer.value("depth", 0);
            row.totalMs = layer.at("total_ms").get<double>();
            row.selfMs = layer.value("self_ms", 0.0);
            rows.push_back(std::move(row));
        }
    } catch (const nlohmann::json::exception &error) {
        return Error{path + ": a layer without \"module\" or \"total_ms\": " + error.what()};
    }
    return rows;
}

int compareProfiles(const CompareCliOptions &options)
{
    const auto base = readProfileJson(options.files[0]);
    if (!base.ok())
        return badInput(base.error().message);
    const auto other = readProfileJson(options.files[1]);
    if (!other.ok())
        return badInput(other.error().message);
    const auto deltas = torch::layerDeltas(base.value(), other.value());
    const auto presence = [](const torch::LayerDelta &d) { return d.inBase && d.inOther ? "both" : d.inBase ? "base only" : "other only"; };
    if (options.run.format == Format::Json) {
        nlohmann::json rows = nlohmann::json::array();
        for (const auto &d : deltas)
            rows.push_back({{"module", d.module},
                            {"type", d.type},
                            {"depth", d.depth},
                            {"base_ms", d.baseMs},
                            {"other_ms", d.otherMs},
                            {"delta_ms", d.deltaMs},
                            {"delta_pct", deltaPercentJson(d.deltaPercent)},
                            {"presence", presence(d)}});
        writeJson(std::cout, {{"base", options.files[0]}, {"other", options.files[1]}, {"rows", rows}});
    } else {
        TextTable table{{"module", "type", "base ms", "other ms", "delta ms", "delta %", "presence"},
                        {},
                        {false, false, true, true, true, true, false}};
        // Narrow terminals keep the module and its delta.
        table.dropFirst = {"presence", "type", "base ms", "other ms"};
        for (const auto &d : deltas)
            table.rows.push_back({std::string(std::size_t(std::max(0, d.depth)) * 2, ' ') + (d.module.empty() ? "(model)" : d.module), d.type,
                                  fixed(d.baseMs), fixed(d.otherMs), fixed(d.deltaMs), deltaPercentText(d.deltaPercent, 1), presence(d)});
        writeTable(std::cout, table, options.run.format);
    }
    if (options.failIfSlower && !deltas.empty() && deltas.front().inBase && deltas.front().inOther) {
        const auto failure = gateFailure(options.files[1], deltas.front().baseMs, deltas.front().otherMs, *options.failIfSlower);
        if (!failure.empty()) {
            std::fprintf(stderr, "pyrometer-cli: %s\n", failure.c_str());
            return kFinding;
        }
    }
    return kSuccess;
}

bool isJsonFile(const std::string &path)
{
    return path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

} // namespace

void setupCompare(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<CompareCliOptions>();
    command.add_option("MODEL", options->files, "A TorchScript model; or two per-layer profiles BASE.json OTHER.json")
        ->required()
        ->expected(1, 2);
    command.add_option("--fail-if-slower", options->failIfSlower,
                       "Exit 1 when the gated variant (or OTHER.json's forward pass) is slower than the baseline by more than PCT percent");
    command.add_option("--gate", options->gate, "The variant --fail-if-slower judges (needed when several are compared)");
    addModelRunOptions(command, &options->run, "baseline,frozen,channels_last,int8,int8_static,bf16", 5, 20);
    command.callback([options, exitCode] {
        if (options->files.size() == 2 && isJsonFile(options->files[0]) && isJsonFile(options->files[1]))
            *exitCode = compareProfiles(*options);
        else if (options->files.size() == 2)
            *exitCode = badInput(options->files[1] + ": compare takes one model, or two profile JSON files (pyrometer-cli profile --format json)");
        else
            *exitCode = compareModelVariants(*options);
    });
}

} // namespace pyrometer::cli
