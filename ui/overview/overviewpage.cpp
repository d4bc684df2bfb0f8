#include "ui/overview/overviewpage.h"

#include "ui/shell/preferences.h"

#include "core/util/format.h"
#include "ui/jobs/jobtracker.h"
#include "ui/overview/advicedelegate.h"
#include "ui/overview/summarycards.h"
#include "ui/plots/kerneltypeplot.h"
#include "ui/plots/memorycategoryplot.h"
#include "ui/plots/stepbreakdownplot.h"
#include "ui/shell/contrast.h"
#include "ui/shell/emptystate.h"
#include "ui/shell/tracechooser.h"
#include "ui/timeline/kernelname.h"
#include "ui/workspace/workspace.h"

#include <QApplication>

#include <QFileInfo>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QProgressBar>
#include <QResizeEvent>
#include <QScrollArea>
#include <QStackedLayout>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <array>

namespace pyrometer::ui {

using overview::OverviewData;

namespace {

constexpr int kNameRole = Qt::UserRole + 1;

QString bytes(std::int64_t value)
{
    return QString::fromStdString(formatBytes(std::uint64_t(std::max<std::int64_t>(0, value))));
}

QString percent(double value)
{
    return QStringLiteral("%1%").arg(value, 0, 'f', value < 10 ? 1 : 0);
}

QString gpuName(const QString &accelerator, std::int32_t device)
{
    return QObject::tr("%1 %2").arg(accelerator).arg(device);
}

// Secondary text in rich text: the palette's, which reads at 4.5:1 in both themes (a
// platform's may be translucent: seen over the window).
QString secondaryColor()
{
    const QPalette palette = QApplication::palette();
    const QColor text = palette.color(QPalette::PlaceholderText);
    const QColor under = palette.color(QPalette::Window);
    const double a = text.alphaF();
    return QColor::fromRgbF(float(text.redF() * a + under.redF() * (1 - a)),
                            float(text.greenF() * a + under.greenF() * (1 - a)),
                            float(text.blueF() * a + under.blueF() * (1 - a)))
        .name();
}

// A headline figure: a large value over a small caption.
QString tile(const QString &value, const QString &caption)
{
    return QStringLiteral("<td style='padding-right:28px'><span style='font-size:15pt; font-weight:600'>%1</span>"
                          "<br><span style='color:%3'>%2</span></td>")
        .arg(value, caption, secondaryColor());
}

QTreeWidget *compactTable(const QStringList &headers, QWidget *parent)
{
    auto *table = new QTreeWidget(parent);
    table->setHeaderLabels(headers);
    table->setRootIsDecorated(false);
    table->setUniformRowHeights(true);
    table->setAlternatingRowColors(true);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    table->setTextElideMode(Qt::ElideMiddle);
    table->header()->setStretchLastSection(false);
    table->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < headers.size(); ++c) {
        table->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
        table->headerItem()->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
    }
    table->setToolTip(QObject::tr("Click a row to open it in the Operators page"));
    return table;
}

void fitRows(QTreeWidget *table, int rows)
{
    const int row = table->topLevelItemCount() > 0 ? table->sizeHintForRow(0) : table->fontMetrics().height() + 4;
    table->setFixedHeight(table->header()->sizeHint().height() + row * std::max(rows, 1) + 2 * table->frameWidth() + 2);
}

QTreeWidgetItem *tableRow(QTreeWidget *table, const QStringList &cells, const QString &name)
{
    auto *item = new QTreeWidgetItem(table, cells);
    for (int c = 1; c < cells.size(); ++c)
        item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
    item->setData(0, kNameRole, name);
    item->setToolTip(0, name);
    return item;
}

QGroupBox *section(const QString &title, QWidget *parent)
{
    auto *box = new QGroupBox(title, parent);
    QFont font = box->font();
    font.setBold(true);
    box->setFont(font);
    return box;
}

// Children of a bold group box keep the normal font.
void normalFont(QWidget *widget)
{
    QFont font = widget->font();
    font.setBold(false);
    widget->setFont(font);
}

QLabel *note(QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setWordWrap(true);
    label->setForegroundRole(QPalette::PlaceholderText); // secondary text, 4.5:1 in both themes
    normalFont(label);
    return label;
}

} // namespace

OverviewPage::OverviewPage(Workspace *workspace, JobTracker *jobs, QWidget *parent)
    : QWidget(parent), m_workspace(workspace), m_jobs(jobs), m_stack(new QStackedLayout(this)),
      m_empty(new EmptyState(tr("Overview"),
                             tr("Where the time went, at a glance: the trace's devices, span and steps, "
                                "a breakdown of each step, the top operators and kernels, memory peaks, "
                                "and advice on what to change first."),
                             tr("Open a trace: Ctrl+O \u2003\u00b7\u2003 Open a model: Ctrl+M \u2003\u00b7\u2003 "
                                "or drop files and folders here"),
                             this))
{
    m_stack->addWidget(m_empty);
    m_stack->addWidget(buildContent());
    connect(workspace, &Workspace::traceOpened, this, [this] {
        refreshDetails();
        m_traceChooser->setVisible(m_traceChooser->count() > 1);
    });
    connect(workspace, &Workspace::traceClosed, this, [this](DocumentId id) {
        refreshDetails();
        m_traceChooser->setVisible(m_traceChooser->count() > 1);
        if (id == m_traceId)
            showTrace(m_workspace->newestTrace());
    });
    connect(workspace, &Workspace::modelOpened, this, &OverviewPage::refreshDetails);
    connect(workspace, &Workspace::modelClosed, this, &OverviewPage::refreshDetails);
    connect(m_traceChooser, &TraceChooser::traceChosen, this, &OverviewPage::showTrace);
}

QWidget *OverviewPage::buildContent()
{
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto *content = new QWidget(scroll);
    auto *layout = new QVBoxLayout(content);
    layout->setContentsMargins(4, 0, 12, 12);
    layout->setSpacing(10);
    scroll->setWidget(content);

    m_traceSections = new QWidget(content);
    auto *sections = new QVBoxLayout(m_traceSections);
    sections->setContentsMargins(0, 0, 0, 0);
    sections->setSpacing(10);
    layout->addWidget(m_traceSections);

    auto *top = new QHBoxLayout;
    m_headline = new QLabel(m_traceSections);
    m_headline->setTextFormat(Qt::RichText);
    top->addWidget(m_headline, 1);
    m_traceChooser = new TraceChooser(m_workspace, m_traceSections);
    m_traceChooser->setVisible(false);
    top->addWidget(m_traceChooser, 0, Qt::AlignTop);
    sections->addLayout(top);

    // Where the time went: the steps, and beside them how busy the GPUs were.
    auto *row = new QHBoxLayout;
    auto *steps = section(tr("Step time breakdown"), m_traceSections);
    auto *stepsLayout = new QVBoxLayout(steps);
    m_stepTitle = note(steps);
    stepsLayout->addWidget(m_stepTitle);
    m_stepPlot = new plots::StepBreakdownPlot(steps);
    normalFont(m_stepPlot);
    stepsLayout->addWidget(m_stepPlot);
    row->addWidget(steps, 3);

    auto *side = new QVBoxLayout;
    auto *gpu = section(tr("GPU utilization"), m_traceSections);
    auto *gpuLayout = new QVBoxLayout(gpu);
    m_gpuNote = note(gpu);
    gpuLayout->addWidget(m_gpuNote);
    m_utilization = new QWidget(gpu);
    m_utilizationGrid = new QGridLayout(m_utilization);
    m_utilizationGrid->setContentsMargins(0, 0, 0, 0);
    gpuLayout->addWidget(m_utilization);
    side->addWidget(gpu);
    auto *memory = section(tr("Memory peak"), m_traceSections);
    auto *memoryLayout = new QVBoxLayout(memory);
    m_memoryNote = note(memory);
    m_memoryNote->setTextFormat(Qt::RichText);
    memoryLayout->addWidget(m_memoryNote);
    side->addWidget(memory);
    side->addStretch(1);
    row->addLayout(side, 1);
    sections->addLayout(row);

    // GPU traces: what the GPU ran, by kind, and why its streams waited.
    m_gpuAnalyses = new QWidget(m_traceSections);
    auto *gpuRow = new QHBoxLayout(m_gpuAnalyses);
    gpuRow->setContentsMargins(0, 0, 0, 0);
    auto *types = section(tr("GPU time by kernel type"), m_gpuAnalyses);
    auto *typesLayout = new QVBoxLayout(types);
    m_kernelTypes = new plots::KernelTypePlot(types);
    normalFont(m_kernelTypes);
    typesLayout->addWidget(m_kernelTypes);
    gpuRow->addWidget(types, 3);
    auto *idle = section(tr("Why the GPU waited"), m_gpuAnalyses);
    auto *idleLayout = new QVBoxLayout(idle);
    m_idleNote = note(idle);
    idleLayout->addWidget(m_idleNote);
    m_idle = compactTable({tr("Stream"), tr("Busy"), tr("Host wait"), tr("Kernel wait"), tr("Other")}, idle);
    m_idle->setToolTip(tr("Host wait: the CPU launched the next kernel late. Kernel wait: it was launched, and waited "
                          "on another stream or event. Other: no launch recorded, or the step's tail. The GPU page "
                          "lists every step."));
    normalFont(m_idle);
    idleLayout->addWidget(m_idle);
    idleLayout->addStretch(1);
    gpuRow->addWidget(idle, 2);
    sections->addWidget(m_gpuAnalyses);

    // What to change.
    auto *advice = section(tr("Advice"), m_traceSections);
    auto *adviceLayout = new QVBoxLayout(advice);
    m_advice = new QListWidget(advice);
    normalFont(m_advice);
    m_advice->setItemDelegate(new overview::AdviceDelegate(m_advice));
    m_advice->setSpacing(1);
    m_advice->setAlternatingRowColors(true);
    m_advice->setResizeMode(QListView::Adjust);
    m_advice->setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    m_advice->setToolTip(tr("Click a finding to see its evidence in the timeline"));
    m_advice->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_advice->viewport()->installEventFilter(this);
    adviceLayout->addWidget(m_advice);
    sections->addWidget(advice);

    auto *tables = new QHBoxLayout;
    auto *ops = section(tr("Top operators by self time"), m_traceSections);
    auto *opsLayout = new QVBoxLayout(ops);
    m_opsNote = note(ops);
    opsLayout->addWidget(m_opsNote);
    m_topOps = compactTable({tr("Operator"), tr("Self"), tr("Self %"), tr("Calls"), tr("Total"), tr("Device")}, ops);
    normalFont(m_topOps);
    opsLayout->addWidget(m_topOps);
    tables->addWidget(ops, 1);
    auto *kernels = section(tr("Top GPU kernels"), m_traceSections);
    auto *kernelsLayout = new QVBoxLayout(kernels);
    m_kernelsNote = note(kernels);
    kernelsLayout->addWidget(m_kernelsNote);
    m_topKernels =
        compactTable({tr("Kernel"), tr("Launched by"), tr("Total"), tr("% of GPU"), tr("Count"), tr("Avg")}, kernels);
    m_topKernels->headerItem()->setTextAlignment(1, Qt::AlignLeft | Qt::AlignVCenter);
    m_topKernels->headerItem()->setToolTip(1, tr("The operator that launched most of the kernel's time"));
    // The kernel's name gets the room: the launching op is short, or elided.
    m_topKernels->header()->setSectionResizeMode(1, QHeaderView::Interactive);
    m_topKernels->header()->resizeSection(
        1, m_topKernels->fontMetrics().horizontalAdvance(QStringLiteral("aten::native_layer_n")));
    normalFont(m_topKernels);
    kernelsLayout->addWidget(m_topKernels);
    kernelsLayout->addStretch(1);
    tables->addWidget(kernels, 1);
    sections->addLayout(tables);

    auto *details = section(tr("Open files"), content);
    auto *detailsLayout = new QVBoxLayout(details);
    m_details = new QLabel(details);
    m_details->setTextFormat(Qt::RichText);
    m_details->setWordWrap(true);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    normalFont(m_details);
    detailsLayout->addWidget(m_details);
    layout->addWidget(details);
    layout->addStretch(1);

    connect(m_advice, &QListWidget::itemClicked, this, [this](QListWidgetItem *item) {
        const int finding = item->data(kNameRole).toInt();
        if (!m_data || finding < 0 || std::size_t(finding) >= m_data->advice.size())
            return;
        Q_EMIT timelineJumpRequested(m_traceId,
                                     overview::jumpFor(m_data->advice[std::size_t(finding)], *m_data->trace));
    });
    connect(m_topOps, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem *item) {
        Q_EMIT operatorRequested(m_traceId, item->data(0, kNameRole).toString(), false);
    });
    connect(m_topKernels, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem *item) {
        Q_EMIT operatorRequested(m_traceId, item->data(0, kNameRole).toString(), true);
    });
    m_traceSections->setVisible(false);
    return scroll;
}

bool OverviewPage::hasContent() const
{
    return m_stack->currentIndex() == 1;
}

QString OverviewPage::summaryHtml() const
{
    return m_details->text();
}

void OverviewPage::refreshDetails()
{
    QString html = QStringLiteral("<style>h2 { margin-top: 10px; } td { padding: 2px 12px 2px 0; } "
                                  "td.k { font-weight: bold; }</style>");
    for (const auto &[id, document] : m_workspace->traces())
        html += overview::traceCard(*document);
    for (const auto &[id, document] : m_workspace->models())
        html += overview::modelCard(*document);
    m_details->setText(html);
    const bool any = !m_workspace->traces().empty() || !m_workspace->models().empty();
    m_stack->setCurrentIndex(any ? 1 : 0);
}

void OverviewPage::reformat()
{
    refreshDetails();
    if (m_data)
        populate(m_data);
}

namespace {

// The Overview's analyses as one entry of the document's cache.
struct OverviewKey {
    bool operator==(const OverviewKey &) const = default;
};

} // namespace

void OverviewPage::showTrace(DocumentId id)
{
    const auto document = m_workspace->trace(id);
    m_traceId = document ? id : kNoDocument;
    if (!document) { // the last trace was closed
        m_data.reset();
        m_stepPlot->setSteps({});
        m_traceSections->setVisible(false);
        return;
    }
    m_traceChooser->select(id);
    const auto jobId = m_jobs->run<std::shared_ptr<const OverviewData>>(
        tr("Analysing the trace"), QStringLiteral("overview"),
        [document](ProgressReporter &progress, const StopToken &stop) -> Result<std::shared_ptr<const OverviewData>> {
            Error failure{"overview cancelled"};
            auto data =
                document->analyses.get<OverviewData>(OverviewKey{}, stop, [&]() -> std::shared_ptr<const OverviewData> {
                    auto computed = overview::computeOverview(*document, stop, progress);
                    if (!computed.ok()) {
                        failure = computed.error();
                        return nullptr;
                    }
                    return std::make_shared<const OverviewData>(std::move(computed).value());
                });
            if (!data)
                return failure;
            return data;
        },
        this,
        [this, id](std::shared_ptr<const OverviewData> result) {
            if (id == m_traceId)
                populate(std::move(result));
        });
    m_jobs->addOwner(jobId, document->jobOwner());
}

void OverviewPage::populate(std::shared_ptr<const OverviewData> result)
{
    m_data = std::move(result);
    const auto &d = *m_data;
    fillHeadline(d);
    // How the steps were found (ProfilerStep, optimizer steps or a repeated annotation).
    m_stepTitle->setText(d.hasProfilerSteps
                             ? tr("Each step's wall time by what ran during it (hover a bar for its values). %1")
                                   .arg(QString::fromStdString(d.stepRule))
                             : tr("No steps in this trace (record with a schedule and prof.step()): the "
                                  "whole trace as one bar."));
    m_stepPlot->setSteps(d.steps);
    fillUtilization(d);
    fillAdvice(d);
    fillTopTables(d);
    fillMemory(d);
    fillGpuAnalyses(d);
    m_traceSections->setVisible(true);
    m_stack->setCurrentIndex(1);
    Q_EMIT overviewShown();
}

void OverviewPage::fillHeadline(const OverviewData &d)
{
    const auto &info = d.trace->info;
    const QLocale locale;
    QString devices;
    const auto &gpus = d.utilization.devices;
    const bool deviceMemory = std::any_of(d.memory.devices.begin(), d.memory.devices.end(),
                                          [](const auto &device) { return device.deviceType != 0; });
    if (gpus.empty()) {
        // GPU memory without kernels (a partial file, a memory-only trace) is not "CPU only".
        devices = d.index->hasDevice ? tr("GPU") : deviceMemory ? tr("no GPU kernels") : tr("CPU only");
    } else {
        QStringList names;
        for (const auto &busy : gpus)
            names << QString::number(busy.device);
        devices = gpus.size() == 1 ? tr("%1 %2").arg(d.accelerator, names.front())
                                   : tr("%1s %2").arg(d.accelerator, names.join(QStringLiteral(", ")));
    }
    QString html =
        QStringLiteral("<span style='font-size:13pt; font-weight:600'>%1</span><table style='margin-top:6px'><tr>")
            .arg(m_workspace->trace(m_traceId)->fileName().toHtmlEscaped());
    if (info.partial)
        html = QStringLiteral("<div style='color:#c0392b; font-weight:600; margin-bottom:4px'>%1</div>")
                   .arg(tr("Partial: the file is truncated and only its valid part was loaded (%1 events, %2 of JSON); "
                           "every figure below covers that part only.")
                            .arg(locale.toString(qulonglong(info.eventCount)),
                                 QString::fromStdString(formatBytes(info.jsonBytes)))) +
               html;
    html +=
        tile(displayDuration(info.spanNanoseconds()), info.partial ? tr("span of the loaded part") : tr("trace span"));
    if (d.hasProfilerSteps) {
        std::vector<std::int64_t> durations;
        for (const auto &step : d.steps)
            durations.push_back(step.durationNs);
        const auto mean = analysis::stepMean(durations);
        html += tile(locale.toString(qulonglong(d.steps.size())), tr("steps"));
        QStringList out;
        if (mean.warmUp > 0)
            out << tr("%1 warm-up").arg(mean.warmUp);
        if (mean.partial > 0)
            out << tr("%1 partial").arg(mean.partial);
        html += tile(displayDuration(mean.meanNs),
                     out.isEmpty() || mean.steady == 0
                         ? tr("mean step")
                         : tr("mean of %1; %2 left out")
                               .arg(QString::fromStdString(countOf(std::int64_t(mean.steady), "steady step")),
                                    out.join(QStringLiteral(", "))));
    }
    html += tile(devices, tr("devices"));
    for (const auto &busy : gpus)
        html += tile(percent(100.0 * busy.utilization()),
                     d.utilization.overSteps ? tr("%1 busy in steps").arg(gpuName(d.accelerator, busy.device))
                                             : tr("%1 busy in the trace").arg(gpuName(d.accelerator, busy.device)));
    for (const auto &device : d.memory.devices)
        if (device.deviceType != 0)
            html += tile(bytes(device.peakBytes), tr("peak on %1").arg(QString::fromStdString(device.device)));
    html += tile(QString::number(d.advice.size()), d.advice.size() == 1 ? tr("finding") : tr("findings"));
    m_headline->setText(html + QStringLiteral("</tr></table>"));
}

void OverviewPage::fillUtilization(const OverviewData &d)
{
    while (auto *item = m_utilizationGrid->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    if (!d.index->hasDevice) {
        m_gpuNote->setText(tr("CPU-only trace: no GPU kernels were recorded, so there is no GPU utilization."));
        m_utilization->setVisible(false);
        return;
    }
    const auto measured = d.utilization.devices.empty() ? 0 : d.utilization.devices.front().spanNs;
    m_gpuNote->setText(
        d.utilization.overSteps
            ? tr("Share of the step time (%1 in %2) in which each %3 ran a kernel, memcpy or memset.")
                  .arg(displayDuration(measured),
                       d.utilization.steps == 1 ? tr("1 step") : tr("%1 steps").arg(d.utilization.steps), d.accelerator)
            : tr("No steps: share of the trace's span (%1) in which each %2 ran a kernel, memcpy or memset.")
                  .arg(displayDuration(measured), d.accelerator));
    int row = 0;
    for (const auto &busy : d.utilization.devices) {
        auto *name = new QLabel(gpuName(d.accelerator, busy.device), m_utilization);
        auto *bar = new QProgressBar(m_utilization);
        bar->setRange(0, 1000);
        bar->setValue(int(std::lround(1000.0 * busy.utilization())));
        bar->setFormat(percent(100.0 * busy.utilization()));
        bar->setToolTip(tr("%1 busy of %2").arg(displayDuration(busy.busyNs), displayDuration(busy.spanNs)));
        auto *time =
            new QLabel(tr("%1 of %2").arg(displayDuration(busy.busyNs), displayDuration(busy.spanNs)), m_utilization);
        for (auto *w : std::initializer_list<QWidget *>{name, bar, time})
            normalFont(w);
        // Slim, but never lower than its text (a large font or a scale of 200%), however little
        // room the page's layout has.
        bar->setFixedHeight(bar->fontMetrics().height() + 6);
        m_utilizationGrid->addWidget(name, row, 0);
        m_utilizationGrid->addWidget(bar, row, 1);
        m_utilizationGrid->addWidget(time, row, 2);
        ++row;
    }
    m_utilization->setVisible(true);
}

void OverviewPage::fillAdvice(const OverviewData &d)
{
    m_advice->clear();
    if (d.advice.empty()) {
        auto *item = new QListWidgetItem(tr("No findings: none of the rules (DataLoader waits, syncs, GPU idle, tiny "
                                            "kernels, a dominant operator, memory churn, unfused optimizer) fired."),
                                         m_advice);
        item->setData(kNameRole, -1);
        item->setFlags(Qt::ItemIsEnabled);
    }
    for (std::size_t i = 0; i < d.advice.size(); ++i) {
        const auto &finding = d.advice[i];
        const auto html = [](const std::string &text) { return QString::fromStdString(text).toHtmlEscaped(); };
        // Green, as light or dark as the list's background needs for 4.5:1.
        const QString green =
            readableOn(QColor(0x2e, 0x7d, 0x32), QApplication::palette().color(QPalette::Base)).name();
        auto *item = new QListWidgetItem(QStringLiteral("<b>%1</b> \u2014 %2<br><span style='color:%4'>"
                                                        "<b>Fix:</b> %3</span>")
                                             .arg(html(finding.title), html(finding.detail), html(finding.fix), green),
                                         m_advice);
        item->setData(kNameRole, int(i));
        item->setToolTip(tr("Show the evidence in the timeline"));
    }
    fitAdviceHeight();
}

void OverviewPage::fitAdviceHeight()
{
    // Tall enough for every finding without a scroll bar of its own, up to a point.
    int height = 2 * m_advice->frameWidth() + 2;
    for (int i = 0; i < m_advice->count(); ++i)
        height += m_advice->sizeHintForRow(i) + 2 * m_advice->spacing();
    m_advice->setFixedHeight(std::min(height, 460));
}

bool OverviewPage::eventFilter(QObject *watched, QEvent *event)
{
    // Rows wrap to the list's width: a new width wants a new height.
    if (watched == m_advice->viewport() && event->type() == QEvent::Resize &&
        static_cast<QResizeEvent *>(event)->oldSize().width() != static_cast<QResizeEvent *>(event)->size().width())
        fitAdviceHeight();
    return QWidget::eventFilter(watched, event);
}

void OverviewPage::fillTopTables(const OverviewData &d)
{
    m_topOps->clear();
    const bool device = d.index->hasDevice;
    m_topOps->setColumnHidden(5, !device);
    for (const auto &op : d.topOps.rows) {
        const auto name = QString::fromStdString(op.name);
        tableRow(m_topOps,
                 {name, displayDuration(op.selfNs), percent(op.selfPercent), QLocale().toString(qulonglong(op.calls)),
                  displayDuration(op.totalNs), device ? displayDuration(op.deviceTotalNs) : QString()},
                 name);
    }
    fitRows(m_topOps, int(d.topOps.rows.size()));
    // An empty table says why: a front-end process traced with Python frames only.
    const bool noOps = d.topOps.rows.empty();
    m_topOps->setVisible(!noOps);
    m_opsNote->setVisible(noOps);
    m_opsNote->setText(
        d.pythonFrames > 0
            ? tr("No operators in this trace (cpu_op, user_annotation): it holds %1 Python frames only. The Flame "
                 "graph page shows them with its Python frames option.")
                  .arg(QLocale().toString(qulonglong(d.pythonFrames)))
            : tr("No operators in this trace (cpu_op, user_annotation)."));

    m_topKernels->clear();
    m_topKernels->setVisible(device);
    m_kernelsNote->setVisible(!device);
    m_kernelsNote->setText(tr("CPU-only trace: no GPU kernels."));
    for (const auto &kernel : d.topKernels.rows) {
        const auto name = QString::fromStdString(kernel.name);
        const QString kind =
            kernel.kind == analysis::EventKind::Kernel
                ? QString()
                : QStringLiteral(" [%1]").arg(QString::fromUtf8(analysis::kindName(kernel.kind).data(),
                                                                qsizetype(analysis::kindName(kernel.kind).size())));
        // The kernel's own name, not its signature (cutlass kernels differ in the middle); the
        // whole signature is the tooltip.
        auto *item =
            tableRow(m_topKernels,
                     {QString::fromStdString(timeline::kernelLabel(kernel.name)) + kind,
                      QString::fromStdString(kernel.launchOp), displayDuration(kernel.totalNs), percent(kernel.percent),
                      QLocale().toString(qulonglong(kernel.count)), displayDuration(kernel.avgNs())},
                     name);
        item->setTextAlignment(1, Qt::AlignLeft | Qt::AlignVCenter);
    }
    fitRows(m_topKernels, int(std::max(d.topKernels.rows.size(), d.topOps.rows.size())));
}

void OverviewPage::fillMemory(const OverviewData &d)
{
    // A recorded program: the recorder measured its memory by category, and its peak is named
    // by step as on the Memory page, whether or not its torch also wrote [memory] events.
    QString recorded;
    if (d.memoryCategories) {
        const auto peak = record::memoryPeak(*d.memoryCategories);
        if (peak.found())
            recorded = tr("Recorded program: <b>%1</b> (%2)<br>%3<br>")
                           .arg(bytes(peak.sample.total()),
                                QString::fromStdString(record::memorySamplePlace(peak.sample)).toHtmlEscaped(),
                                plots::peakCompositionHtml(peak.sample));
    }
    if (d.memory.devices.empty() && !recorded.isEmpty()) {
        m_memoryNote->setText(recorded + tr("<span style='color:%1'>By category over time: the Memory page.</span>")
                                             .arg(secondaryColor()));
        return;
    }
    if (d.memory.devices.empty()) {
        m_memoryNote->setText(tr("No memory events in this trace: record them with "
                                 "<code>torch.profiler.profile(profile_memory=True)</code>.") +
                              (d.memoryCategoriesError.isEmpty()
                                   ? QString()
                                   : QStringLiteral("<br>") + d.memoryCategoriesError.toHtmlEscaped()));
        return;
    }
    QString html = recorded.isEmpty()
                       ? QStringLiteral("<table>")
                       : recorded + tr("<span style='color:%1'>Its trace's memory events:</span><table>").arg(secondaryColor());
    for (const auto &device : d.memory.devices) {
        html += QStringLiteral("<tr><td style='padding-right:10px'>%1</td><td align='right'><b>%2</b></td>"
                               "<td style='color:%4; padding-left:8px'>at %3</td></tr>")
                    .arg(QString::fromStdString(device.device), bytes(device.peakBytes),
                         displayDuration(device.peakTimeNs - d.trace->info.spanStart), secondaryColor());
    }
    m_memoryNote->setText(html + QStringLiteral("</table>") +
                          tr("<span style='color:%1'>Curves and allocating "
                             "ops: the Memory page.</span>")
                              .arg(secondaryColor()));
}

void OverviewPage::fillGpuAnalyses(const OverviewData &d)
{
    const bool gpu = !d.kernelTypes.rows.empty();
    m_gpuAnalyses->setVisible(gpu);
    if (!gpu)
        return;
    m_kernelTypes->setBreakdown(d.kernelTypes);
    m_idle->clear();
    for (const auto &s : d.streamIdle) {
        using analysis::IdleCause;
        const auto span = std::max<std::int64_t>(1, s.spanNs);
        // Times in the cells, shares of the steps' time in the tooltips: the box is narrow.
        const std::array<std::int64_t, 4> values{s.busyNs, s.ns(IdleCause::HostWait), s.ns(IdleCause::KernelWait),
                                                 s.ns(IdleCause::Other)};
        QStringList cells{tr("%1 stream %2").arg(gpuName(d.accelerator, s.device)).arg(s.stream)};
        for (const auto ns : values)
            cells << QString::fromStdString(formatDuration(ns));
        auto *item = tableRow(m_idle, cells, QString());
        for (std::size_t c = 0; c < values.size(); ++c)
            item->setToolTip(int(c) + 1,
                             tr("%1 of the steps' time").arg(percent(100.0 * double(values[c]) / double(span))));
    }
    fitRows(m_idle, m_idle->topLevelItemCount());
    QString text = d.hasProfilerSteps ? tr("Inside the steps, summed over them.")
                                      : tr("Over the trace's %1 span.").arg(d.accelerator);
    // Streams weighted by their work: a side stream's idle does not decide the verdict.
    const auto dominant = analysis::dominantIdleCause(d.streamIdle);
    // The host's wait is what the advice found the host doing, when it found something.
    const auto found = [&](const char *rule) {
        return std::any_of(d.advice.begin(), d.advice.end(), [&](const auto &f) { return f.rule == rule; });
    };
    if (dominant == int(analysis::IdleCause::HostWait) && found("allocator"))
        text += QLatin1Char(' ') + tr("Mostly host wait: the CPU is in runtime allocation and free calls (see the "
                                      "allocator finding under Advice).");
    else if (dominant == int(analysis::IdleCause::HostWait) && found("sync"))
        text += QLatin1Char(' ') + tr("Mostly host wait: the CPU waits in blocking calls (see the sync finding "
                                      "under Advice).");
    else if (dominant == int(analysis::IdleCause::HostWait) && found("dataloader"))
        text += QLatin1Char(' ') + tr("Mostly host wait: the CPU waits for input data (see the DataLoader finding "
                                      "under Advice).");
    else if (dominant == int(analysis::IdleCause::HostWait))
        text += QLatin1Char(' ') +
                (d.accelerator == QLatin1String("GPU")
                     ? tr("Mostly host wait: the CPU does not launch fast enough (CUDA graphs, torch.compile or larger "
                          "batches help).")
                     : tr("Mostly host wait: the CPU does not launch fast enough (torch.compile or larger batches "
                          "help)."));
    else if (dominant == int(analysis::IdleCause::KernelWait))
        text += QLatin1Char(' ') + tr("Mostly kernel wait: launched kernels wait on other streams or events.");
    if (d.maxQueueLength == 1)
        text += QLatin1Char(' ') +
                tr("Launched kernels never queued: at most one waited on a stream at a time (%1 stream %2).")
                    .arg(gpuName(d.accelerator, d.maxQueueDevice))
                    .arg(d.maxQueueStream);
    else if (d.maxQueueLength > 1)
        text += QLatin1Char(' ') + tr("At most %1 launched kernels waited on one stream (%2 stream %3).")
                                       .arg(d.maxQueueLength)
                                       .arg(gpuName(d.accelerator, d.maxQueueDevice))
                                       .arg(d.maxQueueStream);
    m_idleNote->setText(text);
}

} // namespace pyrometer::ui
