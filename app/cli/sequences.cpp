// pyrometer-cli sequences TRACE: runs of kernels that repeat on a stream, with the ops that
// launched them: candidates for fusion or CUDA graphs.
#include "app/cli/analysisinput.h"
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "core/analysis/kernelnames.h"
#include "core/analysis/kernelsequences.h"

#include <iostream>

namespace pyrometer::cli {
namespace {

struct SequencesOptions {
    std::string trace;
    Format format = Format::Table;
    analysis::SequenceOptions sequence;
    std::string range;
};

std::string joined(const std::vector<std::string> &names, const std::string &separator)
{
    std::string text;
    for (const auto &name : names)
        text += (text.empty() ? "" : separator) + name;
    return text;
}

int runSequences(SequencesOptions options)
{
    const auto input = loadAnalysisInput(options.trace);
    if (!input)
        return kBadInput;
    const auto range = parseRangeOption(options.range, *input, options.trace);
    if (!range)
        return kBadInput;
    if (options.sequence.minLength > options.sequence.maxLength)
        return badInput(options.trace + ": --min-length is above --max-length");
    options.sequence.range = *range;
    const auto sequences = analysis::findKernelSequences(*input->index, options.sequence);
    if (options.format == Format::Json) {
        nlohmann::json rows = nlohmann::json::array();
        for (const auto &s : sequences)
            rows.push_back({{"kernels", s.kernels},
                            {"ops", s.ops},
                            {"length", s.kernels.size()},
                            {"device", s.device},
                            {"stream", s.stream},
                            {"occurrences", s.occurrences},
                            {"total_us", micros(s.totalNs)},
                            {"gap_us", micros(s.gapNs)},
                            {"replayed_pct", s.replayedPct}});
        writeJson(cliOut(), {{"rows", rows}});
        return kSuccess;
    }
    TextTable text;
    text.header = {"length", "occurrences", "stream", "total us", "gaps us", "graph %", "kernels", "ops"};
    text.rightAligned = {true, true, true, true, true, true, false, false};
    text.dropFirst = {"ops", "gaps us", "graph %", "stream"};
    for (const auto &s : sequences) {
        std::vector<std::string> names;
        for (const auto &k : s.kernels)
            names.push_back(options.format == Format::Csv ? k : analysis::shortKernelName(k, 48));
        text.rows.push_back({std::to_string(s.kernels.size()), std::to_string(s.occurrences), std::to_string(s.stream),
                             microsText(s.totalNs, options.format), microsText(s.gapNs, options.format),
                             fixed(s.replayedPct, 0), joined(names, " > "), joined(s.ops, " > ")});
    }
    writeTable(cliOut(), text, options.format);
    return kSuccess;
}

} // namespace

void setupSequences(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<SequencesOptions>();
    command.add_option("TRACE", options->trace, "A .json or .json.gz trace, or a TensorBoard log directory")
        ->required();
    addCountOption(command, "--top", options->sequence.top, 1, "The N most frequent sequences");
    addCountOption(command, "--min-length", options->sequence.minLength, 2, "Kernels in a sequence, at least");
    addCountOption(command, "--max-length", options->sequence.maxLength, 2, "Kernels in a sequence, at most");
    addCountOption(command, "--min-count", options->sequence.minOccurrences, 2, "Repeats of a sequence, at least");
    addRangeOption(command, &options->range);
    addFormatOption(command, &options->format);
    command.callback([options, exitCode] { *exitCode = runSequences(*options); });
}

} // namespace pyrometer::cli
