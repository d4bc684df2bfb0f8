#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QObject>
#include <QString>

#include "core/record/recorder.h"

#include <memory>
#include <thread>

namespace pyrometer::ui {

// One record of a program at a time, on a thread of its own (a record lasts as long as the
// program: it must not hold one of the analysis workers). What the program prints, its
// progress and each trace it writes come back as signals on the GUI thread.
class RecordRun final : public QObject {
    Q_OBJECT
public:
    explicit RecordRun(QObject *parent = nullptr);
    // Ends a program still running at once (a trace being written is given up) and waits for
    // it, at most StopPolicy::terminateGrace.
    ~RecordRun() override;

    bool isRunning() const { return m_running; }
    // Starts recording; false when a record is running already.
    bool start(const record::RecordOptions &options);
    // Interrupts the program: it ends its record with the step in progress and writes it (a write
    // in progress is waited for), then it is terminated.
    void cancel();
    bool isCancelling() const { return m_running && m_stop.stopRequested(); }
    // Ends the program now: a trace being written is given up (the second Cancel, Drop).
    void abandon();
    const record::RecordOptions &options() const { return m_options; }
    const record::RecordOutcome &lastOutcome() const { return m_outcome; }
    // The time the launcher gives to write a record after an interrupt; tests shorten it.
    void setStopPolicy(const record::StopPolicy &policy) { m_policy = policy; }

Q_SIGNALS:
    void started(const pyrometer::record::InterpreterInfo &interpreter);
    // Output as the program printed it, batched about every 100 ms.
    void output(const QString &text);
    void progressed(const pyrometer::record::RecordProgress &progress);
    void traceWritten(const QString &path);
    // The record is over: outcome says what it kept and, for a failure, why.
    void finished(const pyrometer::record::RecordOutcome &outcome);

private:
    void join();

    record::RecordOptions m_options;
    record::RecordOutcome m_outcome;
    record::StopPolicy m_policy;
    StopToken m_stop;
    StopToken m_abandon;
    std::thread m_thread;
    bool m_running = false;
    int m_generation = 0;
};

// "the 3 recorded steps", "the recorded step".
QString recordedStepsText(int recorded);

// "torch 1.13.0a0 (CPU) · Python 3.11.2 · /usr/bin/python3"
QString describeInterpreter(const record::InterpreterInfo &interpreter);

} // namespace pyrometer::ui
