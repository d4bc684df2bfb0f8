#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QDialog>

#include "core/record/recorder.h"
#include "ui/record/recordsettings.h"

#include <QElapsedTimer>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace pyrometer::ui {

class InterpreterProbe;
class RecordRun;

// File → Record program…: runs the user's script or module, unchanged, in their own
// interpreter under the profiler. Above, what to run and how to record it (remembered);
// below, the program's output as it comes, progress in steps and elapsed time. Record starts,
// Cancel stops the program (interrupt, then terminate) and keeps a complete trace, Record again
// repeats with the same settings. The interpreter is asked what its torch offers (CUDA or not)
// once its name stops changing; Record pressed before it answers waits for that answer, so
// that a record never starts with what an earlier interpreter, or none, offered. The dialog is
// not modal, and closing it does not stop a record: the window stays usable and opens the trace
// when it is written.
class RecordDialog final : public QDialog {
    Q_OBJECT
public:
    explicit RecordDialog(QWidget *parent = nullptr);
    ~RecordDialog() override;

    // The options as the form says (python, script, arguments, ...).
    record::RecordOptions options() const;
    void setOptions(const record::RecordOptions &options);
    // Starts a record with the form's options, or queues it until the interpreter has answered
    // (isRecording() is true from then); false (with the reason shown) when the form is
    // incomplete or a record is running.
    bool startRecord();
    // Records again with the last record's options (the form shows them).
    bool recordAgain();
    void cancelRecord();

    RecordRun *run() const { return m_run; }
    InterpreterProbe *interpreterProbe() const { return m_probe; }
    // A record runs, or waits for the interpreter's answer to start.
    bool isRecording() const;
    bool isWaitingForProbe() const { return m_recordQueued; }
    QComboBox *pythonCombo() const { return m_python; }
    QLineEdit *scriptEdit() const { return m_script; }
    QLineEdit *argumentsEdit() const { return m_arguments; }
    QLabel *interpreterLabel() const { return m_interpreter; }
    QPlainTextEdit *log() const { return m_log; }
    QProgressBar *progressBar() const { return m_progress; }
    QLabel *statusLabel() const { return m_status; }
    QPushButton *recordButton() const { return m_record; }
    QPushButton *cancelButton() const { return m_cancel; }
    QPushButton *recordAgainButton() const { return m_again; }
    QCheckBox *cudaCheck() const { return m_cuda; }

Q_SIGNALS:
    // A trace was written (complete): the window opens it.
    void traceRecorded(const QString &path);
    // A record ended; outcome says what it kept and, for a failure, why.
    void recordFinished(const pyrometer::record::RecordOutcome &outcome);

private:
    QGroupBox *programGroup();
    QGroupBox *recordGroup();
    void setLayoutOfParts();
    void connectParts();
    void probe();
    void showProbe(const Result<record::InterpreterInfo> &info);
    void probeAnswered();
    void beginRecord();
    void updateMarkFields();
    // The bar before a record: 0 of the steps the form asks.
    void showAsked();
    // The interpreter line (HTML), its plain text as the tooltip.
    void setInterpreterText(const QString &html);
    void setRunning(bool running);
    void showProgress(const record::RecordProgress &progress);
    void finish(const record::RecordOutcome &outcome);
    void appendLog(const QString &text, bool note = false);
    void saveSettings() const;

    RecordRun *m_run;
    InterpreterProbe *m_probe;
    RecordSettings m_settings;
    QComboBox *m_python;
    QLabel *m_interpreter;
    QRadioButton *m_asScript;
    QRadioButton *m_asModule;
    QLineEdit *m_script;
    QLineEdit *m_arguments;
    QLineEdit *m_workingDirectory;
    QLineEdit *m_environment;
    QLineEdit *m_outputDirectory;
    QComboBox *m_mark;
    QSpinBox *m_skip;
    QSpinBox *m_warmup;
    QSpinBox *m_steps;
    QSpinBox *m_repeat;
    QDoubleSpinBox *m_delay;
    QDoubleSpinBox *m_duration;
    QCheckBox *m_cuda;
    QCheckBox *m_shapes;
    QCheckBox *m_memory;
    QCheckBox *m_stack;
    QCheckBox *m_modules;
    QCheckBox *m_keepRunning;
    QPlainTextEdit *m_log;
    QProgressBar *m_progress;
    QLabel *m_status;
    QPushButton *m_record;
    QPushButton *m_cancel;
    QPushButton *m_again;
    QElapsedTimer m_elapsed;
    bool m_recordQueued = false;
};

} // namespace pyrometer::ui
