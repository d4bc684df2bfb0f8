// pyrometer-cli report INPUT... -o report.html|report.md: the summary, step breakdown, top
// operators, kernels and layers, advice and charts of traces and models, in one file; with
// --job, the report of a distributed job whose rank traces INPUT names.
#include "app/cli/analysisinput.h"
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/cli/jobinput.h"
#include "app/cli/variantoptions.h"
#include "core/model/latency.h"
#include "core/model/layerprofile.h"
#include "core/report/jobreport.h"
#include "core/report/modelreport.h"
#include "core/report/reportrender.h"
#include "core/report/snapshotreport.h"
#include "core/report/tracereport.h"
#include "core/snapshot/reader.h"
#include "core/util/format.h"

#include <iostream>

namespace pyrometer::cli {
namespace {

struct ReportCliOptions {
    std::vector<std::string> inputs;
    std::string output;
    std::string input; // model input shapes
    int warmup = 10;
    int iterations = 50;
    EngineOptions engine;
    std::size_t top = 15;
    std::string timeUnit = "auto";
    bool job = false;
    int threads = 0;
};

// Times and profiles a model as the Model page's Run profile does.
std::optional<std::vector<report::Section>> modelSections(const std::string &model, const ReportCliOptions &options,
                                                          const report::ReportOptions &reportOptions, const std::string &prefix)
{
    const auto engine = engineFrom(model, options.engine);
    if (!engine)
        return std::nullopt;
    model::RunOptions run;
    auto inputs = parseInputOption(model, options.input);
    if (!inputs)
        return std::nullopt;
    run.inputs = std::move(*inputs);
    run.warmup = options.warmup;
    run.iterations = options.iterations;
    ProgressReporter progress;
    const RunStop stop(options.engine.timeout);
    auto profileRun = run;
    profileRun.warmup = 2;
    profileRun.iterations = std::min(options.iterations, 10);
    const auto measured = engine::measureAndProfile(*engine, model, run, profileRun, progress, stop.token());
    if (!measured.ok()) {
        badInput(stop.message(model, measured.error().message));
        return std::nullopt;
    }
    return report::modelSections(measured->latency, measured->profile, prefix, reportOptions);
}

// An allocator snapshot's sections: its figures, each device's peak and each OOM.
std::optional<std::vector<report::Section>>
snapshotReportSections(const std::string &file, const report::ReportOptions &reportOptions, const std::string &prefix)
{
    const auto loaded = loadSnapshotInput(file);
    if (!loaded)
        return std::nullopt;
    const auto &s = *loaded;
    const auto devices = snapshot::replay(s);
    return report::snapshotSections(s, devices, snapshot::oomReports(s, devices),
                                    std::filesystem::path(file).filename().string(), prefix, reportOptions);
}

// The job's sections, and its name for the title: the paths given, or the count of ranks when
// they are many files.
std::optional<std::vector<report::Section>> jobReportSections(const ReportCliOptions &options, const report::ReportOptions &reportOptions,
                                                        std::vector<std::string> &names, bool &ranksFailed)
{
    const auto job = loadJob(options.inputs, options.threads);
    if (!job)
        return std::nullopt;
    ranksFailed = !job->failedRanks.empty();
    if (options.inputs.size() > 3)
        names.push_back("a job of " + countOf(std::int64_t(job->ranks.size()), "rank"));
    else
        for (const auto &input : options.inputs)
            names.push_back(std::filesystem::path(input).filename().string());
    return report::jobSections(*job, "", reportOptions);
}

int runReport(const ReportCliOptions &options)
{
    const auto format = report::formatForPath(options.output);
    if (!format)
        return badInput(options.output + ": the report's name must end in .html or .md");
    const auto unit = timeUnitFromName(options.timeUnit);
    if (!unit)
        return badInput("--time-unit " + options.timeUnit + ": expected auto, ns, us, ms or s");
    report::ReportOptions reportOptions;
    reportOptions.topRows = options.top;
    reportOptions.timeUnit = *unit;

    std::vector<report::Section> sections;
    std::vector<std::string> names;
    bool ranksFailed = false; // the report is of the other ranks and names those that failed
    if (options.job) {
        auto job = jobReportSections(options, reportOptions, names, ranksFailed);
        if (!job)
            return kBadInput;
        sections = std::move(*job);
    }
    for (std::size_t i = 0; i < options.inputs.size() && !options.job; ++i) {
        const auto &input = options.inputs[i];
        const std::string prefix = options.inputs.size() > 1 ? "input" + std::to_string(i + 1) + "-" : "";
        std::optional<std::vector<report::Section>> more;
        if (snapshot::looksLikeSnapshot(input)) {
            more = snapshotReportSections(input, reportOptions, prefix);
        } else if (trace::classifyInput(input) == trace::InputKind::Model) {
            more = modelSections(input, options, reportOptions, prefix);
        } else if (const auto loaded = loadAnalysisInput(input)) {
            more = report::traceSections(*loaded->index, prefix, reportOptions);
            names.push_back(loaded->trace->info.file.filename().string());
        }
        if (!more)
            return kBadInput;
        if (names.size() < i + 1)
            names.push_back(std::filesystem::path(input).filename().string());
        sections.insert(sections.end(), std::make_move_iterator(more->begin()), std::make_move_iterator(more->end()));
    }
    const auto written = report::writeReport(report::makeReport(names, std::move(sections)), options.output, *format);
    if (!written.ok())
        return badInput(written.error().message);
    cliErr() << "pyrometer-cli: wrote " << options.output << "\n";
    return ranksFailed ? kBadInput : kSuccess;
}

} // namespace

void setupReport(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<ReportCliOptions>();
    command
        .add_option("INPUT", options->inputs,
                    "Traces (.json, .json.gz, log directories), TorchScript models and allocator "
                    "snapshots (.pickle, .pickle.gz); with --job, "
                    "a distributed job's rank traces or their folder")
        ->required();
    command.add_flag("--job", options->job, "INPUT is one distributed job: its ranks side by side, the straggler, the collectives");
    addCountOption(command, "--threads", options->threads, 0, "--job: ranks loaded at once; 0: one per core");
    command.add_option("-o,--output", options->output, "The report: .html (self-contained) or .md")->required();
    command.add_option("--input", options->input, "Models' input shapes, 1x3x224x224 (default: as the model records)");
    addEngineOptions(command, &options->engine);
    addCountOption(command, "--warmup", options->warmup, 0, "Models: untimed runs after the cold one");
    addCountOption(command, "--iters", options->iterations, 1, "Models: timed runs");
    addCountOption(command, "--top", options->top, 1, "Rows of the operator, kernel and layer tables");
    addChoiceOption<std::string>(command, "--time-unit", options->timeUnit,
                                 {{"auto", "auto"}, {"ns", "ns"}, {"us", "us"}, {"ms", "ms"}, {"s", "s"}}, "Durations in auto, ns, us, ms or s");
    command.callback([options, exitCode] { *exitCode = runReport(*options); });
}

} // namespace pyrometer::cli
