#include "ui/report/reportexporter.h"

#include "core/analysis/traceindex.h"
#include "core/report/modelreport.h"
#include "core/report/reportrender.h"
#include "core/trace/trace.h"
#include "ui/model/profilerun.h"
#include "ui/workspace/workspace.h"

#include <QFileInfo>

namespace pyrometer::ui {

ReportExporter::ReportExporter(Workspace *workspace, JobTracker *jobs, QObject *parent)
    : QObject(parent), m_workspace(workspace), m_jobs(jobs)
{
}

void ReportExporter::addContributor(const QString &name, Contributor contributor)
{
    m_contributors[name] = std::move(contributor);
}

JobTracker::JobId ReportExporter::exportTo(const QString &path, const report::ReportOptions &options)
{
    const auto format = report::formatForPath(path.toStdString());
    if (!format) {
        Q_EMIT failed(tr("%1: a report's name ends in .html or .md").arg(path));
        return 0;
    }
    std::vector<std::shared_ptr<const TraceDocument>> traces;
    for (const auto &[id, document] : m_workspace->traces())
        traces.push_back(document);
    auto run = m_modelRun ? m_modelRun() : nullptr;
    std::vector<report::Section> extra;
    for (const auto &[name, contributor] : m_contributors) {
        auto sections = contributor();
        extra.insert(extra.end(), std::make_move_iterator(sections.begin()), std::make_move_iterator(sections.end()));
    }
    if (traces.empty() && !run && extra.empty()) {
        Q_EMIT failed(tr("Nothing to report yet: open a trace or run a model's profile first."));
        return 0;
    }

    const std::string file = path.toStdString();
    const auto id = m_jobs->run<QString>(
        tr("Exporting %1").arg(QFileInfo(path).fileName()), QStringLiteral("report-export"),
        [traces, run, extra = std::move(extra), options, reportFormat = *format, file](ProgressReporter &progress,
                                                                                  const StopToken &stop) -> Result<QString> {
            const bool severalParts = traces.size() + (run ? 1 : 0) > 1;
            std::vector<report::Section> sections;
            std::vector<std::string> names;
            for (std::size_t i = 0; i < traces.size(); ++i) {
                progress.report(i, traces.size() + 1);
                auto more = report::traceSections(*traces[i]->index, severalParts ? "trace" + std::to_string(i + 1) + "-" : "", options, &stop);
                if (stop.stopRequested())
                    return Error{"report cancelled"};
                names.push_back(traces[i]->trace->info.file.filename().string());
                sections.insert(sections.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
            }
            if (run) {
                auto more = report::modelSections(run->latency, run->profile, severalParts ? "model-" : "", options);
                names.push_back(run->latency.path.filename().string());
                sections.insert(sections.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
            }
            auto document = report::makeReport(names, std::move(sections));
            report::appendSections(document, extra);
            const auto written = report::writeReport(document, file, reportFormat);
            if (!written.ok())
                return written.error();
            return QString::fromStdString(file);
        },
        this, [this](QString written) { Q_EMIT exported(written); });
    for (const auto &document : traces)
        m_jobs->addOwner(id, document->jobOwner());
    return id;
}

} // namespace pyrometer::ui
