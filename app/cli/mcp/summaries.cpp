#include "app/cli/mcp/summaries.h"

#include <cmath>
#include <cstdio>
#include <functional>

namespace pyrometer::cli::mcp {
namespace {

// A figure as the JSON has it, to `decimals` places.
std::string figure(const nlohmann::json &value, int decimals = 1)
{
    if (value.is_number_integer())
        return std::to_string(value.get<long long>());
    if (!value.is_number())
        return value.is_string() ? value.get<std::string>() : value.dump();
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value.get<double>());
    return text;
}

const nlohmann::json &field(const nlohmann::json &object, const char *name)
{
    static const nlohmann::json kNull;
    if (!object.is_object())
        return kNull;
    const auto it = object.find(name);
    return it == object.end() ? kNull : *it;
}

std::string rowsText(const nlohmann::json &rows, std::size_t most,
                     const std::function<std::string(const nlohmann::json &)> &row)
{
    std::string text;
    for (std::size_t i = 0; i < rows.size() && i < most; ++i)
        text += (i ? "; " : "") + row(rows[i]);
    return text;
}

std::string count(std::size_t n, const std::string &word)
{
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string ops(const nlohmann::json &r)
{
    const auto &rows = field(r, "rows");
    return count(rows.size(), "operator row") + ", self time summed " + figure(field(r, "self_sum_us")) +
           " us. Most self time: " + rowsText(rows, 3, [](const auto &row) {
               return figure(field(row, "name")) + " " + figure(field(row, "self_us")) + " us (" +
                      figure(field(row, "self_pct")) + "%, " + figure(field(row, "calls")) + " calls)";
           });
}

std::string kernels(const nlohmann::json &r)
{
    const auto &rows = field(r, "rows");
    return count(rows.size(), "kernel row") + ", " + figure(field(r, "total_us")) +
           " us of device time. Most: " + rowsText(rows, 3, [](const auto &row) {
               return figure(field(row, "display_name")) + " " + figure(field(row, "total_us")) + " us (" +
                      figure(field(row, "pct")) + "%)";
           });
}

std::string steps(const nlohmann::json &r)
{
    std::string text =
        count(field(r, "rows").size(), "step") + ", mean " + figure(field(field(r, "mean_step"), "mean_us")) + " us.";
    for (const auto &device : field(field(r, "gpu_utilization"), "devices"))
        text += " Device " + figure(field(device, "device")) + " busy " +
                figure(field(device, "utilization").is_number()
                           ? nlohmann::json(field(device, "utilization").get<double>() * 100)
                           : field(device, "utilization")) +
                "% of the " + figure(field(field(r, "gpu_utilization"), "over")) + ".";
    return text;
}

std::string criticalPath(const nlohmann::json &r)
{
    return figure(field(r, "step")) + ": the critical path is " + figure(field(r, "length_us")) +
           " us: " + figure(field(r, "cpu_us")) + " us on the CPU, " + figure(field(r, "device_us")) +
           " us on the device, " + figure(field(r, "wait_us")) + " us waiting; " +
           count(field(r, "rows").size(), "row") + ".";
}

std::string memory(const nlohmann::json &r)
{
    return rowsText(field(r, "devices"), 8, [](const auto &device) {
        return "device " + figure(field(device, "device")) + ": peak " + figure(field(device, "peak_bytes")) + " bytes";
    });
}

std::string advise(const nlohmann::json &r)
{
    const auto &rows = field(r, "rows");
    if (rows.empty())
        return "No finding.";
    return count(rows.size(), "finding") + ": " +
           rowsText(rows, 5, [](const auto &row) { return figure(field(row, "detail")); }) + ".";
}

std::string idle(const nlohmann::json &r)
{
    const auto &total = field(r, "total");
    return "Device idle: " + figure(field(total, "host_wait_us")) + " us waiting for the host, " +
           figure(field(total, "kernel_wait_us")) + " us waiting for kernels, " + figure(field(total, "other_us")) +
           " us other.";
}

std::string launches(const nlohmann::json &r)
{
    const auto &queue = field(r, "queue");
    return count(field(r, "rows").size(), "launch") + "; the queue: " + figure(field(queue, "bound")) + ", empty " +
           figure(field(queue, "empty_us")) + " us, longest " + figure(field(r, "max_queue_length")) + ".";
}

std::string flops(const nlohmann::json &r)
{
    return figure(field(r, "model")) + " at " + figure(field(r, "input")) + ": " + figure(field(r, "params")) +
           " parameters, " + figure(field(r, "total_flops"), 0) + " FLOPs (" + figure(field(r, "total_macs"), 0) +
           " MACs) per forward, " + count(field(r, "rows").size(), "layer row") + ".";
}

std::string profile(const nlohmann::json &r)
{
    const auto &latency = field(r, "latency_ms");
    return figure(field(r, "model")) + " at " + figure(field(r, "input")) + " (" + figure(field(r, "engine")) +
           "): warm mean " + figure(field(latency, "mean"), 3) + " ms (p50 " + figure(field(latency, "p50"), 3) +
           ", p90 " + figure(field(latency, "p90"), 3) + "), cold " + figure(field(latency, "cold"), 3) + " ms, " +
           figure(field(r, "throughput_per_s")) + " per s; peak memory " + figure(field(r, "peak_memory_bytes")) +
           " bytes; " + count(field(r, "layers").size(), "layer row") + ".";
}

std::string snapshot(const nlohmann::json &r)
{
    std::string text = figure(field(r, "segments")) + " segments: reserved " + figure(field(r, "reserved_bytes")) +
                       " bytes, active " + figure(field(r, "active_bytes")) + ", peak active " +
                       figure(field(r, "peak_active_bytes")) + "; " + count(field(r, "ooms").size(), "OOM") + ".";
    const auto &at = field(r, "at");
    if (at.is_object())
        text += " At event " + figure(field(at, "event")) + ": " + figure(field(at, "active_bytes")) +
                " bytes active in " + count(field(at, "groups").size(), "group") + " by " + figure(field(at, "by")) +
                "; the largest: " +
                rowsText(field(at, "groups"), 2,
                         [](const auto &g) {
                             return figure(field(g, "key")) + " " + figure(field(g, "bytes")) + " bytes";
                         }) +
                ".";
    return text;
}

std::string diff(const nlohmann::json &r)
{
    const auto &total = field(r, "total");
    return "Total " + figure(field(total, "base_us")) + " -> " + figure(field(total, "other_us")) + " us (" +
           figure(field(total, "delta_pct")) + "%). Largest deltas: " +
           rowsText(field(r, "rows"), 3,
                    [](const auto &row) {
                        return figure(field(row, "name")) + " " + figure(field(row, "delta_us")) + " us";
                    }) +
           ".";
}

// Top-level fields: arrays by length, numbers and strings as they are.
std::string generic(const nlohmann::json &r)
{
    std::string text;
    for (const auto &[key, value] : r.items()) {
        std::string part;
        if (value.is_array())
            part = key + ": " + std::to_string(value.size());
        else if (value.is_number() || value.is_boolean())
            part = key + " " + figure(value, 3);
        else if (value.is_string() && value.get_ref<const std::string &>().size() < 120)
            part = key + " " + value.get<std::string>();
        if (!part.empty())
            text += (text.empty() ? "" : ", ") + part;
    }
    return text.empty() ? std::string("Done.") : text + ".";
}

} // namespace

std::string summaryText(const std::string &tool, const nlohmann::json &result)
{
    if (tool == "ops")
        return ops(result);
    if (tool == "kernels")
        return kernels(result);
    if (tool == "steps")
        return steps(result);
    if (tool == "critical_path")
        return criticalPath(result);
    if (tool == "memory")
        return memory(result);
    if (tool == "advise")
        return advise(result);
    if (tool == "idle")
        return idle(result);
    if (tool == "launches")
        return launches(result);
    if (tool == "flops")
        return flops(result);
    if (tool == "profile")
        return profile(result);
    if (tool == "snapshot")
        return snapshot(result);
    if (tool == "diff")
        return diff(result);
    if (tool == "summary")
        return "Span " + figure(field(field(result, "info"), "span_us")) + " us, " +
               figure(field(field(result, "info"), "events")) + " events. " + steps(field(result, "steps")) + " " +
               ops(field(result, "ops")) + ". " + advise(field(result, "advice"));
    return generic(result);
}

} // namespace pyrometer::cli::mcp
