#include "ui/distributed/jobreportexport.h"

#include "core/report/jobreport.h"
#include "core/report/reportrender.h"

#include <QFileInfo>

namespace pyrometer::ui::distributed {

JobTracker::JobId exportJobReport(JobTracker *jobs, std::shared_ptr<const JobDocument> job, const QString &path,
                                  const report::ReportOptions &options, QObject *context,
                                  std::function<void(const QString &)> done, std::function<void(const QString &)> failed)
{
    const auto format = report::formatForPath(path.toStdString());
    if (!format) {
        failed(QObject::tr("%1: a report's name ends in .html or .md").arg(path));
        return 0;
    }
    const std::string file = path.toStdString();
    const auto id = jobs->run<QString>(
        QObject::tr("Exporting %1").arg(QFileInfo(path).fileName()), QStringLiteral("report-export"),
        [job, options, reportFormat = *format, file](ProgressReporter &, const StopToken &) -> Result<QString> {
            auto document = report::makeReport({job->title().toStdString()}, report::jobSections(job->figures, "", options));
            const auto written = report::writeReport(document, file, reportFormat);
            if (!written.ok())
                return written.error();
            return QString::fromStdString(file);
        },
        context, [done](QString written) { done(written); });
    jobs->addOwner(id, TraceDocument::jobOwnerOf(job->id));
    return id;
}

} // namespace pyrometer::ui::distributed
