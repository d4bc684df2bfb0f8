#include "ui/record/interpreterprobe.h"

#include <QPointer>
#include <QtConcurrent/QtConcurrent>

namespace pyrometer::ui {

namespace {

// After the last keystroke in the interpreter field; a probe starts python and imports torch,
// a second or more of a core.
constexpr std::chrono::milliseconds kDelay{400};
// Importing torch takes seconds on a cold disk; one that takes this long is hanging.
constexpr std::chrono::milliseconds kTimeout{30000};

} // namespace

InterpreterProbe::InterpreterProbe(QObject *parent) : QObject(parent), m_probe(record::probeInterpreter)
{
    m_delay.setSingleShot(true);
    m_delay.setInterval(kDelay);
    m_timeout.setSingleShot(true);
    m_timeout.setInterval(kTimeout);
    connect(&m_delay, &QTimer::timeout, this, &InterpreterProbe::start);
    connect(&m_timeout, &QTimer::timeout, this, [this] {
        m_stop.requestStop();
        ++m_generation; // its late answer, if any, is dropped
        const auto seconds = QString::number(double(m_timeout.interval()) / 1000.0);
        give(Error{m_python.toStdString() + " did not answer in " + seconds.toStdString() +
                   " s (is `import torch` hanging?); it was stopped"});
    });
}

InterpreterProbe::~InterpreterProbe()
{
    m_stop.requestStop();
}

void InterpreterProbe::setPython(const QString &python)
{
    if (isCurrent(python))
        return;
    const auto name = python.trimmed();
    m_hasPython = true;
    m_python = name;
    m_answer.reset();
    // The probe of the previous name is stopped and its answer dropped.
    m_stop.requestStop();
    ++m_generation;
    m_timeout.stop();
    if (name.isEmpty()) {
        m_delay.stop();
        give(Error{"no interpreter chosen"});
        return;
    }
    m_delay.start();
}

void InterpreterProbe::start()
{
    m_stop = StopToken();
    const int generation = ++m_generation;
    ++m_started;
    m_timeout.start();
    Q_EMIT checking(m_python);
    // The answer comes back through a guarded pointer: the dialog may be gone by then.
    QPointer<InterpreterProbe> self(this);
    (void)QtConcurrent::run([self, generation, probe = m_probe, stop = m_stop, python = m_python.toStdString()] {
        auto answer = probe(python, stop);
        QMetaObject::invokeMethod(
            self.data(),
            [self, generation, answer = std::move(answer)] {
                if (self && generation == self->m_generation) {
                    self->m_timeout.stop();
                    self->give(answer);
                }
            },
            Qt::QueuedConnection);
    });
}

void InterpreterProbe::give(const Result<record::InterpreterInfo> &answer)
{
    m_answer = answer;
    Q_EMIT answered(m_python);
}

} // namespace pyrometer::ui
