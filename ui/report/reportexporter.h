#pragma once

// Qt first: moc cannot parse <compare> (included by our headers) before a Qt header.
#include <QObject>
#include <QString>

#include "core/report/tracereport.h"
#include "ui/jobs/jobtracker.h"

#include <functional>
#include <map>
#include <memory>

namespace pyrometer::ui {

struct ProfileRun;
class Workspace;

// File > Export report: builds the report of every open trace and the model's last run in a
// background job, and writes it as HTML or Markdown (by the file's extension). Pages that come
// later add their own sections (sweep plots, comparisons) through addContributor.
class ReportExporter final : public QObject {
    Q_OBJECT
public:
    ReportExporter(Workspace *workspace, JobTracker *jobs, QObject *parent = nullptr);

    // Called on the GUI thread when a report is made; returns finished sections (tables,
    // plots rendered to PNG or SVG), which the job appends after the traces' and the model's.
    using Contributor = std::function<std::vector<report::Section>()>;
    void addContributor(const QString &name, Contributor contributor);
    // The model run to report, if any (the Model page's last run).
    void setModelRun(std::function<std::shared_ptr<const ProfileRun>()> provider) { m_modelRun = std::move(provider); }

    // Starts the job; 0 when there is nothing to report or the name has no known extension
    // (both said through failed()).
    JobTracker::JobId exportTo(const QString &path, const report::ReportOptions &options);

Q_SIGNALS:
    void exported(const QString &path);
    void failed(const QString &message);

private:
    Workspace *m_workspace;
    JobTracker *m_jobs;
    std::map<QString, Contributor> m_contributors;
    std::function<std::shared_ptr<const ProfileRun>()> m_modelRun;
};

} // namespace pyrometer::ui
