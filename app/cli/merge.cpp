// pyrometer-cli merge SUMMARY... -o job.json: rank summaries (and merged jobs) reduced into one
// file that opens like a job. Associative: merged files merge again like their parts.
#include "app/cli/callcontext.h"
#include "app/cli/commands.h"
#include "app/cli/output.h"
#include "core/analysis/job.h"
#include "core/summary/summaryfile.h"

#include <filesystem>
#include <iostream>

namespace pyrometer::cli {
namespace {

namespace fs = std::filesystem;

struct MergeOptions {
    std::vector<std::string> inputs;
    std::string output;
};

int runMerge(const MergeOptions &options)
{
    const auto files = analysis::jobFiles(std::vector<fs::path>(options.inputs.begin(), options.inputs.end()));
    if (!files.ok())
        return badInput(files.error().message);
    std::vector<summary::JobSummary> parts;
    for (const auto &file : files.value()) {
        if (!summary::isSummaryFile(file))
            return badInput(file.string() + ": a trace, not a summary (make one with pyrometer-cli summarize)");
        auto read = summary::readSummary(file);
        if (!read.ok())
            return badInput(read.error().message);
        parts.push_back(std::move(read).value());
    }
    const auto job = summary::merge(std::move(parts));
    if (options.output.empty() || options.output == "-") {
        cliOut() << summary::jobSummaryJson(job);
        return kSuccess;
    }
    const auto written = summary::writeJobSummary(options.output, job);
    if (!written.ok())
        return badInput(written.error().message);
    cliErr() << "pyrometer-cli: merged " << job.ranks.size() << (job.ranks.size() == 1 ? " rank" : " ranks") << " into "
             << options.output << '\n';
    return kSuccess;
}

} // namespace

void setupMerge(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<MergeOptions>();
    command.add_option("SUMMARY", options->inputs, "Rank summaries, merged jobs, or folders of *.summary.json")
        ->required();
    command.add_option("-o,--output", options->output, "The merged job (opens like a job); - or none: stdout");
    command.callback([options, exitCode] { *exitCode = runMerge(*options); });
}

} // namespace pyrometer::cli
