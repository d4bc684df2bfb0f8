#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QObject>
#include <QString>
#include <QTimer>

#include "core/record/recorder.h"
#include "core/util/progress.h"

#include <chrono>
#include <functional>
#include <optional>

namespace pyrometer::ui {

// Asks the interpreter named in the Record dialog what its torch offers, once the name has
// stopped changing: a probe starts delay after the last change, a change stops the probe
// running (its process is ended), and a probe that does not answer within timeout is stopped
// and answers with an error that says so. Only the current interpreter's answer is given.
class InterpreterProbe final : public QObject {
    Q_OBJECT
public:
    using ProbeFunction = std::function<Result<record::InterpreterInfo>(const std::string &python, const StopToken &)>;

    explicit InterpreterProbe(QObject *parent = nullptr);
    // Stops a probe still running.
    ~InterpreterProbe() override;

    // record::probeInterpreter by default; tests count and hold probes with their own.
    void setProbeFunction(ProbeFunction probe) { m_probe = std::move(probe); }
    void setDelay(std::chrono::milliseconds delay) { m_delay.setInterval(delay); }
    void setTimeout(std::chrono::milliseconds timeout) { m_timeout.setInterval(timeout); }

    // The interpreter to ask (trimmed); the same name again changes nothing. Empty: none to ask.
    void setPython(const QString &python);
    QString python() const { return m_python; }
    // Whether python (trimmed) is the interpreter asked already, or being asked.
    bool isCurrent(const QString &python) const { return m_hasPython && python.trimmed() == m_python; }
    // Whether the current interpreter has answered (with what it offers, or an error).
    bool isAnswered() const { return m_answer.has_value(); }
    const std::optional<Result<record::InterpreterInfo>> &answer() const { return m_answer; }
    // Probes started so far.
    int startedCount() const { return m_started; }

Q_SIGNALS:
    // The current interpreter is being asked (after the delay).
    void checking(const QString &python);
    // The current interpreter answered, or failed to: answer() says how.
    void answered(const QString &python);

private:
    void start();
    void give(const Result<record::InterpreterInfo> &answer);

    ProbeFunction m_probe;
    QTimer m_delay;
    QTimer m_timeout;
    QString m_python;
    StopToken m_stop;
    std::optional<Result<record::InterpreterInfo>> m_answer;
    int m_generation = 0;
    int m_started = 0;
    bool m_hasPython = false;
};

} // namespace pyrometer::ui
