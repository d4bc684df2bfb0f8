// pyrometer-cli compare MODEL --variants ...: optimized variants against the baseline, with a
// regression gate; or compare BASE.json OTHER.json: two saved per-layer profiles
// (`pyrometer-cli profile --format json`).
#include "app/cli/analysisinput.h"
#include "app/cli/commands.h"
#include "app/cli/compareoptions.h"
#include "core/model/layerdelta.h"

#include <fstream>
#include <iostream>

namespace pyrometer::cli {

GateVerdict gateVerdict(const std::string &what, const Sample &base, const Sample &other, double limitPercent)
{
    if (base.mean <= 0)
        return {};
    const double slower = (other.mean / base.mean - 1.0) * 100.0;
    if (slower <= limitPercent)
        return {};
    char buffer[384];
    std::snprintf(buffer, sizeof buffer, "%s is %.2f%% slower than the baseline (%.3f ms vs %.3f ms; limit %.2f%%)",
                  what.c_str(), slower, other.mean, base.mean, limitPercent);
    std::string text = buffer;
    // Slower than the limit by the means, yet the runs cannot tell it from within the limit: not a
    // failure.
    const double limitRatio = 1.0 + limitPercent / 100.0;
    if (const auto ratio = ratioInterval(other, base); reachesLimit(ratio, limitPercent)) {
        std::snprintf(
            buffer, sizeof buffer,
            ", but within noise: the 95%% confidence interval of the ratio, %.3f to %.3f (%zu and %zu timed runs), "
            "reaches the limit's %.3f; more runs would tell",
            ratio->low, ratio->high, base.n, other.n, limitRatio);
        return {false, text + buffer};
    }
    return {true, text};
}

namespace {

// A saved profile: its per-layer rows and its timed runs' latency.
struct SavedProfile {
    std::vector<model::LayerRow> rows;
    std::optional<Sample> latency; // none in files written before the runs were saved
};

// `pyrometer-cli profile --format json`, or an Error naming the file.
Result<SavedProfile> readProfileJson(const std::string &path)
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
    SavedProfile saved;
    auto &rows = saved.rows;
    try {
        if (const auto latency = json.find("latency_ms"); latency != json.end() && latency->is_object() &&
                                                          json.contains("iterations") &&
                                                          json["iterations"].is_number_integer())
            saved.latency = Sample{latency->at("mean").get<double>(), latency->at("std").get<double>(),
                                   std::size_t(std::max(0, json["iterations"].get<int>()))};
        for (const auto &layer : json["layers"]) {
            model::LayerRow row;
            row.module = layer.at("module").get<std::string>();
            row.type = layer.value("type", "");
            row.depth = layer.value("depth", 0);
            row.totalMs = layer.at("total_ms").get<double>();
            row.selfMs = layer.value("self_ms", 0.0);
            rows.push_back(std::move(row));
        }
    } catch (const nlohmann::json::exception &error) {
        return Error{
            path + ": a layer without \"module\" or \"total_ms\" (or a latency without mean and std): " + error.what()};
    }
    return saved;
}

int compareProfiles(const CompareCliOptions &options)
{
    const auto base = readProfileJson(options.files[0]);
    if (!base.ok())
        return badInput(base.error().message);
    const auto other = readProfileJson(options.files[1]);
    if (!other.ok())
        return badInput(other.error().message);
    const auto deltas = model::layerDeltas(base->rows, other->rows);
    const auto presence = [](const model::LayerDelta &d) {
        return d.inBase && d.inOther ? "both" : d.inBase ? "base only" : "other only";
    };
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
        writeJson(cliOut(), {{"base", options.files[0]}, {"other", options.files[1]}, {"rows", rows}});
    } else {
        TextTable table{{"module", "type", "base ms", "other ms", "delta ms", "delta %", "presence"},
                        {},
                        {false, false, true, true, true, true, false}};
        // Narrow terminals keep the module and its delta.
        table.dropFirst = {"presence", "type", "base ms", "other ms"};
        for (const auto &d : deltas)
            table.rows.push_back({std::string(std::size_t(std::max(0, d.depth)) * 2, ' ') + (d.module.empty() ? "(model)" : d.module), d.type,
                                  fixed(d.baseMs), fixed(d.otherMs), fixed(d.deltaMs), deltaPercentText(d.deltaPercent, 1), presence(d)});
        writeTable(cliOut(), table, options.run.format);
    }
    if (!options.failIfSlower)
        return kSuccess;
    // The timed runs judge, with their noise; files without them, the profiled forward passes.
    GateVerdict verdict;
    if (base->latency && other->latency)
        verdict = gateVerdict(options.files[1], *base->latency, *other->latency, *options.failIfSlower);
    else if (!deltas.empty() && deltas.front().inBase && deltas.front().inOther)
        verdict = gateVerdict(options.files[1], {deltas.front().baseMs, 0, 1}, {deltas.front().otherMs, 0, 1},
                              *options.failIfSlower);
    if (!verdict.text.empty())
        cliErr() << "pyrometer-cli: " << verdict.text << '\n';
    return verdict.fails ? kFinding : kSuccess;
}

bool isJsonFile(const std::string &path)
{
    return path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

} // namespace

void setupCompare(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<CompareCliOptions>();
    command.add_option("MODEL", options->files, "A model (TorchScript .pt; .pt2 or model.py:factory in the Python engine); or two per-layer profiles BASE.json OTHER.json")
        ->required()
        ->expected(1, 2);
    command.add_option("--fail-if-slower", options->failIfSlower,
                       "Exit 1 when the gated variant (or OTHER.json's forward pass) is slower than the baseline by "
                       "more than PCT percent");
    command.add_option(
        "--gate", options->gate,
        "The variant --fail-if-slower and --max-accuracy-drop judge (needed for --fail-if-slower when several are "
        "compared; --max-accuracy-drop judges every variant without it)");
    command.add_option(
        "--data", options->data,
        "Samples saved by torch.save (a tensor, or a tuple of one tensor per model input): each variant's top-1 "
        "agreement with the baseline, and its accuracy with --labels");
    command.add_option("--labels", options->labels,
                       "The samples' class labels, saved by torch.save as an int64 tensor");
    command
        .add_option(
            "--max-accuracy-drop", options->maxAccuracyDrop,
            "Exit 1 when a variant's top-1 accuracy is more than PCT points below the baseline's (without --labels: "
            "when more than PCT% of its predictions differ from the baseline's); needs --data")
        ->check(CLI::Range(0.0, 100.0));
    addModelRunOptions(command, &options->run, kEmbeddedVariants, 5, 20);
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
