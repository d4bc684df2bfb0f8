#include "ui/record/recordrun.h"

#include <QMetaObject>
#include <QPointer>

#include <chrono>

namespace pyrometer::ui {

RecordRun::RecordRun(QObject *parent) : QObject(parent)
{}

RecordRun::~RecordRun()
{
    m_stop.requestStop();
    m_abandon.requestStop();
    join();
}

void RecordRun::join()
{
    if (m_thread.joinable())
        m_thread.join();
}

bool RecordRun::start(const record::RecordOptions &options)
{
    if (m_running)
        return false;
    join(); // the last record's thread has posted its end already
    m_options = options;
    m_outcome = {};
    m_stop = StopToken();
    m_abandon = StopToken();
    m_running = true;
    const int generation = ++m_generation;
    QPointer<RecordRun> self(this);
    // Posts to the GUI thread; the run outlives its thread (the destructor joins it).
    const auto post = [self, generation](auto function) {
        QMetaObject::invokeMethod(
            self.data(),
            [self, generation, function = std::move(function)]() mutable {
                if (self && self->m_generation == generation)
                    function(*self);
            },
            Qt::QueuedConnection);
    };
    m_thread = std::thread([options, stop = m_stop, abandon = m_abandon, policy = m_policy, post] {
        std::string pending;
        auto lastFlush = std::chrono::steady_clock::now();
        const auto flush = [&] {
            if (pending.empty())
                return;
            post([text = QString::fromUtf8(pending.data(), qsizetype(pending.size()))](RecordRun &run) {
                Q_EMIT run.output(text);
            });
            pending.clear();
            lastFlush = std::chrono::steady_clock::now();
        };
        record::RecordCallbacks callbacks;
        callbacks.abandoned = [abandon] { return abandon.stopRequested(); };
        callbacks.onOutput = [&](record::OutputStream, std::string_view chunk) {
            pending.append(chunk);
            if (pending.size() > 64 * 1024)
                flush();
        };
        callbacks.onProgress = [&](const record::RecordProgress &progress) {
            if (std::chrono::steady_clock::now() - lastFlush > std::chrono::milliseconds(100))
                flush();
            post([progress](RecordRun &run) { Q_EMIT run.progressed(progress); });
        };
        callbacks.onStarted = [&](const record::InterpreterInfo &interpreter) {
            post([interpreter](RecordRun &run) { Q_EMIT run.started(interpreter); });
        };
        callbacks.onTrace = [&](const std::filesystem::path &trace) {
            flush();
            post([path = QString::fromStdString(trace.string())](RecordRun &run) { Q_EMIT run.traceWritten(path); });
        };
        record::RecordOutcome outcome;
        try {
            auto result = record::recordProgram(options, callbacks, stop, policy);
            if (result) {
                outcome = std::move(result).value();
            } else {
                outcome.failure = record::RecordFailure::CannotStart;
                outcome.message = result.error().message;
            }
        } catch (const std::exception &error) { // a thread of ours must not end the window
            outcome.failure = record::RecordFailure::CannotStart;
            outcome.message = options.script + ": the record failed: " + error.what();
        }
        flush();
        post([outcome = std::move(outcome)](RecordRun &run) {
            run.m_running = false;
            run.m_outcome = outcome;
            Q_EMIT run.finished(outcome);
        });
    });
    return true;
}

void RecordRun::cancel()
{
    if (m_running)
        m_stop.requestStop();
}

void RecordRun::abandon()
{
    if (m_running) {
        m_stop.requestStop();
        m_abandon.requestStop();
    }
}

QString recordedStepsText(int recorded)
{
    return recorded == 1 ? QObject::tr("the recorded step") : QObject::tr("the %1 recorded steps").arg(recorded);
}

QString describeInterpreter(const record::InterpreterInfo &interpreter)
{
    QString device =
        interpreter.cuda ? QObject::tr("CUDA, %n GPU(s)", nullptr, interpreter.cudaDevices) : QObject::tr("CPU only");
    return QObject::tr("torch %1 (%2) \u00b7 Python %3 \u00b7 %4")
        .arg(QString::fromStdString(interpreter.torchVersion), device,
             QString::fromStdString(interpreter.pythonVersion), QString::fromStdString(interpreter.executable));
}

} // namespace pyrometer::ui
