#include "ui/roofline/rooflinepage.h"

#include "core/util/format.h"
#include "ui/jobs/jobtracker.h"
#include "ui/plots/rooflineplot.h"
#include "ui/roofline/rooflinecells.h"
#include "ui/shell/emptystate.h"
#include "ui/shell/tracechooser.h"
#include "ui/tables/tablepane.h"
#include "ui/tables/tabletree.h"
#include "ui/workspace/workspace.h"
#include "ui/shell/displaytext.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedLayout>
#include <QTreeView>
#include <QVBoxLayout>

#include <map>
#include <set>

namespace pyrometer::ui::roofline {

using analysis::Bound;
using analysis::OpWork;
using tables::ColumnKind;

namespace {

enum Pages { EmptyPage, ContentPage };

// "bf16", "fp16", "fp32" for a trace's "Input type" names; other names as written.
QString dtypeLabel(const std::string &dtype)
{
    static const std::map<std::string, QString> kShort{{"float", QStringLiteral("fp32")},
                                                       {"double", QStringLiteral("fp64")},
                                                       {"c10::Half", QStringLiteral("fp16")},
                                                       {"c10::BFloat16", QStringLiteral("bf16")},
                                                       {"c10::Float8_e4m3fn", QStringLiteral("fp8 e4m3")},
                                                       {"c10::Float8_e5m2", QStringLiteral("fp8 e5m2")},
                                                       {"signed char", QStringLiteral("int8")},
                                                       {"unsigned char", QStringLiteral("uint8")}};
    const auto found = kShort.find(dtype);
    return found != kShort.end() ? found->second : qs(dtype);
}

} // namespace

tables::TableTree buildRooflineTree(const analysis::Roofline &roofline, RooflinePage::RowKind kind)
{
    tables::TableTree tree;
    const bool kernels = kind == RooflinePage::KernelRows;
    const bool extra = kind != RooflinePage::OpRows; // a second text column: the shape or the launching op
    tree.columns = {{kernels ? RooflinePage::tr("Kernel") : RooflinePage::tr("Op"), ColumnKind::Text,
                     kernels ? QStringLiteral("kernel") : QStringLiteral("op")},
                    {RooflinePage::tr("Dtype"), ColumnKind::Text, QStringLiteral("dtype")},
                    {RooflinePage::tr("Calls"), ColumnKind::Count, QStringLiteral("calls")},
                    {roofline.gpu ? RooflinePage::tr("Device time") : RooflinePage::tr("Time"), ColumnKind::Duration,
                     QStringLiteral("time_us")},
                    {RooflinePage::tr("Share"), ColumnKind::Percent, QStringLiteral("pct")},
                    {RooflinePage::tr("GFLOP"), ColumnKind::Number, QStringLiteral("gflop")},
                    {RooflinePage::tr("MB moved"), ColumnKind::Number, QStringLiteral("mb")},
                    {RooflinePage::tr("FLOP/byte"), ColumnKind::Number, QStringLiteral("intensity")},
                    {RooflinePage::tr("TFLOP/s"), ColumnKind::Number, QStringLiteral("tflops")},
                    {RooflinePage::tr("GB/s"), ColumnKind::Number, QStringLiteral("gbs")},
                    {RooflinePage::tr("Roof"), ColumnKind::Text, QStringLiteral("roof")},
                    {RooflinePage::tr("% of roof"), ColumnKind::Number, QStringLiteral("pct_of_roof")},
                    {RooflinePage::tr("Bound"), ColumnKind::Text, QStringLiteral("bound")}};
    if (extra)
        tree.columns.insert(tree.columns.begin() + 1,
                            kernels ? tables::TableColumn{RooflinePage::tr("Launching op"), ColumnKind::Text, QStringLiteral("launching_op")}
                                    : tables::TableColumn{RooflinePage::tr("Input shape"), ColumnKind::Text, QStringLiteral("input_dims")});
    tree.defaultSortColumn = extra ? 4 : 3;
    for (const auto &row : roofline.rows) {
        const double share = roofline.totalNs > 0 ? 100.0 * double(row.timeNs) / double(roofline.totalNs) : 0.0;
        const QString name = qs(row.name);
        // The roof a row meets: the cache's where its data beat main memory.
        const QString roof = !row.roof ? RooflinePage::tr("unknown")
                             : row.cacheRoof
                                 ? RooflinePage::tr("%1 (cache)").arg(qs(analysis::precisionName(row.roof->precision)))
                                 : qs(analysis::precisionName(row.roof->precision));
        std::vector<QVariant> values{name,
                                     dtypeLabel(row.dtype),
                                     quint64(row.calls),
                                     qint64(row.timeNs),
                                     share,
                                     figureCell(row.flops, 1e9),
                                     figureCell(row.bytes, 1e6),
                                     figureCell(row.intensity, 1),
                                     figureCell(row.achievedFlops, 1e12),
                                     figureCell(row.achievedBandwidth, 1e9),
                                     roof,
                                     figureCell(row.percentOfRoof, 1),
                                     boundLabel(row.bound)};
        // A kernel given its launching call's work beside small kernels of the call says so.
        if (extra)
            values.insert(values.begin() + 1,
                          kernels ? (row.workOfLauncher ? RooflinePage::tr("%1 (its work: the call's other "
                                                                           "kernels are small)")
                                                              .arg(qs(row.launcher))
                                                        : qs(row.launcher))
                                  : qs(row.shape));
        tree.addNode(-1, std::move(values), name, name);
    }
    return tree;
}

RooflinePage::RooflinePage(Workspace *workspace, JobTracker *jobs, QWidget *parent)
    : QWidget(parent), m_workspace(workspace), m_jobs(jobs), m_stack(new QStackedLayout),
      m_empty(new EmptyState(tr("Roofline"),
                             tr("Is each op limited by compute or by memory, and how far below its device's roof does it "
                                "run? Ops are placed by their arithmetic intensity (FLOP per byte moved) against the FLOP/s "
                                "they reached, under the peak and bandwidth of the device that ran them."),
                             tr("Open a trace recorded with record_shapes=True: Ctrl+O"), this)),
      m_traceChooser(new TraceChooser(workspace, this)), m_device(new QComboBox(this)), m_rowKind(new QComboBox(this)), m_summary(new QLabel(this)),
      m_advice(new QLabel(this)), m_plot(new plots::RooflinePlot(this)), m_table(new tables::TablePane(this))
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto *barWidget = new QWidget(this);
    auto *bar = new QHBoxLayout(barWidget);
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(new QLabel(tr("Trace:"), barWidget));
    bar->addWidget(m_traceChooser);
    bar->addSpacing(12);
    bar->addWidget(new QLabel(tr("Device:"), barWidget));
    m_device->addItem(tr("The trace's own"));
    for (const auto &device : analysis::deviceTable())
        m_device->addItem(QString::fromStdString(device.name));
    m_device->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_device->setToolTip(tr("Whose roof the ops are put under. A device the table lacks: set its peak and bandwidth "
                            "in Edit > Preferences"));
    bar->addWidget(m_device);
    bar->addSpacing(12);
    bar->addWidget(new QLabel(tr("Rows:"), barWidget));
    m_rowKind->addItems({tr("Ops"), tr("Ops by input shape"), tr("GPU kernels")});
    m_rowKind->setToolTip(tr("Ops: each op counted once, the outermost whose work is known. GPU kernels: each kernel with "
                             "the work of the call that launched it, when that call launched nothing else"));
    bar->addWidget(m_rowKind);
    bar->addSpacing(12);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    bar->addWidget(m_summary, 1);
    outer->addWidget(barWidget);
    outer->addLayout(m_stack, 1);

    auto *content = new QWidget(this);
    auto *layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 4, 0, 0);
    auto *split = new QSplitter(Qt::Vertical, content);
    auto *top = new QWidget(split);
    auto *topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_plot, 1);
    m_advice->setWordWrap(true);
    m_advice->setTextFormat(Qt::RichText);
    topLayout->addWidget(m_advice);
    split->addWidget(top);
    split->addWidget(m_table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);
    m_stack->addWidget(m_empty);
    m_stack->addWidget(content);
    barWidget->setVisible(false);

    connect(workspace, &Workspace::traceOpened, barWidget, [barWidget] { barWidget->setVisible(true); });
    connect(m_traceChooser, &TraceChooser::traceChosen, this, &RooflinePage::showTrace);
    connect(workspace, &Workspace::traceClosed, this, [this, barWidget](DocumentId id) {
        barWidget->setVisible(!m_workspace->traces().empty());
        if (id == m_traceId)
            showTrace(m_workspace->newestTrace());
    });
    connect(m_device, &QComboBox::currentIndexChanged, this, &RooflinePage::recompute);
    connect(m_rowKind, &QComboBox::currentIndexChanged, this, &RooflinePage::recompute);
    connect(m_table, &tables::TablePane::eventNameActivated, this, [this](const QString &name) {
        if (m_traceId >= 0)
            Q_EMIT rowEventsActivated(m_traceId, name);
    });
    connect(m_table, &tables::TablePane::currentEventNameChanged, this, [this](const QString &name) {
        if (!m_roofline || name.isEmpty())
            return;
        for (std::size_t p = 0; p < m_pointRows.size(); ++p)
            if (qs(m_roofline->rows[m_pointRows[p]].name) == name)
                m_plot->setSelected(int(p));
    });
    // A point clicked selects its row, and the Timeline highlights its events.
    connect(m_plot, &plots::RooflinePlot::pointClicked, this, [this](int point) {
        if (!m_roofline || point < 0 || std::size_t(point) >= m_pointRows.size())
            return;
        const auto name = qs(m_roofline->rows[m_pointRows[std::size_t(point)]].name);
        m_table->selectEventName(name);
        if (m_traceId >= 0)
            Q_EMIT rowEventsSelected(m_traceId, name);
    });
}

bool RooflinePage::hasContent() const
{
    return m_stack->currentIndex() != EmptyPage;
}

void RooflinePage::setFallbackDevice(std::optional<analysis::DeviceRoof> device)
{
    if (device == m_fallback)
        return;
    m_fallback = std::move(device);
    recompute();
}

std::optional<analysis::DeviceRoof> RooflinePage::chosenDevice() const
{
    const int item = m_device->currentIndex();
    if (item > 0)
        return analysis::deviceTable()[std::size_t(item - 1)];
    return std::nullopt;
}

void RooflinePage::showTrace(DocumentId id)
{
    const auto document = m_workspace->trace(id);
    m_traceId = document ? id : kNoDocument;
    if (!document) {
        m_roofline.reset();
        m_table->setTree({});
        m_plot->setData({}, {});
        m_stack->setCurrentIndex(EmptyPage);
        return;
    }
    m_traceChooser->select(id);
    recompute();
}

void RooflinePage::recompute()
{
    const auto document = m_workspace->trace(m_traceId);
    if (!document)
        return;
    analysis::RooflineOptions options;
    options.device = chosenDevice();
    options.fallbackDevice = m_fallback; // for a trace whose device the table lacks
    options.byShape = m_rowKind->currentIndex() == ShapeRows;
    options.byKernel = m_rowKind->currentIndex() == KernelRows;
    const DocumentId id = m_traceId;
    const auto jobId = m_jobs->run<std::shared_ptr<const analysis::Roofline>>(
        tr("Computing the roofline"), QStringLiteral("roofline-page"),
        [document, options](ProgressReporter &, const StopToken &stop) -> Result<std::shared_ptr<const analysis::Roofline>> {
            auto roofline = analysis::buildRoofline(*document->index, options, &stop);
            if (stop.stopRequested())
                return Error{"roofline cancelled"};
            return std::make_shared<const analysis::Roofline>(std::move(roofline));
        },
        this,
        [this, id, options](std::shared_ptr<const analysis::Roofline> roofline) {
            const bool current = options.byKernel == (m_rowKind->currentIndex() == KernelRows)
                && options.byShape == (m_rowKind->currentIndex() == ShapeRows);
            if (id == m_traceId && current)
                populate(std::move(roofline));
        });
    m_jobs->addOwner(jobId, document->jobOwner());
}

void RooflinePage::populate(std::shared_ptr<const analysis::Roofline> roofline)
{
    m_roofline = std::move(roofline);
    const auto &r = *m_roofline;
    std::vector<plots::RoofLine> roofs;
    std::vector<plots::RooflinePoint> points;
    m_pointRows.clear();
    std::set<std::pair<double, analysis::Precision>> seen;
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
        const auto &row = r.rows[i];
        if (row.roof && seen.insert({-row.roof->peakFlops, row.roof->precision}).second)
            roofs.push_back({QString::fromUtf8(analysis::precisionName(row.roof->precision).data()) +
                                 (row.unit == analysis::WorkUnit::Matrix ? tr(" matrix") : tr(" vector")),
                             row.roof->peakFlops, row.roof->bandwidth});
        if (!row.known() || row.intensity <= 0 || row.achievedFlops <= 0)
            continue;
        const double share = r.totalNs > 0 ? double(row.timeNs) / double(r.totalNs) : 0.0;
        const QString roofText = row.roof ? tr("%1% of the %2 roof at this intensity; %3-bound")
                                                .arg(row.percentOfRoof, 0, 'f', 1)
                                                .arg(qs(analysis::precisionName(row.roof->precision)), boundLabel(row.bound))
                                          : tr("the device's roof is unknown");
        points.push_back({qs(row.name), row.intensity, row.achievedFlops, share, row.bound,
                          tr("%1 calls, %2 (%3% of the time)<br>%4 GFLOP, %5 MB: %6 FLOP/byte<br>%7 TFLOP/s, %8 GB/s<br>%9")
                              .arg(row.calls)
                              .arg(QString::fromStdString(formatDuration(row.timeNs)))
                              .arg(100 * share, 0, 'f', 1)
                              .arg(row.flops / 1e9, 0, 'g', 4)
                              .arg(row.bytes / 1e6, 0, 'g', 4)
                              .arg(row.intensity, 0, 'g', 3)
                              .arg(row.achievedFlops / 1e12, 0, 'g', 3)
                              .arg(row.achievedBandwidth / 1e9, 0, 'g', 3)
                              .arg(roofText)});
        m_pointRows.push_back(i);
    }
    std::sort(roofs.begin(), roofs.end(), [](const auto &a, const auto &b) { return a.peakFlops > b.peakFlops; });
    m_plot->setData(std::move(roofs), std::move(points));
    m_table->setTree(buildRooflineTree(r, RowKind(m_rowKind->currentIndex())));

    const QString device = r.device ? QStringLiteral("<b>%1</b> (%2)").arg(qs(r.device->name).toHtmlEscaped(), qs(r.device->source).toHtmlEscaped())
                                    : tr("<b>unknown</b>: pick a device or set its roof in Edit &gt; Preferences");
    const QString traced = r.traceDevice.empty() ? tr("the trace names no device") : tr("the trace's %1").arg(qs(r.traceDevice).toHtmlEscaped());
    const double known = r.totalNs > 0 ? 100.0 * double(r.knownNs) / double(r.totalNs) : 0.0;
    m_summary->setText(tr("Roof: %1; %2 &nbsp;\u00b7&nbsp; %3 of known work: <b>%4%</b> of the %5 time")
                           .arg(device, traced,
                                m_rowKind->currentIndex() == KernelRows ? tr("kernels") : tr("ops"))
                           .arg(known, 0, 'f', 1)
                           .arg(r.gpu ? tr("device") : tr("op")));
    QStringList advice;
    for (const auto &finding : analysis::rooflineFindings(r))
        advice << QStringLiteral("\u2022 ") + qs(finding.text).toHtmlEscaped();
    if (m_pointRows.empty() && m_rowKind->currentIndex() == KernelRows && !r.gpu)
        advice << tr("This trace ran no GPU kernels: its ops are under Rows: Ops.");
    else if (m_pointRows.empty())
        advice << tr("No op of known work: the trace needs input shapes (record_shapes=True), and torch 2.x's Concrete "
                     "Inputs for convolutions.");
    m_advice->setText(advice.join(QStringLiteral("<br>")));
    m_stack->setCurrentIndex(ContentPage);
    Q_EMIT rooflineShown();
}

} // namespace pyrometer::ui::roofline
