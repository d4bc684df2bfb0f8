#include "core/engine/pythonworker.h"

#include "core/engine/workerprotocol.h"
#include "core/record/launcher.h"
#include "core/record/process.h"
#include "core/util/uniquefd.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sys/mman.h>
#include <unistd.h>

namespace pyrometer::engine {
namespace {

// The request goes to the worker in a memfd it inherits as fd 4 (its stdin stays the model's
// own): no file in a shared folder that another user could replace or read, nothing left
// behind however the host ends.
constexpr int kRequestFd = 4;
// How long a worker may take to exit after its answer (a model's non-daemon thread, a CUDA
// teardown that hangs) before it is ended: the answer is kept.
constexpr auto kExitGrace = std::chrono::seconds(5);

class RequestFd {
public:
    explicit RequestFd(const nlohmann::json &request) : m_fd(::memfd_create("pyrometer-request", MFD_CLOEXEC))
    {
        if (!m_fd.valid())
            return;
        const auto text = request.dump();
        std::size_t written = 0;
        while (written < text.size()) {
            const auto n = ::write(m_fd.get(), text.data() + written, text.size() - written);
            if (n <= 0)
                return;
            written += std::size_t(n);
        }
        m_ok = true;
    }
    int fd() const { return m_fd.get(); }
    bool ok() const { return m_ok; }

private:
    UniqueFd m_fd;
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

// The start of a line, for a message: at most 200 bytes, control characters as \xNN.
std::string excerpt(const std::string &line)
{
    std::string text;
    for (std::size_t i = 0; i < line.size() && i < 200; ++i) {
        const auto c = static_cast<unsigned char>(line[i]);
        if (c < 0x20 || c == 0x7f) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
            text += escaped;
        } else {
            text += char(c);
        }
    }
    return line.size() <= 200 ? text : text + "\u2026";
}

// What one run of the worker heard, event by event.
class WorkerListener {
public:
    WorkerListener(WorkerRun &run, const std::string &python, std::size_t tasks,
                   const std::function<void(const nlohmann::json &)> &onEvent, ProgressReporter &progress)
        : m_run(run), m_python(python), m_tasks(std::max<std::size_t>(1, tasks)), m_onEvent(onEvent),
          m_progress(progress)
    {}

    // A line that breaks the protocol ends the run: nothing after it is read, and the worker is
    // ended (its output still read to its end, for the message).
    void hear(const std::string &line)
    {
        if (!m_broken.empty())
            return;
        auto read = m_messages.read(line);
        if (!read) {
            m_broken = read.error().message + " in \"" + excerpt(line) + "\"";
            return;
        }
        if (read.value())
            handle(std::move(*read.value()));
    }
    const std::string &broken() const { return m_broken; }

    bool greeted() const { return m_messages.greeted(); }
    bool answered() const { return m_answeredAt.has_value(); }
    // The worker answered (done or error) and has had kExitGrace to exit since.
    bool lingering() const { return m_answeredAt && std::chrono::steady_clock::now() - *m_answeredAt > kExitGrace; }
    bool done() const { return m_done; }
    const std::string &errorKind() const { return m_errorKind; }
    const std::string &errorMessage() const { return m_errorMessage; }
    const std::vector<std::string> &errorDetail() const { return m_errorDetail; }

private:
    void handle(nlohmann::json event)
    {
        const auto kind = event["event"].get<std::string>();
        if (kind == "hello") {
            m_run.info = infoFrom(event, m_python);
        } else if (kind == "loaded") {
            m_run.loaded = std::move(event);
        } else if (kind == "progress") {
            const double total = std::max(1.0, event.value("total", 1.0));
            const double fraction = std::clamp(event.value("done", 0.0) / total, 0.0, 1.0);
            m_progress.reportPermille(int(1000.0 * (double(m_finishedTasks) + fraction) / double(m_tasks)));
        } else if (kind == "task_done") {
            ++m_finishedTasks;
        } else if (kind == "error") {
            m_errorKind = event.value("kind", std::string());
            m_errorMessage = event.value("message", std::string());
            m_errorDetail = event.value("detail", std::vector<std::string>{});
            m_answeredAt = std::chrono::steady_clock::now();
        } else if (kind == "done") {
            m_done = true;
            m_answeredAt = std::chrono::steady_clock::now();
        } else {
            if (m_onEvent)
                m_onEvent(event);
            m_run.events.push_back(std::move(event));
        }
    }

    WorkerRun &m_run;
    const std::string &m_python;
    std::size_t m_tasks;
    const std::function<void(const nlohmann::json &)> &m_onEvent;
    ProgressReporter &m_progress;
    WorkerMessages m_messages;
    std::size_t m_finishedTasks = 0;
    bool m_done = false;
    std::optional<std::chrono::steady_clock::time_point> m_answeredAt;
    std::string m_errorKind;
    std::string m_errorMessage;
    std::vector<std::string> m_errorDetail;
    std::string m_broken; // how the protocol was broken
};

// "the worker's last output:\n..." for a message, or nothing.
std::string lastOutput(const record::TailLines &output)
{
    const auto last = joinLines(output.lines(), 6);
    return last.empty() ? std::string() : "; its last output:\n" + last;
}

// The worker's own error, said with what to do.
std::string workerError(const WorkerListener &listener, const std::string &who)
{
    const auto &kind = listener.errorKind();
    std::string message = kind == "no_torch"
                              ? "the Python engine needs torch: " + listener.errorMessage() +
                                    " (choose an interpreter with torch in Preferences, or give --python PATH)"
                              : listener.errorMessage() + " [" + who + "]";
    if (!listener.errorDetail().empty() && (kind == "factory" || kind == "run" || kind == "internal" || kind == "load"))
        message += "\n" + joinLines(listener.errorDetail(), 4);
    return message;
}

} // namespace

Result<std::filesystem::path> findWorker()
{
#ifdef PYROMETER_ENGINE_SOURCE
    const char *source = PYROMETER_ENGINE_SOURCE;
#else
    const char *source = nullptr;
#endif
    auto found = record::findShippedFile("PYROMETER_ENGINE", "engine/pyrometer_engine/__main__.py", source);
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
    const RequestFd requestFd(request);
    if (!requestFd.ok())
        return Error{std::string("cannot hand the Python engine its request: ") + std::strerror(errno)};

    record::ProcessSpec spec;
    spec.argv = {python, "-u", worker.value().string(), "/dev/fd/" + std::to_string(kRequestFd)};
    spec.statusChannel = true;
    spec.maxStatusLine = kMaxWorkerLine;
    spec.passedFds = {{requestFd.fd(), kRequestFd}};
    spec.environment.emplace_back("PYTHONUNBUFFERED", "1");
    // The worker's stop is its model's stop: a long forward pass is interrupted, not waited for.
    record::StopPolicy policy;
    policy.interruptGrace = std::chrono::milliseconds(2000);
    policy.terminateGrace = std::chrono::milliseconds(2000);

    WorkerRun run;
    record::TailLines output(12);
    const auto model = request.value("model", std::string());
    WorkerListener listener(run, python, request.value("tasks", nlohmann::json::array()).size(), onEvent, progress);
    record::ProcessCallbacks callbacks;
    callbacks.onOutput = [&](record::OutputStream, std::string_view chunk) { output.append(chunk); };
    callbacks.onStatusLine = [&](const std::string &line) { listener.hear(line); };
    callbacks.abandoned = [&] { return listener.lingering() || !listener.broken().empty(); };
    const auto who = [&] {
        return python + (listener.greeted()
                             ? " (Python " + run.info.pythonVersion + ", torch " + run.info.torchVersion + ")"
                             : "");
    };
    const auto exit = runProcess(spec, callbacks, stop, policy);
    if (exit && !listener.broken().empty())
        return Error{model + ": the Python engine's worker [" + who() + "] broke its protocol: " + listener.broken() +
                     (std::getenv("PYROMETER_ENGINE") ? " ($PYROMETER_ENGINE chose this worker)" : "") +
                     lastOutput(output)};
    if (!exit)
        return Error{"the Python engine cannot start " + python + ": " + exit.error().message +
                     " (choose an interpreter with torch in Preferences, or give --python PATH)"};
    if (exit->overlongStatusLine)
        return Error{model + ": the Python engine's worker [" + who() + "] wrote a line longer than " +
                     std::to_string(kMaxWorkerLine >> 20) + " MiB on its channel, and was ended" + lastOutput(output)};
    // Ended by us only because it lingered after its answer: the answer stands.
    const bool lingered = listener.answered() && listener.lingering();
    if (stop.stopRequested() || (exit->stopped && !lingered) || listener.errorKind() == "cancelled")
        return Error{model + ": cancelled"};
    if (!listener.errorMessage().empty())
        return Error{workerError(listener, who())};
    if (!listener.done()) {
        const auto &ended = exit.value();
        const std::string how = ended.signal != 0 ? "was ended by " + record::signalName(ended.signal)
                                                  : "exited with status " + std::to_string(ended.exitCode);
        return Error{model + ": the Python engine's worker " + how + " before it answered [" + who() + "]" +
                     lastOutput(output)};
    }
    progress.finish();
    return run;
}

} // namespace pyrometer::engine
