// pyrometer-cli advise TRACE: findings, each with its evidence and the suggested fix.
#include "app/cli/analysisinput.h"
#include "app/cli/commands.h"
#include "core/analysis/advice.h"

#include <iostream>

namespace pyrometer::cli {
namespace {

struct AdviseOptions {
    std::string trace;
    Format format = Format::Table;
    bool failOnFinding = false;
};

int runAdvise(const AdviseOptions &options)
{
    const auto input = loadAnalysisInput(options.trace);
    if (!input)
        return kBadInput;
    explainNoOps(*input);
    const auto findings = analysis::adviseTrace(*input->index);
    const auto &trace = *input->trace;
    if (options.format == Format::Json) {
        nlohmann::json rows = nlohmann::json::array();
        for (const auto &f : findings) {
            nlohmann::json evidence = nlohmann::json::object();
            for (const auto &e : f.evidence)
                evidence[e.name] = e.value;
            nlohmann::json events = nlohmann::json::array();
            for (const auto &ref : f.events) {
                const auto &track = trace.track(ref.track);
                events.push_back({{"name", trace.string(track.eventName[ref.event.value])},
                                  {"track", track.name},
                                  {"start_us", micros(track.start[ref.event.value])},
                                  {"duration_us", micros(track.duration[ref.event.value])}});
            }
            rows.push_back({{"rule", f.rule},
                            {"title", f.title},
                            {"detail", f.detail},
                            {"evidence", evidence},
                            {"events", events},
                            {"start_us", micros(f.startNs)},
                            {"end_us", micros(f.endNs)},
                            {"fix", f.fix}});
        }
        writeJson(cliOut(), {{"rows", rows}});
    } else {
        TextTable text{{"rule", "finding", "evidence", "range us", "fix"}, {}, {}, {false, true, true, false, true}};
        for (const auto &f : findings) {
            std::string evidence;
            for (const auto &e : f.evidence)
                evidence += (evidence.empty() ? "" : ", ") + e.name + "=" + fixed(e.value, e.unit == "count" ? 0 : 2);
            text.rows.push_back({f.rule, f.detail, evidence, instantText(f.startNs, *input, options.format) + ":" + instantText(f.endNs, *input, options.format), f.fix});
        }
        writeTable(cliOut(), text, options.format);
    }
    return options.failOnFinding && !findings.empty() ? kFinding : kSuccess;
}

} // namespace

void setupAdvise(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<AdviseOptions>();
    command.add_option("TRACE", options->trace, "A .json or .json.gz trace, or a TensorBoard log directory")
        ->required();
    command.add_flag("--fail-on-finding", options->failOnFinding, "Exit 1 when any rule fires");
    addFormatOption(command, &options->format);
    command.callback([options, exitCode] { *exitCode = runAdvise(*options); });
}

} // namespace pyrometer::cli
