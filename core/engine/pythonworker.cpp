#include "core/engine/pythonworker.h"

#include "core/record/launcher.h"
#include "core/record/process.h"

#include <atomic>
#include <fstream>
#include <unistd.h>

namespace pyrometer::engine {
namespace {

// The request goes to the worker as a file: its stdin stays the model's own.
class RequestFile {
public:
    explicit RequestFile(const nlohmann::json &request)
    {
        static std::atomic<int> counter{0};
        std::error_code error;
        m_path = std::filesystem::temp_directory_path(error) /
            ("pyrometer-engine-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".json");
        std::ofstream out(m_path);
        out << request.dump();
        m_ok = bool(out);
    }
    ~RequestFile()
    {
        std::error_code error;
        std::filesystem::remove(m_path, error);
    }
    RequestFile(const RequestFile &) = delete;
    RequestFile &operator=(const RequestFile &) = delete;
    const std::filesystem::path &path() const { return m_path; }
    bool ok() const { return m_ok; }

private:
    std::filesystem::path m_path;
    bool m_ok = false;
};

PythonInfo infoFrom(const nlohmann::json &hello, const std::string &python)
{
    PythonInfo info;
    info.python = python;
    info.executable = hello.value("executable", std::string());
    info.pythonVersion = hello.value("python", std::string());
    info.torchVersion = hello.value("torch", std::string());
    info.devices = hello.value("devices", std::vector<std::string>{});
    info.deviceNames = hello.value("device_names", std::vector<std::string>{});
    info.cudaUnavailable = hello.value("cuda_reason", std::string());
    info.kineto = hello.value("kineto", false);
    info.exportSupported = hello.value("export", false);
    info.compileSupported = hello.value("compile", false);
    return info;
}

std::string joinLines(const std::vector<std::string> &lines, std::size_t last)
{
    std::string text;
    const auto from = lines.size() > last ? lines.size() - last : 0;
    for (auto i = from; i < lines.size(); ++i)
        if (!lines[i].empty())
            text += (text.empty() ? "" : "\n") + lines[i];
    return text;
}

} // namespace

Result<std::filesystem::path> findWorker()
{
#ifdef PYROMETER_ENGINE_SOURCE
    const char *source = PYROMETER_ENGINE_SOURCE;
#else
    const char *source = nullptr;
#endif
    auto found = record::findShippedFile("PYROMETER_ENGINE", "engine/pyrometer_engine.py", source);
    if (!found)
        return Error{"the Python engine's worker " + found.error().message};
    return found;
}

Result<WorkerRun> runWorker(const Engine &engine, nlohmann::json request, const std::function<void(const nlohmann::json &)> &onEvent,
                            ProgressReporter &progress, const StopToken &stop)
{
    auto worker = findWorker();
    if (!worker)
        return worker.error();
    const auto python = engine.python.empty() ? defaultPython() : engine.python;
    request["device"] = engine.device.empty() ? "cpu" : engine.device;
    const RequestFile file(request);
    if (!file.ok())
        return Error{"cannot write the Python engine's request to " + file.path().string()};

    record::ProcessSpec spec;
    spec.argv = {python, "-u", worker.value().string(), file.path().string()};
    spec.statusChannel = true;
    spec.environment.emplace_back("PYTHONUNBUFFERED", "1");
    // The worker's stop is its model's stop: a long forward pass is interrupted, not waited for.
    record::StopPolicy policy;
    policy.interruptGrace = std::chrono::milliseconds(2000);
    policy.terminateGrace = std::chrono::milliseconds(2000);

    WorkerRun run;
    bool greeted = false;
    bool done = false;
    std::string errorKind;
    std::string errorMessage;
    std::vector<std::string> errorDetail;
    record::TailLines output(12);
    const auto tasks = std::max<std::size_t>(1, request.value("tasks", nlohmann::json::array()).size());
    std::size_t finishedTasks = 0;

    record::ProcessCallbacks callbacks;
    callbacks.onOutput = [&](record::OutputStream, std::string_view chunk) { output.append(chunk); };
    callbacks.onStatusLine = [&](const std::string &line) {
        auto event = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
        if (!event.is_object())
            return;
        const auto kind = event.value("event", std::string());
        if (kind == "hello") {
            run.info = infoFrom(event, python);
            greeted = true;
        } else if (kind == "loaded") {
            run.loaded = std::move(event);
        } else if (kind == "progress") {
            const double total = std::max(1.0, event.value("total", 1.0));
            const double fraction = std::min(1.0, event.value("done", 0.0) / total);
            progress.reportPermille(int(1000.0 * (double(finishedTasks) + fraction) / double(tasks)));
        } else if (kind == "task_done") {
            ++finishedTasks;
        } else if (kind == "error") {
            errorKind = event.value("kind", std::string());
            errorMessage = event.value("message", std::string());
            errorDetail = event.value("detail", std::vector<std::string>{});
        } else if (kind == "done") {
            done = true;
        } else {
            if (onEvent)
                onEvent(event);
            run.events.push_back(std::move(event));
        }
    };
    auto exit = runProcess(spec, callbacks, stop, policy);
    if (!exit)
        return Error{"the Python engine cannot start " + python + ": " + exit.error().message +
                     " (choose an interpreter with torch in Preferences, or give --python PATH)"};
    const std::string who = python + (greeted ? " (Python " + run.info.pythonVersion + ", torch " + run.info.torchVersion + ")" : "");
    if (stop.stopRequested() || exit.value().stopped || errorKind == "cancelled")
        return Error{request.value("model", std::string()) + ": cancelled"};
    if (!errorMessage.empty()) {
        std::string message = errorKind == "no_torch" ? "the Python engine needs torch: " + errorMessage +
                                                            " (choose an interpreter with torch in Preferences, or give --python PATH)"
                                                      : errorMessage + " [" + who + "]";
        if (!errorDetail.empty() && (errorKind == "factory" || errorKind == "run" || errorKind == "internal" || errorKind == "load"))
            message += "\n" + joinLines(errorDetail, 4);
        return Error{message};
    }
    if (!done) {
        const auto &ended = exit.value();
        std::string how = ended.signal != 0 ? "was ended by " + record::signalName(ended.signal)
                                            : "exited with status " + std::to_string(ended.exitCode);
        std::string message = request.value("model", std::string()) + ": the Python engine's worker " + how +
            " before it answered [" + who + "]";
        const auto last = joinLines(output.lines(), 6);
        if (!last.empty())
            message += "; its last output:\n" + last;
        return Error{message};
    }
    progress.finish();
    return run;
}

} // namespace pyrometer::engine
