#pragma once

#include "core/report/tracereport.h"
#include "ui/jobs/jobtracker.h"
#include "ui/workspace/document.h"

#include <QString>

#include <functional>
#include <memory>

namespace pyrometer::ui::distributed {

// File > Export report while the Distributed page shows a job: the job's report
// (report::jobSections, from its figures alone), written as HTML or Markdown by the file's
// extension in a background job. done(path) runs on the GUI thread when it is written; a failure
// comes through JobTracker::finished. Returns 0 (and says why through failed) for a name
// without a known extension.
JobTracker::JobId exportJobReport(JobTracker *jobs, std::shared_ptr<const JobDocument> job, const QString &path,
                                  const report::ReportOptions &options, QObject *context,
                                  std::function<void(const QString &)> done, std::function<void(const QString &)> failed);

} // namespace pyrometer::ui::distributed
