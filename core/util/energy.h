#pragma once

#include "core/util/result.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pyrometer {

// One RAPL energy counter, as Linux's powercap driver offers it.
struct RaplDomain {
    // The zone's `name` file ("package-0", "dram"); a DRAM subzone is qualified by its package
    // ("package-1/dram") so that the DRAM of two sockets reads apart.
    std::string name;
    std::filesystem::path energyFile;   // .../intel-rapl:N[:M]/energy_uj
    std::uint64_t maxEnergyRangeUj = 0; // the largest value energyFile shows before it wraps to 0
    bool operator==(const RaplDomain &) const = default;
};

// What the machine offers. When available is false, reason says why in one line a user reads
// once, naming the path; the domains found so far are kept for diagnostics, but readEnergy
// refuses such a probe. The figure is whole or absent: a domain that should count but cannot
// be read makes the whole probe unavailable, since a sum without it would look complete.
struct EnergyProbe {
    bool available = false;
    std::string reason;
    std::vector<RaplDomain> domains;
    bool operator==(const EnergyProbe &) const = default;
};

// Finds the counters to sum under powercapRoot: every package (`intel-rapl:N` named
// "package-*") and every DRAM zone (named "dram", top level or a package's subzone), in the
// order of their zone numbers. Reads each counter once, so that a counter only root may read
// (Linux 5.10 on) or a missing powercap tree (virtual machines) shows here, not mid-run.
EnergyProbe probeRapl(const std::filesystem::path &powercapRoot = "/sys/class/powercap");

struct EnergySample {
    std::vector<std::uint64_t> microjoules; // one per probe.domains, in their order
    bool operator==(const EnergySample &) const = default;
};

// Reads every counter of an available probe; the error names the file that failed.
Result<EnergySample> readEnergy(const EnergyProbe &probe);

// Energy in joules between two samples of probe, summed over its domains. A counter that went
// down wrapped once: it counts max_energy_range_uj + 1 - before + after.
double joulesBetween(const EnergyProbe &probe, const EnergySample &before, const EnergySample &after);

// Energy per inference of timed runs. Package and DRAM counters hold the whole machine: its idle
// draw and every other process as well as the runs. The idle draw is measured over a wait just
// before the runs and taken out: machine - idle power x run time.
struct InferenceEnergy {
    double aboveIdleMj = 0; // per inference, above the idle draw (at least 0)
    double machineMj = 0;   // per inference, all the counters saw over the runs
    double idleWatts = 0;   // the counters' draw over the wait before the runs
    bool operator==(const InferenceEnergy &) const = default;
};

// runJoules over runSeconds of runs that made `inferences`; idleJoules over idleSeconds of waiting.
// None where a duration or the inferences are not positive.
std::optional<InferenceEnergy> inferenceEnergy(double runJoules, double runSeconds, double idleJoules,
                                               double idleSeconds, double inferences);

// How the energy figures are measured, in a line for a report's notes.
std::string energyMethod();

// How long to wait to measure the idle draw before runs expected to take `expected`: as long, within
// 0.2 s (the counters update about every millisecond; shorter is mostly noise) and 2 s (longer
// adds little but a wait), since the idle power is scaled to the runs' own duration.
std::chrono::milliseconds idleWindow(std::chrono::duration<double> expected);

} // namespace pyrometer
