// pyrometer-cli ranks PATH...: a distributed job's ranks side by side, the rank that holds the
// others back, and the collectives with their bandwidth.
#include "app/cli/analysisinput.h"
#include "app/cli/arguments.h"
#include "app/cli/commands.h"
#include "app/cli/jobinput.h"
#include "core/analysis/collectivematch.h"
#include "core/report/jobreport.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

namespace pyrometer::cli {
namespace {

struct RanksOptions {
    std::vector<std::string> paths;
    Format format = Format::Table;
    bool failOnStraggler = false;
    int threads = 0;
};

std::int64_t at(const std::vector<std::int64_t> &values, std::size_t i)
{
    return i < values.size() ? values[i] : 0;
}

nlohmann::json rankJson(const analysis::JobFigures &job, std::size_t i)
{
    const auto &rank = job.ranks[i];
    return {{"rank", rank.rank},
            {"file", rank.file},
            {"steps", rank.stepCount()},
            {"step_time_us", rank.stepTimeUs},
            {"window_us", micros(rank.windowNs())},
            {"compute_us", micros(rank.computeNs)},
            {"communication_us", micros(rank.communicationNs)},
            {"memory_us", micros(rank.memoryNs)},
            {"idle_us", micros(rank.idleNs)},
            {"overlap_us", micros(rank.overlapNs)},
            {"overlap_pct", rank.overlapPct},
            {"compute_only_us", micros(rank.computeOnlyNs)},
            {"hidden_communication_us", micros(rank.hiddenCommunicationNs)},
            {"exposed_communication_us", micros(rank.exposedCommunicationNs)},
            {"memory_only_us", micros(rank.memoryOnlyNs)},
            {"compute_per_step_us", rank.computePerStepUs()},
            {"wait_us", micros(at(job.waitNs, i))},
            {"clock_offset_us", micros(at(job.clockOffsetNs, i))},
            {"cpu_only", rank.cpuOnly}};
}

// Bandwidths are unknown, not zero, when the message size is.
nlohmann::json collectiveJson(const analysis::CollectiveRow &row)
{
    const bool known = row.bytes >= 0;
    nlohmann::json json{{"name", row.name},
                        {"bytes", known ? nlohmann::json(row.bytes) : nlohmann::json(nullptr)},
                        {"group_size", row.groupSize},
                        {"calls", row.calls},
                        {"time_us", micros(row.timeNs)},
                        {"algbw_gbps", known ? nlohmann::json(row.algbwGBps) : nlohmann::json(nullptr)},
                        {"busbw_gbps", known ? nlohmann::json(row.busbwGBps) : nlohmann::json(nullptr)}};
    if (row.rank >= 0)
        json["rank"] = row.rank;
    if (!row.group.empty() || !row.groupRanks.empty()) {
        json["group"] = row.group;
        json["group_description"] = row.groupDesc;
        json["group_ranks"] = row.groupRanks;
    }
    return json;
}

nlohmann::json jobJson(const analysis::JobFigures &job)
{
    nlohmann::json ranks = nlohmann::json::array();
    for (std::size_t i = 0; i < job.ranks.size(); ++i)
        ranks.push_back(rankJson(job, i));
    nlohmann::json stragglers = nlohmann::json::array();
    nlohmann::json reasons = nlohmann::json::array();
    for (const auto &s : job.stragglers) {
        stragglers.push_back(s.rank);
        reasons.push_back({{"rank", s.rank},
                           {"reason", s.reason},
                           {"compute_per_step_us", s.computePerStepUs},
                           {"others_median_us", s.othersMedianUs},
                           {"ratio", s.ratio}});
    }
    nlohmann::json collectives = nlohmann::json::array();
    for (const auto &row : job.collectives)
        collectives.push_back(collectiveJson(row));
    nlohmann::json byRank = nlohmann::json::array();
    for (const auto &row : job.collectivesByRank)
        byRank.push_back(collectiveJson(row));
    nlohmann::json failed = nlohmann::json::array();
    for (const auto &f : job.failedRanks)
        failed.push_back({{"rank", f.rank}, {"file", f.file}, {"message", f.message}});
    return {{"world_size", job.worldSize},   {"backend", job.backend},       {"ranks", ranks},
            {"stragglers", stragglers},      {"straggler_reasons", reasons}, {"collectives", collectives},
            {"collectives_by_rank", byRank}, {"anchor", job.anchor},         {"problems", job.problems},
            {"failed_ranks", failed},        {"notes", job.notes}};
}

TextTable ranksTable(const analysis::JobFigures &job, Format format)
{
    TextTable text;
    text.header = {"rank",      "steps",   "step us",   "compute us", "comm us", "exposed comm us",
                   "memory us", "idle us", "overlap %", "wait us",    "file"};
    text.rightAligned.assign(text.header.size(), true);
    text.rightAligned.back() = false;
    // Narrow terminals keep the rank, its step time, compute, exposed communication and wait.
    text.dropFirst = {"file", "memory us", "idle us", "steps", "comm us", "overlap %"};
    for (std::size_t i = 0; i < job.ranks.size(); ++i) {
        const auto &rank = job.ranks[i];
        text.rows.push_back(
            {rank.rank >= 0 ? std::to_string(rank.rank) : "?", std::to_string(rank.stepCount()),
             fixed(rank.stepTimeUs, format == Format::Table ? 1 : 3), microsText(rank.computeNs, format),
             microsText(rank.communicationNs, format), microsText(rank.exposedCommunicationNs, format),
             microsText(rank.memoryNs, format), microsText(rank.idleNs, format), fixed(rank.overlapPct, 1),
             microsText(at(job.waitNs, i), format),
             // A terminal has room for the name; csv and md keep the path as given.
             format == Format::Table ? std::filesystem::path(rank.file).filename().string() : rank.file});
    }
    return text;
}

// Rows per process group where the traces name groups; without, the group columns are left out.
TextTable collectivesTable(const analysis::JobFigures &job, Format format)
{
    const bool grouped = std::any_of(job.collectives.begin(), job.collectives.end(), [](const auto &row) {
        return !row.group.empty() || !row.groupRanks.empty();
    });
    TextTable text;
    text.header = {"collective", "bytes", "ranks", "calls", "time us", "algbw GB/s", "busbw GB/s"};
    if (grouped)
        text.header.insert(text.header.begin() + 1, {"group", "members"});
    text.rightAligned.assign(text.header.size(), true);
    text.rightAligned[0] = false;
    if (grouped)
        text.rightAligned[1] = text.rightAligned[2] = false;
    text.dropFirst = {"members", "ranks", "calls", "algbw GB/s"};
    for (const auto &row : job.collectives) {
        const bool known = row.bytes >= 0;
        std::vector<std::string> cells{row.name, known ? bytesText(row.bytes, format) : "?",
                                       row.groupSize > 0 ? std::to_string(row.groupSize) : "?",
                                       std::to_string(row.calls), microsText(row.timeNs, format),
                                       known ? fixed(row.algbwGBps, 2) : "-", known ? fixed(row.busbwGBps, 2) : "-"};
        if (grouped)
            cells.insert(cells.begin() + 1, {analysis::processGroupLabel(row.group, row.groupDesc), row.groupRanks});
        text.rows.push_back(std::move(cells));
    }
    return text;
}

void writeJobText(const analysis::JobFigures &job, Format format)
{
    writeTable(cliOut(), ranksTable(job, format), format);
    cliOut() << '\n';
    for (const auto &sentence : report::stragglerSentences(job))
        writeText(cliOut(), sentence, format);
    if (!job.collectives.empty()) {
        cliOut() << '\n';
        writeTable(cliOut(), collectivesTable(job, format), format);
    }
    cliOut() << '\n';
    for (const auto &problem : job.problems)
        writeText(cliOut(), "Problem: " + problem, format);
    for (const auto &note : job.notes)
        writeText(cliOut(), "Note: " + note, format);
    writeText(cliOut(), report::anchorSentence(job), format);
}

int runRanks(const RanksOptions &options)
{
    const auto job = loadJob(options.paths, options.threads);
    if (!job)
        return kBadInput;
    if (options.format == Format::Json)
        writeJson(cliOut(), jobJson(*job));
    else if (options.format == Format::Csv)
        writeTable(cliOut(), ranksTable(*job, options.format), options.format); // one table: the ranks
    else
        writeJobText(*job, options.format);
    if (!job->failedRanks.empty())
        return kBadInput; // the job is the other ranks; loadJob named the files that failed
    if (!options.failOnStraggler || job->stragglers.empty())
        return kSuccess;
    cliOut().flush();
    for (const auto &sentence : report::stragglerSentences(*job))
        cliErr() << "pyrometer-cli: " << sentence << '\n';
    return kFinding;
}

} // namespace

void setupRanks(CLI::App &command, int *exitCode)
{
    auto options = std::make_shared<RanksOptions>();
    command
        .add_option("PATH", options->paths,
                    "A folder of rank traces or rank summaries (a TensorBoard run folder counts), the files, or a merged job")
        ->required();
    command.add_flag("--fail-on-straggler", options->failOnStraggler,
                     "Exit with status 1 when a rank holds the others back");
    addCountOption(command, "--threads", options->threads, 0, "Ranks loaded at once; 0: one per core");
    addFormatOption(command, &options->format);
    command.callback([options, exitCode] { *exitCode = runRanks(*options); });
}

} // namespace pyrometer::cli
