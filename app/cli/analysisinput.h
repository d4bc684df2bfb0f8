#pragma once

// What the analysis subcommands (ops, kernels, steps, memory, flame, advise, diff) share:
// loading TRACE into a trace and its analysis index, --range, and number formatting.
#include "app/cli/callcontext.h"
#include "app/cli/output.h"
#include "app/cli/traceinput.h"
#include "core/analysis/timerange.h"
#include "core/analysis/traceindex.h"
#include "core/analysis/workclass.h"
#include "core/trace/loader.h"
#include "core/trace/tracesource.h"

#include <cstdio>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

namespace pyrometer::cli {

// Loads a trace file, or the trace pickTraceFile() chooses in a TensorBoard log directory
// (saying on stderr which). On failure prints one line naming the file and returns nothing.
inline std::optional<AnalysisInput> loadAnalysisInput(const std::string &path)
{
    if (const auto *context = callContext()) {
        auto input = context->documents->trace(path);
        if (!input)
            badInput(notOpenedMessage(path));
        return input;
    }
    const auto file = pickTraceFile(path);
    if (!file)
        return std::nullopt;
    auto loaded = trace::loadTrace(*file);
    if (!loaded.ok()) {
        badInput(loaded.error().message);
        return std::nullopt;
    }
    AnalysisInput input{loaded.value(), nullptr};
    input.index = analysis::buildTraceIndex(*input.trace);
    return input;
}

// Adds --range START_US:END_US, in µs from the trace's start: the instants the tables print
// and the Timeline's ruler shows.
inline void addRangeOption(CLI::App &command, std::string *range)
{
    command.add_option("--range", *range,
                       "Only events that start in START_US:END_US (µs from the trace's start, as tables print times)");
}

// Parses --range and moves it onto the trace's clock; prints a one-line error naming the trace
// when it is malformed. An open side stays open.
inline std::optional<analysis::TimeRange> parseRangeOption(const std::string &text, const AnalysisInput &input,
                                                           const std::string &tracePath)
{
    if (text.empty())
        return analysis::TimeRange::all();
    auto range = analysis::parseTimeRange(text);
    if (!range) {
        badInput(tracePath + ": --range " + text + ": expected START_US:END_US with START <= END");
        return range;
    }
    const auto origin = input.trace->info.spanStart;
    if (range->start != analysis::TimeRange::all().start)
        range->start += origin;
    if (range->end != analysis::TimeRange::all().end)
        range->end += origin;
    return range;
}

inline double micros(std::int64_t ns)
{
    return static_cast<double>(ns) / 1000.0;
}

// A delta percentage as text: "new" for a row the base does not have (nothing to divide by).
inline std::string deltaPercentText(const std::optional<double> &percent, int decimals)
{
    return percent ? fixed(*percent, decimals) : std::string("new");
}

// The same for json: null for a new row.
inline nlohmann::json deltaPercentJson(const std::optional<double> &percent)
{
    return percent ? nlohmann::json(*percent) : nlohmann::json(nullptr);
}

// Microseconds as text: to the nanosecond in csv and md (for scripts and reports), to a tenth
// of a microsecond in a terminal table, where the width is better spent on names.
inline std::string microsText(std::int64_t ns, Format format)
{
    return fixed(micros(ns), format == Format::Table ? 1 : 3);
}

// An instant as text: µs from the trace's start, as the Timeline shows it (json keeps the
// trace's own ts).
inline std::string instantText(std::int64_t ns, const AnalysisInput &input, Format format)
{
    return microsText(ns - input.trace->info.spanStart, format);
}

// For subcommands about device work: on a trace without any, says why on stderr (an empty table
// with no word looks like a failure).
inline void explainNoDeviceWork(const AnalysisInput &input)
{
    if (!input.index->hasDevice)
        cliErr() << "note: " << analysis::noDeviceWorkText(*input.index) << '\n';
}

// For subcommands about operators: on a trace without any, says what it holds instead.
inline void explainNoOps(const AnalysisInput &input)
{
    std::uint64_t python = 0;
    bool ops = false;
    for (const auto &track : input.index->tracks) {
        ops = ops || track.hasOps;
        for (const auto kind : track.kind)
            python += kind == analysis::EventKind::Python ? 1 : 0;
    }
    if (ops)
        return;
    if (python > 0)
        cliErr() << "note: this trace holds no operators (cpu_op or user_annotation), only " << python
                 << " Python frames (python_function): flame --events python shows them\n";
    else
        cliErr() << "note: this trace holds no operators (cpu_op or user_annotation)\n";
}

} // namespace pyrometer::cli
