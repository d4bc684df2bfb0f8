#pragma once

#include "core/torch/modelfile.h"
#include "core/trace/tracesource.h"

#include <QDateTime>
#include <QHash>
#include <QSet>
#include <QObject>
#include <QString>

#include <memory>
#include <vector>

namespace pyrometer::trace {
class Trace;
}

namespace pyrometer::ui {

class JobTracker;

struct TraceDocument {
    QString path;
    std::shared_ptr<const trace::Trace> trace;
    QDateTime modified; // the file's time when it was read: a rewritten file is a new trace
};

struct ModelDocument {
    QString path;
    torch::ModelInfo info;
    QDateTime modified; // the file's time when it was read
};

// What the user has open: traces and models. Opening runs a background job; the documents
// it yields are immutable and shared with the views. A failed open changes nothing that was
// already open.
class Workspace final : public QObject {
    Q_OBJECT
public:
    explicit Workspace(JobTracker *jobs, QObject *parent = nullptr);

    // Decides from the path what it is: a trace file, a TensorBoard log directory (whose runs
    // are offered through logDirectoryFound), or a model.
    void open(const QString &path);
    // partial: load the valid prefix of a truncated or damaged file, with a warning. A trace
    // that is open already is not loaded twice: traceOpenedAgain names it (and nothing happens
    // while it is still loading).
    void openTrace(const QString &path, bool partial = false);
    // The index of the open trace at path (the same file, however the path is written, not
    // rewritten since it was read), or -1.
    int traceIndexOf(const QString &path) const;
    // A model that is open already is not loaded twice: modelOpenedAgain names it.
    void openModel(const QString &path);
    int modelIndexOf(const QString &path) const;
    // Asks every page that shows one trace at a time to show trace index.
    void selectTrace(int index);

    const std::vector<TraceDocument> &traces() const { return m_traces; }
    const std::vector<ModelDocument> &models() const { return m_models; }

Q_SIGNALS:
    void traceOpened(int index);
    // An open trace was asked for again: the pages show it, as for a new one.
    void traceOpenedAgain(int index);
    void modelOpened(int index);
    void modelOpenedAgain(int index);
    // The pages that show one trace at a time move to trace index (an open trace opened again,
    // a restored session's current trace).
    void traceSelected(int index);
    // A log directory was opened: the user picks which of its files to open.
    void logDirectoryFound(const QString &path, const std::vector<pyrometer::trace::LogRun> &runs);
    // Problems found before any job starts (a missing path, a directory with no traces).
    // Failures of the load jobs themselves come through JobTracker::finished.
    void openFailed(const QString &message);
    // Loading a trace failed (the message also comes through JobTracker::finished): the window
    // can offer to load its valid part, unless that was what failed (partial).
    void traceLoadFailed(const QString &path, const QString &message, bool partial);
    // A file was opened successfully: for the recent-files list.
    void fileOpened(const QString &path);

private:
    JobTracker *m_jobs;
    QHash<quint64, QString> m_traceJobs; // running trace loads: job id -> path
    QSet<quint64> m_partialJobs;         // those that load a valid part
    QHash<quint64, QString> m_modelJobs; // running model loads: job id -> canonical path
    QSet<QString> m_loadingModels;
    std::vector<TraceDocument> m_traces;
    std::vector<ModelDocument> m_models;
};

} // namespace pyrometer::ui
