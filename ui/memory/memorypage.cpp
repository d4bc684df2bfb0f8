#include "ui/memory/memorypage.h"

#include "core/analysis/opmemory.h"
#include "core/util/format.h"
#include "ui/jobs/jobtracker.h"
#include "ui/plots/memorycategoryplot.h"
#include "ui/plots/memorycurveplot.h"
#include "ui/shell/displaytext.h"
#include "ui/shell/emptystate.h"
#include "ui/shell/tracechooser.h"
#include "ui/tables/moduletree.h"
#include "ui/tables/tablepane.h"
#include "ui/workspace/analyses.h"
#include "ui/workspace/workspace.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QStackedLayout>
#include <QVBoxLayout>

namespace pyrometer::ui {

namespace {

struct MemoryData {
    analysis::MemoryReport report;
    tables::TableTree ops;
    std::int64_t originNs = 0;
};

// Where the categories came from and how finely, then what the peak held, largest first.
QString categoryCaptionText(const record::MemoryCategories &categories, const record::MemoryPeak &peak)
{
    QString text = QObject::tr("<b>Memory by category</b> \u2014 ");
    if (categories.source == "profiler")
        text += QObject::tr("from the profiler's memory timeline (%1)")
                    .arg(QString::fromStdString(categories.resolution).toHtmlEscaped());
    else
        text +=
            QObject::tr("measured by the recorder: %1; total from the %2, less the %3 in use before the program "
                        "started. Shaded: recorded steps.")
                .arg(QString::fromStdString(categories.resolution).toHtmlEscaped(),
                     QString::fromStdString(categories.allocator).toHtmlEscaped(), bytesText(categories.baselineBytes));
    if (!peak.found())
        return text;
    const auto total = peak.sample.total();
    text += QObject::tr("<br><b>Peak %1</b> (%2): ")
                .arg(bytesText(total), QString::fromStdString(record::memorySamplePlace(peak.sample)).toHtmlEscaped());
    return text + plots::peakCompositionHtml(peak.sample);
}

enum Pages { EmptyPage, ContentPage, NoMemoryPage };

} // namespace

MemoryPage::MemoryPage(Workspace *workspace, JobTracker *jobs, QWidget *parent)
    : QWidget(parent), m_workspace(workspace), m_jobs(jobs), m_stack(new QStackedLayout),
      m_empty(new EmptyState(tr("Memory"),
                             tr("Allocated and reserved memory of every device over time, each peak marked, and the "
                                "operators that allocated it, with what each still held at the peak."),
                             tr("Open a trace: Ctrl+O"), this)),
      m_noMemory(new EmptyState(tr("No memory events in this trace"),
                                tr("The profiler records every allocation and free only when asked to. Record "
                                   "again with torch.profiler.profile(activities=[...], profile_memory=True, "
                                   "record_shapes=True), then export the trace as before."),
                                tr("Memory curves need [memory] events: profile_memory=True"), this)),
      m_traceChooser(new TraceChooser(workspace, this)), m_summary(new QLabel(this)),
      m_curves(new plots::MemoryCurvePlot(this)), m_ops(new tables::TablePane(this)), m_categoryBox(new QWidget(this)),
      m_opsBox(nullptr), m_categoryPlot(new plots::MemoryCategoryPlot(m_categoryBox)),
      m_categoryCaption(new QLabel(m_categoryBox))
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Trace:"), this));
    bar->addWidget(m_traceChooser);
    bar->addSpacing(12);
    m_summary->setTextFormat(Qt::RichText);
    bar->addWidget(m_summary, 1);
    auto *barWidget = new QWidget(this);
    barWidget->setLayout(bar);
    bar->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(barWidget);
    outer->addLayout(m_stack, 1);

    auto *content = new QSplitter(Qt::Vertical, this);
    auto *categoryLayout = new QVBoxLayout(m_categoryBox);
    categoryLayout->setContentsMargins(0, 0, 0, 4);
    m_categoryCaption->setWordWrap(true);
    m_categoryCaption->setTextFormat(Qt::RichText);
    categoryLayout->addWidget(m_categoryCaption);
    categoryLayout->addWidget(m_categoryPlot, 1);
    content->addWidget(m_categoryBox);
    m_categoryBox->setVisible(false);
    content->addWidget(m_curves);
    auto *table = new QWidget(content);
    m_opsBox = table;
    auto *tableLayout = new QVBoxLayout(table);
    tableLayout->setContentsMargins(0, 4, 0, 0);
    auto *caption = new QLabel(tr("<b>Operators that allocated</b> \u2014 per device; <i>Held at peak</i>: what "
                                  "their allocations still held when the device peaked. Select a row to see "
                                  "its events in the timeline."),
                               table);
    caption->setWordWrap(true);
    tableLayout->addWidget(caption);
    tableLayout->addWidget(m_ops, 1);
    content->addWidget(table);
    content->setStretchFactor(0, 3);
    content->setStretchFactor(1, 2);

    m_stack->addWidget(m_empty);
    m_stack->addWidget(content);
    m_stack->addWidget(m_noMemory);
    barWidget->setVisible(false);

    connect(workspace, &Workspace::traceOpened, barWidget, [barWidget] { barWidget->setVisible(true); });
    connect(m_traceChooser, &TraceChooser::traceChosen, this, &MemoryPage::showTrace);
    connect(workspace, &Workspace::traceClosed, this, [this, barWidget](DocumentId id) {
        barWidget->setVisible(!m_workspace->traces().empty());
        if (id == m_traceId)
            showTrace(m_workspace->newestTrace());
    });
    connect(m_ops, &tables::TablePane::currentEventNameChanged, this, [this](const QString &name) {
        if (!name.isEmpty() && m_traceId >= 0)
            Q_EMIT rowEventsSelected(m_traceId, name);
    });
}

bool MemoryPage::hasContent() const
{
    return m_stack->currentIndex() != EmptyPage;
}

bool MemoryPage::showsCategories() const
{
    return m_stack->currentIndex() == ContentPage && !m_categoryBox->isHidden();
}

bool MemoryPage::showsNoMemory() const
{
    return m_stack->currentIndex() == NoMemoryPage;
}

void MemoryPage::showTrace(DocumentId id)
{
    const auto document = m_workspace->trace(id);
    m_traceId = document ? id : kNoDocument;
    if (!document) { // the last trace was closed
        m_report = {};
        m_curves->setReport(m_report, 0);
        m_ops->setTree({});
        m_stack->setCurrentIndex(EmptyPage);
        return;
    }
    m_traceChooser->select(id);
    const auto jobId = m_jobs->run<MemoryData>(
        tr("Computing memory curves"), QStringLiteral("memory-page"),
        [document](ProgressReporter &progress, const StopToken &stop) -> Result<MemoryData> {
            MemoryData result;
            result.originNs = document->trace->info.spanStart;
            if (document->trace->memory.size() == 0)
                return result;
            analysis::MemoryOptions options;
            options.topOps = 0;
            const auto report = analyses::memoryReport(*document, options, stop);
            if (!report)
                return Error{"memory curves cancelled"};
            result.report = *report;
            progress.reportPermille(700);
            const auto ops = analyses::opMemoryTable(*document, {}, stop);
            if (!ops)
                return Error{"memory curves cancelled"};
            result.ops = tables::buildOpMemoryTree(*ops);
            return result;
        },
        this,
        [this, id](MemoryData result) {
            if (id != m_traceId)
                return;
            m_report = std::move(result.report);
            const auto shown = m_workspace->trace(id);
            const auto categories = shown ? shown->memoryCategories : nullptr;
            m_categoryBox->setVisible(categories != nullptr);
            m_curves->setVisible(!m_report.devices.empty());
            m_opsBox->setVisible(!m_report.devices.empty());
            const auto peak = categories ? record::memoryPeak(*categories) : record::MemoryPeak{};
            if (categories) {
                m_categoryPlot->setCategories(*categories, peak);
                m_categoryCaption->setText(categoryCaptionText(*categories, peak));
            }
            if (m_report.devices.empty() && categories) {
                m_summary->setText(tr("recorded program: peak <b>%1</b>").arg(bytesText(peak.sample.total())));
                m_stack->setCurrentIndex(ContentPage);
                Q_EMIT memoryShown();
                return;
            }
            if (m_report.devices.empty()) {
                // A memory file beside the trace that could not be read says so.
                m_summary->setText(shown ? shown->memoryCategoriesError.toHtmlEscaped() : QString());
                m_stack->setCurrentIndex(NoMemoryPage);
                Q_EMIT memoryShown();
                return;
            }
            QStringList peaks;
            for (const auto &device : m_report.devices)
                peaks << tr("%1 peak <b>%2</b>")
                             .arg(QString::fromStdString(device.device),
                                  QString::fromStdString(
                                      formatBytes(std::uint64_t(std::max<std::int64_t>(0, device.peakBytes)))));
            m_summary->setText(peaks.join(QStringLiteral(" \u2003 ")));
            m_curves->setReport(m_report, result.originNs);
            m_ops->setTree(std::move(result.ops));
            m_stack->setCurrentIndex(ContentPage);
            Q_EMIT memoryShown();
        });
    m_jobs->addOwner(jobId, document->jobOwner());
}

} // namespace pyrometer::ui
