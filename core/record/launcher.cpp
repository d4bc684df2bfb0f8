#include "core/record/launcher.h"

#include <cstdlib>
#include <sstream>
#include <system_error>
#include <unistd.h>

namespace pyrometer::record {

namespace {

std::string number(double value)
{
    std::ostringstream out;
    out << value;
    return out.str();
}

std::filesystem::path executableDirectory()
{
    std::error_code error;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
    return error ? std::filesystem::path() : self.parent_path();
}

} // namespace

std::optional<std::pair<std::string, std::string>> parseEnvironmentEntry(std::string_view entry)
{
    const auto equals = entry.find('=');
    if (equals == std::string_view::npos || equals == 0)
        return std::nullopt;
    return std::pair{std::string(entry.substr(0, equals)), std::string(entry.substr(equals + 1))};
}

std::string stepMarkName(StepMark mark)
{
    switch (mark) {
    case StepMark::Auto: return "auto";
    case StepMark::Optimizer: return "optimizer";
    case StepMark::Forward: return "forward";
    case StepMark::Time: return "time";
    }
    return "auto";
}

Result<StepMark> parseStepMark(const std::string &text)
{
    for (const auto mark : {StepMark::Auto, StepMark::Optimizer, StepMark::Forward, StepMark::Time})
        if (text == stepMarkName(mark))
            return mark;
    return Error{"unknown step mark '" + text + "': auto, optimizer, forward or time"};
}

Result<std::filesystem::path> findShippedFile(const char *variable, const std::filesystem::path &installed, const char *source)
{
    std::vector<std::filesystem::path> candidates;
    if (const char *set = std::getenv(variable); set && *set)
        candidates.emplace_back(set);
    if (const auto directory = executableDirectory(); !directory.empty())
        candidates.push_back(directory.parent_path() / "share/pyrometer" / installed);
    if (source && *source)
        candidates.emplace_back(source);
    std::string looked;
    for (const auto &candidate : candidates) {
        std::error_code error;
        if (std::filesystem::is_regular_file(candidate, error))
            return candidate;
        looked += (looked.empty() ? "" : ", ") + candidate.string();
    }
    return Error{installed.filename().string() + " is missing (looked in " + looked + "): reinstall Pyrometer"};
}

Result<std::filesystem::path> findLauncher()
{
#ifdef PYROMETER_RECORDER_SOURCE
    const char *source = PYROMETER_RECORDER_SOURCE;
#else
    const char *source = nullptr;
#endif
    auto found = findShippedFile("PYROMETER_RECORDER", "recorder/pyrometer_record.py", source);
    if (!found)
        return Error{"the recorder " + found.error().message};
    return found;
}

std::vector<std::string> launcherCommand(const std::filesystem::path &launcher, const RecordOptions &options)
{
    std::vector<std::string> command{options.python,
                                     "-u",
                                     launcher.string(),
                                     "--out",
                                     options.outputDirectory.string(),
                                     "--mark",
                                     stepMarkName(options.mark)};
    const auto add = [&](const char *name, const std::string &value) {
        command.emplace_back(name);
        command.push_back(value);
    };
    add("--skip", std::to_string(options.skip));
    add("--warmup", std::to_string(options.warmup));
    add("--steps", std::to_string(options.steps));
    add("--repeat", std::to_string(options.repeat));
    if (options.mark == StepMark::Time) {
        add("--delay", number(options.delaySeconds));
        add("--duration", number(options.durationSeconds));
    }
    std::string activities = options.cpu || !options.cuda ? "cpu" : "";
    if (options.cuda)
        activities += activities.empty() ? "cuda" : ",cuda";
    add("--activities", activities);
    for (const auto &[flag, on] :
         {std::pair{"--record-shapes", options.recordShapes}, std::pair{"--profile-memory", options.profileMemory},
          std::pair{"--with-stack", options.withStack}, std::pair{"--with-modules", options.withModules},
          std::pair{"--keep-running", options.keepRunning}})
        if (on)
            command.emplace_back(flag);
    command.emplace_back("--");
    if (options.asModule)
        command.emplace_back("-m");
    command.push_back(options.script);
    command.insert(command.end(), options.arguments.begin(), options.arguments.end());
    return command;
}

std::vector<std::string> probeCommand(const std::filesystem::path &launcher, const std::string &python)
{
    return {python, launcher.string(), "--probe", "--out", "."};
}

std::filesystem::path workingDirectoryFor(const RecordOptions &options)
{
    if (!options.workingDirectory.empty())
        return options.workingDirectory;
    std::error_code error;
    return std::filesystem::current_path(error);
}

} // namespace pyrometer::record
