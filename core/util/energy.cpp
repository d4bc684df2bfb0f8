#include "core/util/energy.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <optional>
#include <system_error>
#include <tuple>

#include <fcntl.h>
#include <unistd.h>

namespace pyrometer {
namespace {

constexpr const char *ZonePrefix = "intel-rapl:";

// A zone directory "intel-rapl:N" (subzone -1) or "intel-rapl:N:M". The control type's own
// directory "intel-rapl" and other control types do not match: "intel-rapl-mmio:N" in
// particular is the same package counter again through another interface, and counting it
// would double the package. AMD CPUs (Zen on, Linux 5.8 on) appear under intel-rapl as well.
struct ZoneNumber {
    int package = 0;
    int subzone = -1;
    auto operator<=>(const ZoneNumber &) const = default;
};

std::optional<int> parseIndex(std::string_view text)
{
    int value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 0)
        return std::nullopt;
    return value;
}

std::optional<ZoneNumber> parseZone(std::string_view directory)
{
    const std::string_view prefix = ZonePrefix;
    if (!directory.starts_with(prefix))
        return std::nullopt;
    directory.remove_prefix(prefix.size());
    const auto colon = directory.find(':');
    const auto package = parseIndex(directory.substr(0, colon));
    if (!package)
        return std::nullopt;
    if (colon == std::string_view::npos)
        return ZoneNumber{*package, -1};
    const auto subzone = parseIndex(directory.substr(colon + 1));
    if (!subzone)
        return std::nullopt;
    return ZoneNumber{*package, *subzone};
}

Error readError(const std::filesystem::path &file, int error)
{
    std::string message = file.string() + ": " + std::strerror(error);
    // CVE-2020-8694: energy readings leak what a CPU computes, so energy_uj became root-only.
    if (error == EACCES || error == EPERM)
        message += " (only root may read them since Linux 5.10)";
    return Error{std::move(message)};
}

// A sysfs attribute, read whole with plain POSIX calls so that the error carries errno's text
// (EACCES for a non-root reader, EISDIR, ENOENT for a dangling link).
Result<std::string> readAttribute(const std::filesystem::path &file)
{
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return readError(file, errno);
    std::string text;
    char buffer[256];
    for (;;) {
        const auto n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            const int error = errno;
            ::close(fd);
            return readError(file, error);
        }
        if (n == 0)
            break;
        text.append(buffer, std::size_t(n));
    }
    ::close(fd);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    return text;
}

Result<std::uint64_t> readCounter(const std::filesystem::path &file)
{
    auto text = readAttribute(file);
    if (!text)
        return text.error();
    const std::string &digits = text.value();
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || error != std::errc() || end != digits.data() + digits.size())
        return Error{file.string() + ": not a number: \"" + digits + "\""};
    return value;
}

std::string unreadable(const Error &error)
{
    return "RAPL counters unreadable: " + error.message;
}

bool countsTowardsTotal(const ZoneNumber &zone, const std::string &name)
{
    // A package's core and uncore subzones are parts of the package: counting them as well
    // would count that energy twice. psys (the whole platform, on client parts) includes the
    // packages too, so it is left out. DRAM is outside the package and counts.
    if (name == "dram")
        return true;
    return zone.subzone < 0 && name.starts_with("package-");
}

EnergyProbe unavailable(std::string reason, std::vector<RaplDomain> domains = {})
{
    return EnergyProbe{false, std::move(reason), std::move(domains)};
}

} // namespace

EnergyProbe probeRapl(const std::filesystem::path &powercapRoot)
{
    std::error_code error;
    std::filesystem::directory_iterator entries(powercapRoot, error);
    if (error == std::errc::no_such_file_or_directory)
        return unavailable("no RAPL counters: " + powercapRoot.string() +
                           " does not exist (a virtual machine, or a kernel without powercap)");
    if (error)
        return unavailable("RAPL counters unreadable: " + powercapRoot.string() + ": " + error.message());

    struct Zone {
        ZoneNumber number;
        std::filesystem::path directory;
        std::string name;
    };
    std::vector<Zone> zones;
    // Stepping with an error_code: a range-for would throw on a directory that fails mid-listing.
    for (; entries != std::filesystem::directory_iterator(); entries.increment(error)) {
        if (error)
            break;
        const std::filesystem::path directory = entries->path();
        const auto number = parseZone(directory.filename().string());
        if (!number)
            continue;
        auto name = readAttribute(directory / "name");
        if (!name)
            return unavailable(unreadable(name.error()));
        zones.push_back({*number, directory, std::move(name).value()});
    }
    if (error)
        return unavailable("RAPL counters unreadable: " + powercapRoot.string() + ": " + error.message());
    if (zones.empty())
        return unavailable("no RAPL counters: " + powercapRoot.string() +
                           " has no intel-rapl domains (a virtual machine or a CPU without RAPL)");
    std::sort(zones.begin(), zones.end(), [](const Zone &a, const Zone &b) { return a.number < b.number; });

    std::vector<RaplDomain> domains;
    for (const Zone &zone : zones) {
        if (!countsTowardsTotal(zone.number, zone.name))
            continue;
        std::string name = zone.name;
        if (zone.number.subzone >= 0) {
            const auto parent = std::find_if(zones.begin(), zones.end(), [&](const Zone &z) {
                return z.number == ZoneNumber{zone.number.package, -1};
            });
            if (parent != zones.end())
                name = parent->name + "/" + name;
        }
        domains.push_back({std::move(name), zone.directory / "energy_uj", 0});
    }
    if (domains.empty())
        return unavailable("no RAPL counters: " + powercapRoot.string() +
                           " has no package or DRAM domain (only psys, core or uncore)");

    for (RaplDomain &domain : domains) {
        const auto range = readCounter(domain.energyFile.parent_path() / "max_energy_range_uj");
        if (!range)
            return unavailable(unreadable(range.error()) + "; without it a wrap-around cannot be corrected",
                               std::move(domains));
        domain.maxEnergyRangeUj = range.value();
        const auto energy = readCounter(domain.energyFile);
        if (!energy)
            return unavailable(unreadable(energy.error()), std::move(domains));
    }
    return EnergyProbe{true, {}, std::move(domains)};
}

Result<EnergySample> readEnergy(const EnergyProbe &probe)
{
    if (!probe.available)
        return Error{probe.reason};
    EnergySample sample;
    sample.microjoules.reserve(probe.domains.size());
    for (const RaplDomain &domain : probe.domains) {
        auto energy = readCounter(domain.energyFile);
        if (!energy)
            return Error{unreadable(energy.error())};
        sample.microjoules.push_back(energy.value());
    }
    return sample;
}

double joulesBetween(const EnergyProbe &probe, const EnergySample &before, const EnergySample &after)
{
    assert(before.microjoules.size() == probe.domains.size() && after.microjoules.size() == probe.domains.size());
    const std::size_t count = std::min({probe.domains.size(), before.microjoules.size(), after.microjoules.size()});
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint64_t from = before.microjoules[i];
        const std::uint64_t to = after.microjoules[i];
        const std::uint64_t range = probe.domains[i].maxEnergyRangeUj;
        if (to >= from)
            total += to - from;
        // The kernel reports max_energy_range_uj as the 32-bit counter's all-ones value in µJ,
        // the last value energy_uj shows before 0; so one wrap adds range + 1 - from + to. The
        // true step past the top is one energy unit (15.3 or 61 µJ, not in sysfs), so a wrap
        // undercounts by under 61 µJ. A reading above the range cannot wrap: count from 0.
        else if (from <= range)
            total += range - from + 1 + to;
        else
            total += to;
    }
    return double(total) / 1e6;
}

std::optional<InferenceEnergy> inferenceEnergy(double runJoules, double runSeconds, double idleJoules,
                                               double idleSeconds, double inferences)
{
    if (!(runSeconds > 0) || !(idleSeconds > 0) || !(inferences > 0))
        return std::nullopt;
    InferenceEnergy energy;
    energy.idleWatts = idleJoules / idleSeconds;
    energy.machineMj = runJoules * 1000.0 / inferences;
    // Noise can put the runs below the idle draw: none above it, then, not a negative figure.
    energy.aboveIdleMj = std::max(0.0, runJoules - energy.idleWatts * runSeconds) * 1000.0 / inferences;
    return energy;
}

std::string energyMethod()
{
    return "the RAPL counters (package and DRAM) over the timed runs less the machine's idle draw, measured over a "
           "wait before them, per inference (one sample); the machine's figure, idle and other processes included, "
           "is machine_energy_mj in --format json";
}

std::chrono::milliseconds idleWindow(std::chrono::duration<double> expected)
{
    const auto wanted = std::chrono::duration_cast<std::chrono::milliseconds>(expected);
    return std::clamp(wanted, std::chrono::milliseconds(200), std::chrono::milliseconds(2000));
}

} // namespace pyrometer
