#include "ui/gpu/gpupage.h"

#include "core/analysis/workclass.h"

#include "core/util/format.h"
#include "ui/gpu/gputrees.h"
#include "ui/jobs/jobtracker.h"
#include "ui/shell/emptystate.h"
#include "ui/shell/tabkeys.h"
#include "ui/shell/tracechooser.h"
#include "ui/tables/tablepane.h"
#include "ui/workspace/analyses.h"
#include "ui/workspace/workspace.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedLayout>
#include <QTabWidget>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace pyrometer::ui::gpu {

namespace {

enum Pages { EmptyPage, ContentPage, NoGpuPage };

QString duration(std::int64_t ns)
{
    return QString::fromStdString(formatDuration(ns));
}

// A caption above a table: bold title, then what it means.
QLabel *caption(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(text, parent);
    label->setWordWrap(true);
    label->setTextFormat(Qt::RichText);
    return label;
}

} // namespace

GpuPage::GpuPage(Workspace *workspace, JobTracker *jobs, QWidget *parent)
    : QWidget(parent), m_workspace(workspace), m_jobs(jobs), m_stack(new QStackedLayout),
      m_empty(new EmptyState(tr("GPU"),
                             tr("Why the GPU waited and what to fuse or overlap: each kernel's launch delay and the "
                                "queue of launched kernels per stream, idle time per step and stream by cause, the "
                                "critical path of a step with what-ifs, and the kernel sequences that repeat."),
                             tr("Open a GPU trace: Ctrl+O"), this)),
      m_noGpu(new EmptyState(tr("No GPU events in this trace"),
                             tr("This trace holds CPU work only: record with "
                                "torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) "
                                "on a machine with a GPU to see launches, idle causes and the critical path."),
                             tr("Kernels, memcpy and memset events are needed"), this)),
      m_traceChooser(new TraceChooser(workspace, this)), m_summary(new QLabel(this)), m_tabs(new QTabWidget(this)),
      m_launches(new tables::TablePane(this)), m_streams(new tables::TablePane(this)),
      m_launchVerdict(new QLabel(this)), m_idle(new tables::TablePane(this)), m_path(new tables::TablePane(this)),
      m_sequences(new tables::TablePane(this)), m_step(new QComboBox(this)), m_pathKind(new QComboBox(this)),
      m_pathMinimum(new QSpinBox(this)), m_pathSummary(new QLabel(this)), m_graphs(new tables::TablePane(this)),
      m_graphsSummary(new QLabel(this))
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto *barWidget = new QWidget(this);
    auto *bar = new QHBoxLayout(barWidget);
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(new QLabel(tr("Trace:"), barWidget));
    bar->addWidget(m_traceChooser);
    bar->addSpacing(12);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    bar->addWidget(m_summary, 1);
    outer->addWidget(barWidget);
    outer->addLayout(m_stack, 1);

    // Launches: per kernel name and per stream.
    auto *launches = new QWidget(m_tabs);
    auto *launchesLayout = new QVBoxLayout(launches);
    launchesLayout->setContentsMargins(0, 4, 0, 0);
    auto *launchBar = new QHBoxLayout;
    launchBar->addWidget(
        caption(tr("<b>Launch delay</b> \u2014 kernel start minus the end of the call that launched "
                   "it (matched by correlation id). An <i>outlier</i> waited over 4x its kernel's median "
                   "and 50 \u00b5s more. Double-click a kernel to see its events in the Timeline."),
                launches),
        1);
    auto *outliers = new QPushButton(tr("Show outliers in Timeline"), launches);
    launchBar->addWidget(outliers, 0, Qt::AlignTop);
    launchesLayout->addLayout(launchBar);
    m_launchVerdict->setWordWrap(true);
    launchesLayout->addWidget(m_launchVerdict);
    auto *launchSplit = new QSplitter(Qt::Vertical, launches);
    launchSplit->addWidget(m_launches);
    launchSplit->addWidget(m_streams);
    launchSplit->setStretchFactor(0, 3);
    launchSplit->setStretchFactor(1, 1);
    launchesLayout->addWidget(launchSplit, 1);
    m_tabs->addTab(launches, tr("Launches"));

    auto *idle = new QWidget(m_tabs);
    auto *idleLayout = new QVBoxLayout(idle);
    idleLayout->setContentsMargins(0, 4, 0, 0);
    idleLayout->addWidget(
        caption(tr("<b>Why each stream was idle</b> in each step. <i>Host wait</i>: the next kernel "
                   "was launched after the stream went idle (the CPU was late). <i>Kernel wait</i>: it "
                   "had been launched before, and waited on another stream or an event. <i>Other</i>: "
                   "no launch in the trace, or nothing more ran before the step ended."),
                idle));
    idleLayout->addWidget(m_idle, 1);
    m_tabs->addTab(idle, tr("Idle"));

    auto *path = new QWidget(m_tabs);
    auto *pathLayout = new QVBoxLayout(path);
    pathLayout->setContentsMargins(0, 4, 0, 0);
    auto *pathBar = new QHBoxLayout;
    pathBar->addWidget(new QLabel(tr("Step:"), path));
    m_step->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    pathBar->addWidget(m_step);
    m_pathSummary->setWordWrap(true);
    m_pathSummary->setTextFormat(Qt::RichText);
    pathBar->addWidget(m_pathSummary, 1);
    auto *showPath = new QPushButton(tr("Show path in Timeline"), path);
    pathBar->addWidget(showPath, 0, Qt::AlignTop);
    pathLayout->addLayout(pathBar);
    // CPU nodes come grouped under their top-level op, longest first; these narrow the rows.
    auto *filterBar = new QHBoxLayout;
    filterBar->addWidget(new QLabel(tr("Show:"), path));
    m_pathKind->addItem(tr("All kinds"), analysis::kPathAllKinds);
    m_pathKind->addItem(tr("CPU work"), analysis::kPathCpu);
    m_pathKind->addItem(tr("Launches"), analysis::kPathLaunch);
    m_pathKind->addItem(tr("Syncs"), analysis::kPathSync);
    m_pathKind->addItem(tr("GPU"), analysis::kPathDevice);
    m_pathKind->addItem(tr("Waits"), analysis::kPathWait);
    filterBar->addWidget(m_pathKind);
    filterBar->addWidget(new QLabel(tr("at least"), path));
    m_pathMinimum->setRange(0, 1000000000);
    m_pathMinimum->setSuffix(QStringLiteral(" \u00b5s"));
    m_pathMinimum->setToolTip(tr("Rows that took (or, for waits, waited) at least this long; an op's group "
                                 "stays while one of its nodes or its sums do"));
    filterBar->addWidget(m_pathMinimum);
    filterBar->addStretch(1);
    pathLayout->addLayout(filterBar);
    pathLayout->addWidget(m_path, 1);
    m_tabs->addTab(path, tr("Critical path"));

    auto *sequences = new QWidget(m_tabs);
    auto *sequencesLayout = new QVBoxLayout(sequences);
    sequencesLayout->setContentsMargins(0, 4, 0, 0);
    sequencesLayout->addWidget(caption(tr("<b>Kernel sequences that repeat</b> on a stream, with the ops that launched "
                                          "them: candidates for fusion (torch.compile) or CUDA graphs, which launch a "
                                          "whole sequence at once. Those a graph replays already (<i>In CUDA "
                                          "graphs</i>) gain from fusion and from the gaps inside them only. No two "
                                          "rows count a kernel twice."),
                                       sequences));
    sequencesLayout->addWidget(m_sequences, 1);
    m_tabs->addTab(sequences, tr("Sequences"));

    auto *graphs = new QWidget(m_tabs);
    auto *graphsLayout = new QVBoxLayout(graphs);
    graphsLayout->setContentsMargins(0, 4, 0, 0);
    graphsLayout->addWidget(caption(tr("<b>CUDA graphs</b> \u2014 each replay (one cudaGraphLaunch) is one launch: its "
                                       "kernels, its span from first kernel start to last kernel end, the GPU's idle "
                                       "time inside it, and its first kernel's delay after the launch call. Expand a "
                                       "graph for its replays."),
                                    graphs));
    m_graphsSummary->setWordWrap(true);
    m_graphsSummary->setTextFormat(Qt::RichText);
    graphsLayout->addWidget(m_graphsSummary);
    graphsLayout->addWidget(m_graphs, 1);
    m_tabs->addTab(graphs, tr("CUDA graphs"));
    switchTabsWithCtrlTab(m_tabs, this);

    m_stack->addWidget(m_empty);
    m_stack->addWidget(m_tabs);
    m_stack->addWidget(m_noGpu);
    barWidget->setVisible(false);

    connect(workspace, &Workspace::traceOpened, barWidget, [barWidget] { barWidget->setVisible(true); });
    connect(m_traceChooser, &TraceChooser::traceChosen, this, &GpuPage::showTrace);
    connect(workspace, &Workspace::traceClosed, this, [this, barWidget](DocumentId id) {
        barWidget->setVisible(!m_workspace->traces().empty());
        if (id == m_traceId)
            showTrace(m_workspace->newestTrace());
    });
    connect(m_step, &QComboBox::activated, this,
            [this](int item) { computePath(std::size_t(m_step->itemData(item).toULongLong())); });
    connect(showPath, &QPushButton::clicked, this, &GpuPage::showPathInTimeline);
    connect(m_pathKind, &QComboBox::currentIndexChanged, this, [this] {
        if (m_data)
            this->showPath();
    });
    connect(m_pathMinimum, &QSpinBox::valueChanged, this, [this] {
        if (m_data)
            this->showPath();
    });
    connect(outliers, &QPushButton::clicked, this, &GpuPage::showOutliersInTimeline);
    for (auto *pane : {m_launches, m_path, m_sequences, m_idle}) {
        connect(pane, &tables::TablePane::eventNameActivated, this, [this](const QString &name) {
            if (m_traceId >= 0)
                Q_EMIT rowEventsActivated(m_traceId, name);
        });
    }
}

bool GpuPage::hasContent() const
{
    return m_stack->currentIndex() != EmptyPage;
}

bool GpuPage::showsNoGpu() const
{
    return m_stack->currentIndex() == NoGpuPage;
}

void GpuPage::showTrace(DocumentId id)
{
    const auto document = m_workspace->trace(id);
    m_traceId = document ? id : kNoDocument;
    if (!document) {
        m_data.reset();
        for (auto *pane : {m_launches, m_streams, m_idle, m_path, m_sequences, m_graphs})
            pane->setTree({});
        m_stack->setCurrentIndex(EmptyPage);
        return;
    }
    m_traceChooser->select(id);
    const auto jobId = m_jobs->run<std::shared_ptr<const GpuData>>(
        tr("Computing GPU analyses"), QStringLiteral("gpu-page"),
        [document](ProgressReporter &progress, const StopToken &stop) -> Result<std::shared_ptr<const GpuData>> {
            const Error cancelled{"GPU analyses cancelled"};
            auto data = std::make_shared<GpuData>();
            data->index = document->index;
            const auto &index = *document->index;
            if (!index.hasDevice)
                return std::shared_ptr<const GpuData>(data);
            data->launches = analyses::launchStats(*document, {}, stop);
            progress.reportPermille(250);
            data->idle = analyses::idleBreakdown(*document, {}, stop);
            if (!data->launches || !data->idle)
                return cancelled;
            progress.reportPermille(450);
            data->steps = analysis::buildStepSpans(index, &stop).steps;
            data->pathStep = std::size_t(std::max(0, analysis::longestStep(data->steps)));
            data->path = data->steps.empty() ? analysis::buildCriticalPath(index, analysis::EventRef{}, 10, &stop)
                                             : analysis::buildCriticalPath(index, data->steps[data->pathStep], 10, &stop);
            progress.reportPermille(800);
            data->sequences = analysis::findKernelSequences(index, {}, &stop);
            progress.reportPermille(900);
            data->graphs = analysis::buildGraphReplays(index, {}, &stop);
            if (stop.stopRequested())
                return cancelled;
            return std::shared_ptr<const GpuData>(data);
        },
        this,
        [this, id](std::shared_ptr<const GpuData> data) {
            if (id == m_traceId)
                populate(std::move(data));
        });
    m_jobs->addOwner(jobId, document->jobOwner());
}

void GpuPage::populate(std::shared_ptr<const GpuData> data)
{
    m_data = std::move(data);
    if (!m_data->index->hasDevice) {
        m_summary->clear();
        m_stack->setCurrentIndex(NoGpuPage);
        Q_EMIT gpuShown();
        return;
    }
    const auto &l = *m_data->launches;
    std::uint64_t outliers = 0;
    for (const auto &launch : l.launches)
        outliers += launch.outlier ? 1 : 0;
    using analysis::IdleCause;
    const auto &idle = m_data->idle->totalNs;
    m_summary->setText(
        tr("%1 launches%7, %2 outliers &nbsp;\u00b7&nbsp; at most <b>%3</b> launches waiting on "
           "one stream &nbsp;\u00b7&nbsp; idle in steps: host wait <b>%4</b>, kernel wait <b>%5</b>, other %6")
            .arg(l.launches.size())
            .arg(outliers)
            .arg(l.maxQueueLength)
            .arg(duration(idle[std::size_t(IdleCause::HostWait)]), duration(idle[std::size_t(IdleCause::KernelWait)]),
                 duration(idle[std::size_t(IdleCause::Other)]),
                 m_data->graphs.replays.empty()
                     ? QString()
                     : tr(" (%1 of them CUDA graph replays)").arg(m_data->graphs.replays.size())));
    m_launchVerdict->setText(
        QString::fromStdString(analysis::describeQueues(l.queue, analysis::acceleratorName(*m_data->index)))
            .toHtmlEscaped());
    const auto device = QString::fromStdString(analysis::acceleratorName(*m_data->index));
    m_launches->setTree(buildLaunchTree(l, false, device));
    m_streams->setTree(buildLaunchTree(l, true, device));
    m_idle->setTree(buildIdleTree(*m_data->idle, device));
    m_sequences->setTree(buildSequenceTree(m_data->sequences, device));
    const auto &graphs = m_data->graphs;
    m_graphs->setTree(buildGraphTree(graphs, m_data->index->trace->info.spanStart, device));
    const auto deviceNs = graphs.graphDeviceNs + graphs.eagerDeviceNs;
    m_graphsSummary->setText(
        graphs.replays.empty()
            ? (graphs.captures.empty()
                   ? tr("No CUDA graph replays in this trace: every kernel was launched on its own.")
                   : tr("%n graph capture(s) and no replay: what the capture launched did not run.", nullptr,
                        int(graphs.captures.size())))
            : tr("<b>%1</b> replays of <b>%2</b> graphs ran <b>%3</b> kernels, %4% of the GPU's time; %5 kernels were "
                 "launched one by one (%6). The GPU idled <b>%7</b> inside replays.%8")
                  .arg(graphs.replays.size())
                  .arg(graphs.graphs.size())
                  .arg(graphs.graphEvents)
                  .arg(deviceNs > 0 ? 100.0 * double(graphs.graphDeviceNs) / double(deviceNs) : 0.0, 0, 'f', 1)
                  .arg(graphs.eagerEvents)
                  .arg(duration(graphs.eagerDeviceNs), duration(graphs.gapInsideNs))
                  .arg(graphs.captures.empty()
                           ? QString()
                           : tr(" %n capture(s) recorded graphs here.", nullptr, int(graphs.captures.size()))));
    m_step->clear();
    for (std::size_t i = 0; i < m_data->steps.size(); ++i) {
        const auto &s = m_data->steps[i];
        m_step->addItem(tr("%1 (%2)").arg(QString::fromStdString(s.name), duration(s.durationNs())), quint64(i));
    }
    if (m_data->steps.empty())
        m_step->addItem(tr("The whole trace (no ProfilerStep)"), quint64(0));
    m_step->setCurrentIndex(int(m_data->pathStep));
    showPath();
    m_stack->setCurrentIndex(ContentPage);
    Q_EMIT gpuShown();
}

void GpuPage::computePath(std::size_t step)
{
    const auto document = m_workspace->trace(m_traceId);
    if (!document || !m_data || step >= m_data->steps.size() || step == m_data->pathStep)
        return;
    const auto previous = m_data;
    const DocumentId id = m_traceId;
    const auto jobId = m_jobs->run<std::shared_ptr<const GpuData>>(
        tr("Computing the critical path"), QStringLiteral("gpu-path"),
        [previous, step](ProgressReporter &, const StopToken &stop) -> Result<std::shared_ptr<const GpuData>> {
            auto data = std::make_shared<GpuData>(*previous);
            data->pathStep = step;
            data->path = analysis::buildCriticalPath(*data->index, data->steps[step], 10, &stop);
            if (stop.stopRequested())
                return Error{"critical path cancelled"};
            return std::shared_ptr<const GpuData>(data);
        },
        this,
        [this, id](std::shared_ptr<const GpuData> data) {
            if (id != m_traceId)
                return;
            m_data = std::move(data);
            showPath();
            Q_EMIT gpuShown();
        });
    m_jobs->addOwner(jobId, document->jobOwner());
}

void GpuPage::showPath()
{
    const auto &p = m_data->path;
    analysis::PathRowOptions options;
    options.kinds = m_pathKind->currentData().toUInt();
    options.minNs = std::int64_t(m_pathMinimum->value()) * 1000;
    m_path->setTree(buildCriticalPathTree(p, analysis::buildPathRows(*m_data->index, p, options),
                                          m_data->index->trace->info.spanStart));
    m_path->view()->collapseAll(); // an op's rows: its total first, the nodes on demand
    QString best;
    if (!p.whatIfs.empty() && p.whatIfs.front().savedNs > 0) {
        const auto &w = p.whatIfs.front();
        const QString what = QStringLiteral("<b>%1</b>").arg(QString::fromStdString(w.name).toHtmlEscaped());
        best = tr(" If %1 were twice as fast, the step would be %2 (%3%) shorter.")
                   .arg(what, duration(w.savedNs))
                   .arg(w.savedPct, 0, 'f', 1);
    }
    m_pathSummary->setText(
        tr("%1 on the path: CPU %2, GPU %3, waiting between them %4.")
            .arg(duration(p.lengthNs()), duration(p.cpuNs), duration(p.deviceNs), duration(p.waitNs)) +
        best);
}

void GpuPage::showPathInTimeline()
{
    if (!m_data || m_data->path.nodes.empty())
        return;
    overview::TimelineJump jump;
    for (const auto &node : m_data->path.nodes)
        jump.events.push_back(node.event);
    jump.startNs = m_data->path.startNs;
    jump.endNs = m_data->path.endNs;
    Q_EMIT timelineJumpRequested(m_traceId, jump);
}

void GpuPage::showOutliersInTimeline()
{
    if (!m_data)
        return;
    overview::TimelineJump jump;
    for (const auto &launch : m_data->launches->launches) {
        if (!launch.outlier)
            continue;
        jump.events.push_back(launch.kernel);
        jump.events.push_back(launch.call);
        const auto end = launch.kernelStartNs + launch.kernelNs;
        jump.startNs = jump.events.size() == 2 ? launch.callStartNs : std::min(jump.startNs, launch.callStartNs);
        jump.endNs = std::max(jump.endNs, end);
    }
    if (!jump.events.empty())
        Q_EMIT timelineJumpRequested(m_traceId, jump);
}

} // namespace pyrometer::ui::gpu
