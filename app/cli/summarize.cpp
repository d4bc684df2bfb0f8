// pyrometer-cli summarize TRACE -o RANK.summary.json: what the job views need of one rank, where
// its trace lies (one task of a cluster's job array). --list prints the traces a job's paths
// name, which a job array takes one per task.
#include "app/cli/arguments.h"
#include "app/cli/callcontext.h"
#include "app/cli/commands.h"
#include "app/cli/output.h"
#include "core/analysis/job.h"
#include "core/summary/jobsource.h"
#include "core/summary/summaryfile.h"

#include <filesystem>
#include <iostream>

namespace pyrometer::cli {
namespace {

namespace fs = std::filesystem;

struct SummarizeOptions {
    std::vector<std::string> paths;
    std::string output;
    bool list = false;
};

int listTraces(const SummarizeOptions &options)
{
    const auto files = analysis::jobFiles(std::vector<fs::path>(options.paths.begin(), options.paths.end()));
    if (!files.ok())
        return badInput(files.error().message);
    for (const auto &file : files.value()) {
        if (summary::isSummaryFile(file))
            continue; // summarised already
        cliOut() << fs::absolute(file).lexically_normal().string() << '\n';
    }
    return kSuccess;
}

int runSummarize(const SummarizeOptions &options)
{
    if (options.list)
        return listTraces(options);
    if (options.paths.size() != 1)
        return badInput("summarize takes one trace file (--list names the traces of a folder)");
    const fs::path file = options.paths.front();
    std::error_code error;
    if (fs::is_directory(file, error))
        return badInput(file.string() + ": a folder; summarize takes one trace file (--list names the traces in it)");
    if (summary::isSummaryFile(file))
        return badInput(file.string() + ": a summary already, not a trace");
    const auto summarised = summary::summariseTraceFile(file);
    if (!summarised.ok())
        return badInput(summarised.error().message);
    const auto &rank = summarised.value();
    if (options.output.empty() || options.output == "-") {
        cliOut() << summary::rankSummaryJson(rank);
        return kSuccess;
    }
    const auto written = summary::writeRankSummary(options.output, rank);
    if (!written.ok())
        return badInput(written.error().message);
    return kSuccess;
}

} // namespace

void setupSummarize(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<SummarizeOptions>();
    command.add_option("TRACE", options->paths, "The rank's trace file; with --list, folders or files of a job")
        ->required();
    command.add_option("-o,--output", options->output,
                       "Where to write the summary (NAME.summary.json); - or none: stdout");
    command.add_flag("--list", options->list,
                     "Print the trace files that the paths name, one absolute path a line (one job-array task each)");
    command.callback([options, exitCode] { *exitCode = runSummarize(*options); });
}

} // namespace pyrometer::cli
