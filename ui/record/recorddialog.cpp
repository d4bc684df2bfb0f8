#include "ui/record/recorddialog.h"

#include "ui/record/interpreterprobe.h"
#include "ui/record/recordrun.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QTextDocumentFragment>
#include <QVBoxLayout>

namespace pyrometer::ui {

namespace {

QString joinArguments(const std::vector<std::string> &arguments)
{
    QStringList parts;
    for (const auto &argument : arguments) {
        auto text = QString::fromStdString(argument);
        if (text.isEmpty() || text.contains(QLatin1Char(' ')) || text.contains(QLatin1Char('"')))
            text = QLatin1Char('"') + text.replace(QLatin1Char('"'), QStringLiteral("\"\"\"")) + QLatin1Char('"');
        parts << text;
    }
    return parts.join(QLatin1Char(' '));
}

std::vector<std::string> splitArguments(const QString &text)
{
    std::vector<std::string> result;
    for (const auto &part : QProcess::splitCommand(text))
        result.push_back(part.toStdString());
    return result;
}

QWidget *withBrowse(QWidget *parent, QWidget *field, const std::function<void()> &browse)
{
    auto *row = new QWidget(parent);
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(field, 1);
    auto *button = new QPushButton(QObject::tr("Browse…"), row);
    QObject::connect(button, &QPushButton::clicked, row, browse);
    layout->addWidget(button);
    return row;
}

QSpinBox *spin(QWidget *parent, int minimum, int maximum, const QString &tip)
{
    auto *box = new QSpinBox(parent);
    box->setRange(minimum, maximum);
    box->setToolTip(tip);
    return box;
}

} // namespace

RecordDialog::RecordDialog(QWidget *parent)
    : QDialog(parent), m_run(new RecordRun(this)), m_probe(new InterpreterProbe(this)), m_python(new QComboBox(this)),
      m_interpreter(new QLabel(this)), m_asScript(new QRadioButton(tr("Script"), this)),
      m_asModule(new QRadioButton(tr("Module (-m)"), this)), m_script(new QLineEdit(this)),
      m_arguments(new QLineEdit(this)), m_workingDirectory(new QLineEdit(this)), m_environment(new QLineEdit(this)),
      m_outputDirectory(new QLineEdit(this)), m_mark(new QComboBox(this)),
      m_skip(spin(this, 0, 100000, tr("Steps left out at the start (data loading, compilation, caches warming)"))),
      m_warmup(spin(this, 0, 1000, tr("Steps profiled but not kept, before each record"))),
      m_steps(spin(this, 1, 10000, tr("Steps recorded"))),
      m_repeat(spin(this, 1, 100, tr("Records taken, each a new trace in the same run"))),
      m_delay(new QDoubleSpinBox(this)), m_duration(new QDoubleSpinBox(this)), m_cuda(new QCheckBox(tr("CUDA"), this)),
      m_shapes(new QCheckBox(tr("Input shapes"), this)), m_memory(new QCheckBox(tr("Memory"), this)),
      m_stack(new QCheckBox(tr("Python stacks"), this)), m_modules(new QCheckBox(tr("Modules"), this)),
      m_keepRunning(new QCheckBox(tr("Let the program run on after the record"), this)),
      m_log(new QPlainTextEdit(this)), m_progress(new QProgressBar(this)), m_status(new QLabel(this)),
      m_record(new QPushButton(tr("&Record"), this)), m_cancel(new QPushButton(tr("&Cancel"), this)),
      m_again(new QPushButton(tr("Record &again"), this))
{
    setWindowTitle(tr("Record program"));
    setModal(false);
    resize(860, 720);

    setLayoutOfParts();
    connectParts();

    QSettings settings;
    m_settings = RecordSettings::load(settings);
    m_python->addItems(m_settings.interpreters.isEmpty() ? QStringList{QStringLiteral("python3")}
                                                         : m_settings.interpreters);
    setOptions(m_settings.options);
    probe(); // the same name as the combo's first: no change to start it
    updateMarkFields();
}

RecordDialog::~RecordDialog() = default;

// The program: interpreter (with what its torch offers), script or module, arguments, folder
// and environment.
QGroupBox *RecordDialog::programGroup()
{
    auto *program = new QGroupBox(tr("Program"), this);
    auto *form = new QFormLayout(program);
    m_python->setEditable(true);
    m_python->setInsertPolicy(QComboBox::NoInsert);
    m_python->setToolTip(
        tr("The interpreter that runs the program: a venv's or conda's python, as you run it yourself"));
    form->addRow(tr("Python:"), withBrowse(program, m_python, [this] {
                     const auto file = QFileDialog::getOpenFileName(this, tr("Choose a Python interpreter"),
                                                                    QStringLiteral("/usr/bin"));
                     if (!file.isEmpty())
                         m_python->setCurrentText(file);
                 }));
    m_interpreter->setWordWrap(true);
    m_interpreter->setTextFormat(Qt::RichText);
    m_interpreter->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_interpreter->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    // Two lines from the start, whatever the check says: the fields below never move under the
    // pointer when it ends (the whole text is the tooltip).
    m_interpreter->setFixedHeight(2 * m_interpreter->fontMetrics().lineSpacing() + 2);
    form->addRow(QString(), m_interpreter);
    auto *kind = new QWidget(program);
    auto *kindLayout = new QHBoxLayout(kind);
    kindLayout->setContentsMargins(0, 0, 0, 0);
    kindLayout->addWidget(m_asScript);
    kindLayout->addWidget(m_asModule);
    kindLayout->addStretch(1);
    m_asScript->setChecked(true);
    form->addRow(tr("Run:"), kind);
    m_script->setPlaceholderText(tr("train.py, or package.module with Module"));
    form->addRow(tr("Script:"), withBrowse(program, m_script, [this] {
                     const auto file = QFileDialog::getOpenFileName(this, tr("Choose a Python script"), QString(),
                                                                    tr("Python (*.py);;All files (*)"));
                     if (file.isEmpty())
                         return;
                     m_script->setText(file);
                     m_asScript->setChecked(true);
                     if (m_workingDirectory->text().isEmpty())
                         m_workingDirectory->setText(QFileInfo(file).absolutePath());
                 }));
    m_arguments->setPlaceholderText(tr("--epochs 1 --batch-size 32 (as on a command line)"));
    form->addRow(tr("Arguments:"), m_arguments);
    m_workingDirectory->setPlaceholderText(tr("the script's folder"));
    form->addRow(tr("Working folder:"), withBrowse(program, m_workingDirectory, [this] {
                     const auto folder =
                         QFileDialog::getExistingDirectory(this, tr("Working folder"), m_workingDirectory->text());
                     if (!folder.isEmpty())
                         m_workingDirectory->setText(folder);
                 }));
    m_environment->setPlaceholderText(tr("NAME=VALUE NAME2=VALUE"));
    form->addRow(tr("Environment:"), m_environment);
    return program;
}

// How the record is taken: what a step is, how many, what is recorded, where the traces go.
QGroupBox *RecordDialog::recordGroup()
{
    auto *how = new QGroupBox(tr("Record"), this);
    auto *howLayout = new QFormLayout(how);
    m_mark->addItem(tr("Automatic: optimizer steps, else model calls"), int(record::StepMark::Auto));
    m_mark->addItem(tr("Optimizer steps (training)"), int(record::StepMark::Optimizer));
    m_mark->addItem(tr("Model calls: the outermost module's forward (inference)"), int(record::StepMark::Forward));
    m_mark->addItem(tr("A time window"), int(record::StepMark::Time));
    howLayout->addRow(tr("A step is:"), m_mark);
    auto *stepsRow = new QWidget(how);
    auto *stepsLayout = new QHBoxLayout(stepsRow);
    stepsLayout->setContentsMargins(0, 0, 0, 0);
    for (const auto &[label, box] : {std::pair{tr("skip"), m_skip}, std::pair{tr("warm up"), m_warmup},
                                     std::pair{tr("record"), m_steps}, std::pair{tr("repeat"), m_repeat}}) {
        stepsLayout->addWidget(new QLabel(label, stepsRow));
        stepsLayout->addWidget(box);
    }
    stepsLayout->addStretch(1);
    howLayout->addRow(tr("Steps:"), stepsRow);
    auto *timeRow = new QWidget(how);
    auto *timeLayout = new QHBoxLayout(timeRow);
    timeLayout->setContentsMargins(0, 0, 0, 0);
    m_delay->setRange(0, 3600);
    m_delay->setSuffix(tr(" s"));
    m_duration->setRange(0.1, 3600);
    m_duration->setSuffix(tr(" s"));
    timeLayout->addWidget(new QLabel(tr("after"), timeRow));
    timeLayout->addWidget(m_delay);
    timeLayout->addWidget(new QLabel(tr("record for"), timeRow));
    timeLayout->addWidget(m_duration);
    timeLayout->addStretch(1);
    howLayout->addRow(tr("Window:"), timeRow);
    auto *activities = new QWidget(how);
    auto *activitiesLayout = new QHBoxLayout(activities);
    activitiesLayout->setContentsMargins(0, 0, 0, 0);
    auto *cpu = new QCheckBox(tr("CPU"), activities);
    cpu->setChecked(true);
    cpu->setEnabled(false);
    for (auto *box : {cpu, m_cuda, m_shapes, m_memory, m_stack, m_modules})
        activitiesLayout->addWidget(box);
    activitiesLayout->addStretch(1);
    m_cuda->setToolTip(tr("Only where the interpreter's torch sees a GPU"));
    howLayout->addRow(tr("Record:"), activities);
    howLayout->addRow(QString(), m_keepRunning);
    howLayout->addRow(tr("Traces to:"), withBrowse(how, m_outputDirectory, [this] {
                          const auto folder = QFileDialog::getExistingDirectory(this, tr("Folder for the traces"),
                                                                                m_outputDirectory->text());
                          if (!folder.isEmpty())
                              m_outputDirectory->setText(folder);
                      }));
    m_outputDirectory->setPlaceholderText(
        tr("a TensorBoard log folder (default: %1)").arg(QDir::toNativeSeparators(defaultRecordFolder(tr("<script>")))));
    return how;
}

// The program's output, the bar, the status and the buttons, under the two groups.
void RecordDialog::setLayoutOfParts()
{
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(5000);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_log->setPlaceholderText(tr("The program's output appears here as it runs."));
    m_status->setWordWrap(true);
    m_status->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_status->setMinimumHeight(2 * m_status->fontMetrics().lineSpacing() + 2);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *buttons = new QDialogButtonBox(this);
    buttons->addButton(m_record, QDialogButtonBox::AcceptRole);
    buttons->addButton(m_again, QDialogButtonBox::ActionRole);
    buttons->addButton(m_cancel, QDialogButtonBox::RejectRole);
    auto *close = buttons->addButton(QDialogButtonBox::Close);
    connect(close, &QPushButton::clicked, this, &QDialog::close);
    m_record->setDefault(true);
    m_again->setEnabled(false);
    m_cancel->setEnabled(false);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(programGroup());
    layout->addWidget(recordGroup());
    layout->addWidget(m_log, 1);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    layout->addWidget(buttons);
}

void RecordDialog::connectParts()
{
    connect(m_record, &QPushButton::clicked, this, &RecordDialog::startRecord);
    connect(m_again, &QPushButton::clicked, this, &RecordDialog::recordAgain);
    connect(m_cancel, &QPushButton::clicked, this, &RecordDialog::cancelRecord);
    connect(m_mark, &QComboBox::currentIndexChanged, this, &RecordDialog::updateMarkFields);
    for (auto *box : {m_skip, m_warmup, m_steps, m_repeat})
        connect(box, &QSpinBox::valueChanged, this, &RecordDialog::showAsked);
    for (auto *box : {m_delay, m_duration})
        connect(box, &QDoubleSpinBox::valueChanged, this, &RecordDialog::showAsked);
    connect(m_python, &QComboBox::currentTextChanged, this, &RecordDialog::probe);
    connect(m_probe, &InterpreterProbe::checking, this, [this](const QString &python) {
        setInterpreterText(tr("Checking %1: asking what its torch offers…").arg(python).toHtmlEscaped());
    });
    connect(m_probe, &InterpreterProbe::answered, this, &RecordDialog::probeAnswered);
    connect(m_run, &RecordRun::output, this, [this](const QString &text) { appendLog(text); });
    connect(m_run, &RecordRun::started, this, [this](const record::InterpreterInfo &interpreter) {
        setInterpreterText(describeInterpreter(interpreter).toHtmlEscaped());
    });
    connect(m_run, &RecordRun::progressed, this, &RecordDialog::showProgress);
    connect(m_run, &RecordRun::traceWritten, this, [this](const QString &path) {
        appendLog(tr("trace written: %1").arg(path), true);
        Q_EMIT traceRecorded(path);
    });
    connect(m_run, &RecordRun::finished, this, &RecordDialog::finish);
}

bool RecordDialog::isRecording() const
{
    return m_run->isRunning() || m_recordQueued;
}

record::RecordOptions RecordDialog::options() const
{
    record::RecordOptions o;
    o.python = m_python->currentText().trimmed().toStdString();
    o.script = m_script->text().trimmed().toStdString();
    o.asModule = m_asModule->isChecked();
    o.arguments = splitArguments(m_arguments->text());
    const auto script = QString::fromStdString(o.script);
    o.workingDirectory = (m_workingDirectory->text().trimmed().isEmpty() && !o.asModule && !script.isEmpty()
                              ? QFileInfo(script).absolutePath()
                              : m_workingDirectory->text().trimmed())
                             .toStdString();
    for (const auto &entry : QProcess::splitCommand(m_environment->text()))
        if (auto variable = record::parseEnvironmentEntry(entry.toStdString()))
            o.environment.push_back(std::move(*variable));
    o.outputDirectory = (m_outputDirectory->text().trimmed().isEmpty() ? defaultRecordFolder(script)
                                                                       : m_outputDirectory->text().trimmed())
                            .toStdString();
    o.mark = record::StepMark(m_mark->currentData().toInt());
    o.skip = m_skip->value();
    o.warmup = m_warmup->value();
    o.steps = m_steps->value();
    o.repeat = m_repeat->value();
    o.delaySeconds = m_delay->value();
    o.durationSeconds = m_duration->value();
    o.cuda = m_cuda->isChecked() && m_cuda->isEnabled();
    o.recordShapes = m_shapes->isChecked();
    o.profileMemory = m_memory->isChecked();
    o.withStack = m_stack->isChecked();
    o.withModules = m_modules->isChecked();
    o.keepRunning = m_keepRunning->isChecked();
    return o;
}

void RecordDialog::setOptions(const record::RecordOptions &o)
{
    m_python->setCurrentText(QString::fromStdString(o.python));
    m_script->setText(QString::fromStdString(o.script));
    (o.asModule ? m_asModule : m_asScript)->setChecked(true);
    m_arguments->setText(joinArguments(o.arguments));
    m_workingDirectory->setText(QString::fromStdString(o.workingDirectory.string()));
    QStringList environment;
    for (const auto &[name, value] : o.environment)
        environment << QString::fromStdString(name + "=" + value);
    m_environment->setText(environment.join(QLatin1Char(' ')));
    m_outputDirectory->setText(QString::fromStdString(o.outputDirectory.string()));
    m_mark->setCurrentIndex(std::max(0, m_mark->findData(int(o.mark))));
    m_skip->setValue(o.skip);
    m_warmup->setValue(o.warmup);
    m_steps->setValue(o.steps);
    m_repeat->setValue(o.repeat);
    m_delay->setValue(o.delaySeconds);
    m_duration->setValue(o.durationSeconds);
    m_cuda->setChecked(o.cuda);
    m_shapes->setChecked(o.recordShapes);
    m_memory->setChecked(o.profileMemory);
    m_stack->setChecked(o.withStack);
    m_modules->setChecked(o.withModules);
    m_keepRunning->setChecked(o.keepRunning);
}

void RecordDialog::probe()
{
    const auto python = m_python->currentText().trimmed();
    if (m_probe->isCurrent(python))
        return;
    m_cuda->setEnabled(false);
    setInterpreterText((python.isEmpty() ? tr("Choose the interpreter you run the program with.")
                                         : tr("Checking %1…").arg(python))
                           .toHtmlEscaped());
    m_probe->setPython(python);
}

void RecordDialog::probeAnswered()
{
    const auto &answer = *m_probe->answer();
    if (!m_probe->python().isEmpty())
        showProbe(answer);
    // An interpreter whose torch answered is the choice, remembered now, not only after a record:
    // the Model page's Python engine runs it too.
    if (answer && !m_probe->python().isEmpty()) {
        QSettings settings;
        choosePython(settings, m_probe->python());
    }
    if (!m_recordQueued)
        return;
    m_recordQueued = false;
    if (answer) {
        beginRecord();
        return;
    }
    // Not started with what the interpreter may not offer: the user reads why, and decides.
    setRunning(false);
    m_status->setText(QStringLiteral("<span style=\"color:#c62828\">%1</span>")
                          .arg(tr("Not started: %1. Record starts it all the same.")
                                   .arg(QString::fromStdString(answer.error().message))
                                   .toHtmlEscaped()));
}

void RecordDialog::showProbe(const Result<record::InterpreterInfo> &info)
{
    if (!info) {
        setInterpreterText(QStringLiteral("<span style=\"color:#c62828\">%1</span>")
                               .arg(QString::fromStdString(info.error().message).toHtmlEscaped()));
        return;
    }
    setInterpreterText(describeInterpreter(info.value()).toHtmlEscaped());
    m_cuda->setEnabled(info->cuda);
    m_cuda->setToolTip(info->cuda ? tr("Record CUDA kernels too") : tr("This interpreter's torch sees no GPU"));
}

void RecordDialog::updateMarkFields()
{
    const bool time = record::StepMark(m_mark->currentData().toInt()) == record::StepMark::Time;
    for (QWidget *box : {static_cast<QWidget *>(m_skip), static_cast<QWidget *>(m_warmup),
                         static_cast<QWidget *>(m_steps), static_cast<QWidget *>(m_repeat)})
        box->setEnabled(!time);
    m_delay->setEnabled(time);
    m_duration->setEnabled(time);
    showAsked();
}

void RecordDialog::showAsked()
{
    if (isRecording())
        return;
    const auto o = options();
    const bool time = o.mark == record::StepMark::Time;
    m_progress->setFormat(time ? tr("%v of %m time windows recorded") : tr("%v of %m steps recorded"));
    m_progress->setRange(0, time ? 1 : o.steps * o.repeat);
    m_progress->setValue(0);
    // As torch.profiler's schedule counts them: skip_first, then per repeat warmup and active.
    m_progress->setToolTip(time ? tr("One window of %1 s after %2 s").arg(o.durationSeconds).arg(o.delaySeconds)
                                : tr("%1 skipped, then %2 time(s): %3 warm-up and %4 recorded; the program "
                                     "takes %5 steps until the record ends")
                                      .arg(o.skip)
                                      .arg(o.repeat)
                                      .arg(o.warmup)
                                      .arg(o.steps)
                                      .arg(o.skip + o.repeat * (o.warmup + o.steps)));
}

void RecordDialog::setInterpreterText(const QString &html)
{
    m_interpreter->setText(html);
    m_interpreter->setToolTip(QTextDocumentFragment::fromHtml(html).toPlainText());
}

bool RecordDialog::startRecord()
{
    if (isRecording())
        return false;
    const auto o = options();
    QString problem;
    if (o.python.empty())
        problem = tr("Choose the Python interpreter that runs the program.");
    else if (o.script.empty())
        problem = tr("Choose the script (or module) to record.");
    else if (!o.asModule && !QFileInfo(QString::fromStdString(o.script)).isFile())
        problem = tr("%1: no such script.").arg(QString::fromStdString(o.script));
    if (!problem.isEmpty()) {
        m_status->setText(QStringLiteral("<span style=\"color:#c62828\">%1</span>").arg(problem.toHtmlEscaped()));
        return false;
    }
    if (!m_probe->isAnswered()) {
        // Its CUDA is not known yet: the record starts when the interpreter has answered.
        m_recordQueued = true;
        setRunning(true);
        m_status->setText(tr("Checking %1; the record starts when it answers…").arg(QString::fromStdString(o.python)));
        return true;
    }
    beginRecord();
    return true;
}

void RecordDialog::beginRecord()
{
    const auto o = options();
    m_settings.options = o;
    // The folder as typed: left empty, the default follows the script.
    m_settings.options.outputDirectory = m_outputDirectory->text().trimmed().toStdString();
    m_settings.rememberInterpreter(QString::fromStdString(o.python));
    saveSettings();
    m_log->clear();
    appendLog(tr("recording %1%2 with %3 into %4")
                  .arg(o.asModule ? QStringLiteral("-m ") : QString(), QString::fromStdString(o.script),
                       QString::fromStdString(o.python), QString::fromStdString(o.outputDirectory.string())),
              true);
    showAsked();
    m_elapsed.start();
    m_run->start(o);
    setRunning(true);
    m_status->setText(tr("Starting %1…").arg(QString::fromStdString(o.python)));
}

bool RecordDialog::recordAgain()
{
    if (isRecording())
        return false;
    setOptions(m_run->options());
    return startRecord();
}

void RecordDialog::cancelRecord()
{
    if (m_recordQueued) {
        m_recordQueued = false;
        setRunning(false);
        m_status->setText(tr("Cancelled before the record started."));
        return;
    }
    if (!m_run->isRunning())
        return;
    if (m_run->isCancelling()) { // the second press: Drop
        appendLog(tr("dropping: the program is ended now; a trace being written is given up"), true);
        m_status->setText(tr("Dropping\u2026"));
        m_cancel->setEnabled(false);
        m_run->abandon();
        return;
    }
    appendLog(tr("cancelling: the record ends with the step in progress and is written, then the program ends "
                 "(Drop gives the write up)"),
              true);
    m_status->setText(tr("Cancelling\u2026"));
    m_cancel->setText(tr("&Drop"));
    m_cancel->setToolTip(tr("End the program now: the trace being written is given up"));
    m_run->cancel();
}

void RecordDialog::setRunning(bool running)
{
    m_record->setEnabled(!running);
    if (running)
        m_again->setEnabled(false); // enabled again when the record is over
    m_cancel->setEnabled(running);
    if (!running) {
        m_cancel->setText(tr("&Cancel"));
        m_cancel->setToolTip(QString());
    }
}

void RecordDialog::showProgress(const record::RecordProgress &progress)
{
    m_progress->setMaximum(std::max(1, progress.asked));
    m_progress->setValue(std::min(progress.recorded, m_progress->maximum()));
    if (progress.writing && progress.stopping) {
        m_status->setText(tr("Cancelling: waiting for the trace of %1 to be written. Drop gives it up.")
                              .arg(recordedStepsText(progress.recorded)));
        return;
    }
    if (progress.writing) {
        m_status->setText(tr("Writing the trace of %1\u2026").arg(recordedStepsText(progress.recorded)));
        return;
    }
    if (progress.stopping) {
        m_status->setText(tr("Cancelling: the record ends with step %1, then is written\u2026").arg(progress.steps));
        return;
    }
    m_status->setText(tr("Step %1 \u00b7 %2 of %3 recorded \u00b7 %4 s")
                          .arg(progress.steps)
                          .arg(progress.recorded)
                          .arg(progress.asked)
                          .arg(progress.elapsedSeconds, 0, 'f', 1));
}

void RecordDialog::finish(const record::RecordOutcome &outcome)
{
    setRunning(false);
    m_again->setEnabled(true);
    if (outcome.recordedSomething()) {
        QString text = outcome.exit.stopped
                           ? QString::fromStdString(record::cancelSummary(outcome, m_run->options()))
                           : tr("Recorded %1 of %2 steps in %3 s: %4")
                                 .arg(outcome.recorded)
                                 .arg(outcome.asked)
                                 .arg(outcome.elapsedSeconds, 0, 'f', 1)
                                 .arg(QString::fromStdString(outcome.traces.back().string()));
        if (outcome.exit.stopped)
            m_progress->setFormat(tr("%v of %m steps recorded; cancelled"));
        if (outcome.programFailed()) {
            // The trace is kept, but the program failed: said in red, after what was kept.
            const auto failure = QString::fromStdString(outcome.programFailure);
            m_status->setText(
                text.toHtmlEscaped() +
                QStringLiteral("<br><span style=\"color:#c62828\">%1</span>").arg(failure.toHtmlEscaped()));
            appendLog(text, true);
            appendLog(failure, true);
        } else {
            m_status->setText(text.toHtmlEscaped());
            appendLog(text, true);
        }
    } else {
        m_status->setText(QStringLiteral("<span style=\"color:#c62828\">%1</span>")
                              .arg(QString::fromStdString(outcome.message).toHtmlEscaped()));
        appendLog(QString::fromStdString(outcome.message), true);
    }
    Q_EMIT recordFinished(outcome);
}

void RecordDialog::appendLog(const QString &text, bool note)
{
    auto *bar = m_log->verticalScrollBar();
    const bool atEnd = bar->value() == bar->maximum();
    m_log->moveCursor(QTextCursor::End);
    if (note) {
        if (!m_log->document()->isEmpty() && !m_log->toPlainText().endsWith(QLatin1Char('\n')))
            m_log->insertPlainText(QStringLiteral("\n"));
        m_log->insertPlainText(QStringLiteral("\u25b8 pyrometer: ") + text + QLatin1Char('\n'));
    } else {
        m_log->insertPlainText(text);
    }
    if (atEnd)
        bar->setValue(bar->maximum());
}

void RecordDialog::saveSettings() const
{
    QSettings settings;
    m_settings.save(settings);
}

} // namespace pyrometer::ui
