#include "ui/snapshot/snapshotpage.h"

#include "core/analysis/flamediff.h"
#include "core/snapshot/reader.h"
#include "core/snapshot/segmentsat.h"
#include "core/util/format.h"
#include "ui/flamegraph/flamegraphview.h"
#include "ui/jobs/jobtracker.h"
#include "ui/plots/allocationtimeline.h"
#include "ui/plots/segmentmap.h"
#include "ui/plots/snapshotplot.h"
#include "ui/shell/displaytext.h"
#include "ui/shell/emptystate.h"
#include "ui/snapshot/tracejoinbar.h"
#include "ui/workspace/workspace.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QStackedLayout>
#include <QTabWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <array>
#include <cmath>
#include <map>

namespace pyrometer::ui {

namespace {

constexpr std::size_t kBands = 8;
constexpr std::size_t kSamples = 1500;

// Sorts figures by their value, text by its text.
class Row final : public QTreeWidgetItem {
public:
    using QTreeWidgetItem::QTreeWidgetItem;
    bool operator<(const QTreeWidgetItem &other) const override
    {
        const int column = treeWidget() ? treeWidget()->sortColumn() : 0;
        const QVariant a = data(column, Qt::UserRole), b = other.data(column, Qt::UserRole);
        if (a.isValid() && b.isValid())
            return a.toLongLong() < b.toLongLong();
        return QTreeWidgetItem::operator<(other);
    }
};

QString stackToolTip(const std::string &key)
{
    // Outermost first, one frame a line.
    return QString::fromStdString(key).toHtmlEscaped().replace(QLatin1Char(';'), QStringLiteral("<br>"));
}

QString signedBytes(std::int64_t bytes)
{
    return (bytes > 0   ? QStringLiteral("+")
            : bytes < 0 ? QStringLiteral("−")
                        : QString()) +
           bytesText(bytes < 0 ? -bytes : bytes);
}

} // namespace

struct SnapshotPage::InstantResult {
    std::vector<snapshot::LiveGroup> groups;
    std::vector<snapshot::GroupDelta> deltas;
    std::shared_ptr<const analysis::FlameGraph> graph;
    std::int64_t liveBytes = 0;
    std::size_t liveBlocks = 0;
    snapshot::SegmentsAt allocator;
    std::vector<snapshot::LiveBlock> blocks; // live, by address
    std::vector<std::uint8_t> bandOfBlock;   // the plot's band of each block's stack
};

SnapshotPage::SnapshotPage(JobTracker *jobs, Workspace *workspace, QWidget *parent)
    : QWidget(parent), m_jobs(jobs), m_workspace(workspace)
{
    m_stack = new QStackedLayout(this);
    m_empty = new EmptyState(
        tr("No allocator snapshot open"),
        tr("A CUDA allocator snapshot records every allocation and free of a run: see what held memory at its peak "
           "and at an out-of-memory error, by stack, and what grew between two runs."),
        tr("Record one with torch.cuda.memory._record_memory_history(), run the code, then "
           "torch.cuda.memory._dump_snapshot(\"snapshot.pickle\"); open it with File → Open trace (Ctrl+O) or drop it "
           "here."),
        this);
    m_stack->addWidget(m_empty);

    auto *content = new QWidget(this);
    auto *layout = new QVBoxLayout(content);
    auto *bar = new QHBoxLayout;
    m_chooser = new QComboBox(content);
    m_chooser->setMinimumContentsLength(10);
    m_chooser->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_deviceChooser = new QComboBox(content);
    m_peakButton = new QPushButton(tr("Peak"), content);
    m_oomButton = new QPushButton(tr("OOM"), content);
    m_endButton = new QPushButton(tr("End"), content);
    m_groupBy = new QComboBox(content);
    m_groupBy->addItems({tr("Stack"), tr("Compile context"), tr("Annotation")});
    m_compare = new QComboBox(content);
    m_compare->setMinimumContentsLength(8);
    m_compare->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    bar->addWidget(m_chooser, 2);
    bar->addWidget(m_deviceChooser);
    bar->addSpacing(8);
    bar->addWidget(new QLabel(tr("Live at:"), content));
    bar->addWidget(m_peakButton);
    bar->addWidget(m_oomButton);
    bar->addWidget(m_endButton);
    bar->addSpacing(8);
    bar->addWidget(new QLabel(tr("Group by:"), content));
    bar->addWidget(m_groupBy);
    bar->addSpacing(8);
    bar->addWidget(new QLabel(tr("Compare with:"), content));
    bar->addWidget(m_compare, 1);
    layout->addLayout(bar);

    m_headline = new QLabel(content);
    m_headline->setWordWrap(true);
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_headline);
    m_oom = new QLabel(content);
    m_oom->setWordWrap(true);
    m_oom->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_oom);
    m_joinBar = new TraceJoinBar(workspace, content);
    layout->addWidget(m_joinBar);

    auto *split = new QSplitter(Qt::Vertical, content);
    m_plotTabs = new QTabWidget(split);
    m_plotTabs->setDocumentMode(true);
    m_allocationPlot = new plots::AllocationTimeline(m_plotTabs);
    m_allocationPlot->setToolTip(QString()); // its own, per band
    m_plot = new plots::SnapshotPlot(m_plotTabs);
    m_plotTabs->addTab(m_allocationPlot, tr("Allocations"));
    m_plotTabs->addTab(m_plot, tr("By stack"));
    m_plotTabs->setTabToolTip(0,
                              tr("Every allocation a band, stacked in the order they were made: a freed one leaves a "
                                 "gap the ones above fall into. Wheel: zoom; drag: pan; double click: all."));
    m_plotTabs->setTabToolTip(1, tr("Active memory by the stacks that held most at the peak"));
    auto *lower = new QWidget(split);
    auto *lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    m_instantText = new QLabel(lower);
    m_instantText->setWordWrap(true);
    lowerLayout->addWidget(m_instantText);
    m_map = new plots::SegmentMap(lower);
    lowerLayout->addWidget(m_map);
    auto *madeByRow = new QHBoxLayout;
    m_madeBy = new QLabel(lower);
    m_madeBy->setWordWrap(true);
    m_madeBy->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_showOp = new QPushButton(tr("Show in Timeline"), lower);
    m_showOp->setToolTip(tr("The op that made the largest of these blocks, in the joined trace's timeline"));
    madeByRow->addWidget(m_madeBy, 1);
    madeByRow->addWidget(m_showOp);
    lowerLayout->addLayout(madeByRow);
    m_madeBy->hide();
    m_showOp->hide();
    auto *sides = new QSplitter(Qt::Horizontal, lower);
    m_table = new QTreeWidget(sides);
    m_table->setRootIsDecorated(false);
    m_table->setSortingEnabled(true);
    m_table->setUniformRowHeights(true);
    m_flame = new flamegraph::FlameGraphView(sides);
    m_flame->setUnit(flamegraph::FlameUnit::Bytes);
    m_table->setMinimumWidth(fontMetrics().horizontalAdvance(QLatin1Char('x')) * 36);
    sides->setStretchFactor(0, 2);
    sides->setStretchFactor(1, 3);
    sides->setSizes({520, 680}); // in proportion: the table's stacks read, the flame graph has the rest
    lowerLayout->addWidget(sides, 1);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    layout->addWidget(split, 1);
    m_stack->addWidget(content);

    connect(m_chooser, &QComboBox::activated, this, [this](int index) {
        if (index == m_current)
            return;
        m_current = index;
        m_compareWith = -1;
        m_device = -1;
        refreshChoosers();
        showCurrent();
    });
    connect(m_deviceChooser, &QComboBox::activated, this, [this](int index) {
        m_device = index;
        showCurrent();
    });
    connect(m_peakButton, &QPushButton::clicked, this, [this] { showInstant(QStringLiteral("peak")); });
    connect(m_oomButton, &QPushButton::clicked, this, [this] { showInstant(QStringLiteral("oom")); });
    connect(m_endButton, &QPushButton::clicked, this, [this] { showInstant(QStringLiteral("end")); });
    connect(m_groupBy, &QComboBox::activated, this, [this](int index) { setGroupBy(snapshot::GroupBy(index)); });
    connect(m_compare, &QComboBox::activated, this,
            [this](int index) { compareWith(m_compare->itemData(index).toInt()); });
    connect(m_joinBar, &TraceJoinBar::joinRequested, this,
            [this](DocumentId trace, std::optional<std::int64_t> offset) { joinTrace(trace, offset); });
    connect(m_table, &QTreeWidget::currentItemChanged, this, [this] { updateMadeBy(); });
    connect(m_showOp, &QPushButton::clicked, this, [this] {
        if (m_opTarget)
            Q_EMIT opRequested(m_opTarget->trace, m_opTarget->track, m_opTarget->event);
    });
    if (m_workspace) {
        connect(m_workspace, &Workspace::traceClosed, this, [this](DocumentId id) {
            for (auto &open : m_open) {
                if (open.join && open.join->traceId == id)
                    dropJoin(open);
            }
            showJoinStatus();
            updateMadeBy();
        });
    }
    connect(m_allocationPlot, &plots::AllocationTimeline::instantClicked, m_plot, &plots::SnapshotPlot::instantClicked);
    connect(m_plot, &plots::SnapshotPlot::instantClicked, this, [this](double x) {
        const auto s = currentSnapshot();
        if (!s)
            return;
        if (s->hasTimes)
            showInstant(QStringLiteral("%1us").arg(std::max<long long>(0, std::llround(x * 1000))));
        else
            showInstant(QStringLiteral("#%1").arg(std::max<long long>(0, std::llround(x) - 1)));
    });
}

QString SnapshotPage::currentPath() const
{
    return m_current >= 0 ? m_open[std::size_t(m_current)].path : QString();
}

std::shared_ptr<const snapshot::Snapshot> SnapshotPage::currentSnapshot() const
{
    return m_current >= 0 ? m_open[std::size_t(m_current)].snapshot : nullptr;
}

const snapshot::DeviceReplay *SnapshotPage::currentDevice() const
{
    if (m_current < 0)
        return nullptr;
    const auto &devices = *m_open[std::size_t(m_current)].devices;
    return m_device >= 0 && std::size_t(m_device) < devices.size() ? &devices[std::size_t(m_device)] : nullptr;
}

QString SnapshotPage::allocatedText(std::int64_t allocated, std::int64_t requested)
{
    if (requested <= 0 || requested >= allocated)
        return bytesText(allocated);
    // The allocator's rounding named where it takes 1% or more (many small tensors, say).
    if ((allocated - requested) * 100 < allocated)
        return tr("%1 (%2 requested)").arg(bytesText(allocated), bytesText(requested));
    return tr("%1 (%2 requested: rounding took %3)")
        .arg(bytesText(allocated), bytesText(requested), bytesText(allocated - requested));
}

void SnapshotPage::open(const QString &path)
{
    m_restoreCurrent.clear(); // the user's choice now, not a restored session's
    m_restorePending.clear();
    read(path);
}

void SnapshotPage::read(const QString &path)
{
    const QString canonical = QFileInfo(path).canonicalFilePath();
    for (std::size_t i = 0; i < m_open.size(); ++i) {
        if (!canonical.isEmpty() && QFileInfo(m_open[i].path).canonicalFilePath() == canonical) {
            m_current = int(i);
            refreshChoosers();
            showCurrent();
            Q_EMIT snapshotOpened(m_open[i].path);
            return;
        }
    }
    m_jobs->run<Open>(
        tr("Reading %1").arg(QFileInfo(path).fileName()), QStringLiteral("snapshot-open:") + path,
        [path](ProgressReporter &progress, const StopToken &stop) -> Result<Open> {
            auto loaded = snapshot::loadSnapshot(path.toStdString(), progress, stop);
            if (!loaded)
                return loaded.error();
            Open open;
            open.path = path;
            open.snapshot = loaded.value();
            auto devices = snapshot::replay(*open.snapshot);
            for (const auto &device : devices) {
                if (stop.stopRequested())
                    return Error{path.toStdString() + ": reading the snapshot cancelled"};
                open.bands.push_back(snapshot::stackBands(*open.snapshot, device, kBands, kSamples));
                open.allocations.push_back(
                    std::make_shared<const snapshot::Allocations>(snapshot::allocations(*open.snapshot, device)));
                // Each stack's band, for the allocations' colours: "other stacks" unless it is one of the top.
                const auto &keys = open.bands.back().keys;
                auto &bandOf = open.bandOfStack.emplace_back();
                bandOf.reserve(open.snapshot->stackCount());
                for (std::uint32_t st = 0; st < open.snapshot->stackCount(); ++st) {
                    const auto folded = snapshot::foldedStack(*open.snapshot, snapshot::StackId(st));
                    bandOf.push_back(std::uint8_t(std::find(keys.begin(), keys.end() - 1, folded) - keys.begin()));
                }
            }
            open.ooms = snapshot::oomReports(*open.snapshot, devices); // each walks the trace: not on the GUI thread
            open.devices = std::make_shared<const std::vector<snapshot::DeviceReplay>>(std::move(devices));
            return open;
        },
        this,
        [this](Open open) {
            if (open.devices->empty()) {
                m_empty->setHint(tr("%1 has no device: neither segments nor events.").arg(open.path));
                return;
            }
            m_open.push_back(std::move(open));
            // A restored session's snapshots are read at once and finish in any order: the one
            // it showed is shown, at its instant, whenever it is read.
            const QString readPath = m_open.back().path;
            const bool restored = m_restorePending.removeOne(readPath);
            if (restored && readPath != m_restoreCurrent && m_current >= 0) {
                refreshChoosers();
                return;
            }
            m_current = int(m_open.size()) - 1;
            m_device = -1;
            m_compareWith = -1;
            m_at = QStringLiteral("peak");
            if (restored && readPath == m_restoreCurrent) {
                m_at = m_restoreAt.isEmpty() ? m_at : m_restoreAt;
                m_restoreCurrent.clear();
            }
            refreshChoosers();
            showCurrent();
            Q_EMIT snapshotOpened(m_open.back().path);
        });
}

void SnapshotPage::closeCurrent()
{
    if (m_current < 0)
        return;
    dropJoin(m_open[std::size_t(m_current)]);
    m_open.erase(m_open.begin() + m_current);
    m_current = int(m_open.size()) - 1;
    m_compareWith = -1;
    m_device = -1;
    refreshChoosers();
    showCurrent();
}

void SnapshotPage::closeAll()
{
    for (auto &open : m_open)
        dropJoin(open);
    m_open.clear();
    m_current = -1;
    m_compareWith = -1;
    refreshChoosers();
    showCurrent();
}

void SnapshotPage::refreshChoosers()
{
    m_chooser->clear();
    m_compare->clear();
    m_compare->addItem(tr("— (none)"), -1);
    for (std::size_t i = 0; i < m_open.size(); ++i) {
        const QString name = QFileInfo(m_open[i].path).fileName();
        m_chooser->addItem(name, m_open[i].path);
        m_chooser->setItemData(int(i), m_open[i].path, Qt::ToolTipRole);
        if (int(i) != m_current)
            m_compare->addItem(name, int(i));
    }
    m_chooser->setCurrentIndex(m_current);
    m_compare->setCurrentIndex(std::max(0, m_compare->findData(m_compareWith)));
    m_compare->setEnabled(m_open.size() > 1);
}

double SnapshotPage::xOfPosition(std::int64_t position) const
{
    const auto s = currentSnapshot();
    const auto *d = currentDevice();
    return s && d ? snapshot::axisX(*s, *d, position) : 0.0;
}

void SnapshotPage::showCurrent()
{
    const auto s = currentSnapshot();
    if (!s) {
        m_groups.clear();
        m_deltas.clear();
        m_allocationPlot->clear();
        m_stack->setCurrentWidget(m_empty);
        return;
    }
    auto &open = m_open[std::size_t(m_current)];
    const auto &devices = *open.devices;
    if (m_device < 0 || std::size_t(m_device) >= devices.size()) // the busiest device
        m_device =
            int(std::max_element(devices.begin(), devices.end(),
                                 [](const auto &a, const auto &b) { return a.events.size() < b.events.size(); }) -
                devices.begin());
    m_deviceChooser->clear();
    for (const auto &d : devices)
        m_deviceChooser->addItem(tr("cuda:%1").arg(d.device));
    m_deviceChooser->setCurrentIndex(m_device);
    m_deviceChooser->setVisible(devices.size() > 1);
    const auto &device = devices[std::size_t(m_device)];

    const auto totals = snapshot::segmentTotals(*s, device.device);
    const auto &ooms = open.ooms;
    std::vector<double> oomXs;
    QStringList verdicts;
    for (const auto &o : ooms) {
        if (o.device != device.device)
            continue;
        oomXs.push_back(xOfPosition(std::int64_t(o.position)));
        verdicts
            << tr("<b>OOM</b> (event %1): %2.").arg(o.position).arg(QString::fromStdString(o.verdict).toHtmlEscaped());
    }
    const QString allocated = allocatedText(totals.allocatedBytes, totals.requestedBytes);
    QString headline =
        tr("<b>%1</b> · %2 segments · reserved <b>%3</b> · allocated %4 · peak active <b>%5</b> · %6 events")
            .arg(QFileInfo(open.path).fileName().toHtmlEscaped())
            .arg(totals.segments)
            .arg(bytesText(totals.reservedBytes), allocated, bytesText(device.peakActive))
            .arg(QLocale().toString(qulonglong(device.events.size())));
    if (!s->hasTimes)
        headline += tr(" · no times (an older torch): the axis counts events");
    if (snapshot::recordingStoppedEarly(device))
        headline += tr("<br>The trace ends with %1 active but the segments hold %2: recording stopped before the "
                       "snapshot was taken.")
                        .arg(bytesText(device.activeAtTraceEnd), bytesText(device.activeAtSnapshot));
    m_headline->setText(headline);
    m_oom->setText(verdicts.join(QStringLiteral("<br>")));
    m_oom->setStyleSheet(QStringLiteral("color: #c62828;"));
    m_oom->setVisible(!verdicts.isEmpty());
    m_oomButton->setEnabled(!oomXs.empty());
    showJoinStatus();

    const auto &bands = open.bands[std::size_t(m_device)];
    std::vector<std::int64_t> reserved;
    reserved.reserve(bands.position.size());
    for (const auto p : bands.position)
        reserved.push_back(p < 0 ? device.reservedAtStart : device.reserved[std::size_t(p)]);
    m_plot->setBands(bands, reserved, xOfPosition(device.peakPosition), oomXs);
    m_allocationPlot->setData(open.snapshot, open.devices, std::size_t(m_device),
                              open.allocations[std::size_t(m_device)]);
    m_allocationPlot->setMarkers(xOfPosition(device.peakPosition), oomXs);
    std::vector<QRgb> colors;
    const auto &bandOf = open.bandOfStack[std::size_t(m_device)];
    colors.reserve(bandOf.size());
    for (const auto band : bandOf)
        colors.push_back(plots::SnapshotPlot::bandColor(band, bands.keys.size()).rgb());
    m_allocationPlot->setStackColors(std::move(colors));
    m_stack->setCurrentIndex(1);

    std::string error;
    const auto position = snapshot::resolveInstant(*s, device, m_at.toStdString(), error);
    if (!position)
        m_at = QStringLiteral("peak");
    m_position = position ? *position : device.peakPosition;
    computeInstant();
}

bool SnapshotPage::showInstant(const QString &at)
{
    const auto s = currentSnapshot();
    const auto *device = currentDevice();
    if (!s || !device)
        return false;
    std::string error;
    const auto position = snapshot::resolveInstant(*s, *device, at.toStdString(), error);
    if (!position) {
        m_instantText->setText(QString::fromStdString(error).toHtmlEscaped());
        return false;
    }
    m_at = at;
    m_position = *position;
    computeInstant();
    return true;
}

void SnapshotPage::setGroupBy(snapshot::GroupBy by)
{
    m_by = by;
    m_groupBy->setCurrentIndex(int(by));
    computeInstant();
}

void SnapshotPage::compareWith(int index)
{
    m_compareWith = index >= 0 && index < int(m_open.size()) && index != m_current ? index : -1;
    m_compare->setCurrentIndex(std::max(0, m_compare->findData(m_compareWith)));
    computeInstant();
}

void SnapshotPage::computeInstant()
{
    if (m_current < 0)
        return;
    const auto &open = m_open[std::size_t(m_current)];
    const auto s = open.snapshot;
    const auto devices = open.devices;
    const std::size_t device = std::size_t(m_device);
    const std::int64_t position = m_position;
    const auto by = m_by;
    std::shared_ptr<const snapshot::Snapshot> base;
    std::shared_ptr<const std::vector<snapshot::DeviceReplay>> baseDevices;
    if (m_compareWith >= 0) {
        base = m_open[std::size_t(m_compareWith)].snapshot;
        baseDevices = m_open[std::size_t(m_compareWith)].devices;
    }
    const std::string at = m_at.toStdString();
    const auto bands = std::make_shared<const snapshot::StackBands>(open.bands[device]);
    m_jobs->run<InstantResult>(
        tr("Grouping live memory"), QStringLiteral("snapshot-instant"),
        [s, devices, device, position, by, base, baseDevices, at, bands](ProgressReporter &,
                                                                         const StopToken &) -> Result<InstantResult> {
            InstantResult r;
            const auto &d = (*devices)[device];
            const auto live = snapshot::liveAt(*s, d, position);
            for (const auto &b : live)
                r.liveBytes += b.size;
            r.liveBlocks = live.size();
            r.allocator = snapshot::segmentsAt(*s, d, position);
            // Each block in the colour of its stack's band, as the plot draws it.
            std::map<std::uint32_t, std::uint8_t> bandOfStack;
            for (const auto &b : live) {
                auto it = bandOfStack.find(b.stack.value);
                if (it == bandOfStack.end()) {
                    const auto folded = snapshot::foldedStack(*s, b.stack);
                    const auto &keys = bands->keys;
                    const auto band = std::find(keys.begin(), keys.end() - 1, folded);
                    it = bandOfStack.emplace(b.stack.value, std::uint8_t(band - keys.begin())).first;
                }
                r.bandOfBlock.push_back(it->second);
            }
            r.blocks = live;
            r.groups = snapshot::groupLive(*s, d, live, by);
            const auto stacks =
                by == snapshot::GroupBy::Stack ? r.groups : snapshot::groupLive(*s, d, live, snapshot::GroupBy::Stack);
            const auto tree = snapshot::liveFlameTree(stacks);
            if (!base) {
                r.graph = std::make_shared<const analysis::FlameGraph>(analysis::prepareFlameGraph(tree));
                return r;
            }
            // The base at the same instant (its own peak, OOM or end; a time from its start).
            const auto &bd = (*baseDevices)[std::min(device, baseDevices->size() - 1)];
            std::string error;
            const auto basePosition = snapshot::resolveInstant(*base, bd, at, error).value_or(bd.peakPosition);
            const auto baseLive = snapshot::liveAt(*base, bd, basePosition);
            r.deltas = snapshot::diffGroups(snapshot::groupLive(*base, bd, baseLive, by), r.groups);
            const auto baseTree =
                snapshot::liveFlameTree(snapshot::groupLive(*base, bd, baseLive, snapshot::GroupBy::Stack));
            r.graph = std::make_shared<const analysis::FlameGraph>(
                analysis::prepareDiffGraph(analysis::diffFlameTrees(baseTree, tree)));
            return r;
        },
        this, [this](InstantResult result) { showInstantResult(result); });
}

void SnapshotPage::showInstantResult(const InstantResult &result)
{
    m_groups = result.groups;
    m_deltas = result.deltas;
    m_live = result.blocks;
    const auto *device = currentDevice();
    const auto s = currentSnapshot();
    if (!device || !s)
        return;
    static const QStringList byNames = {tr("Stack"), tr("Compile context"), tr("Annotation")};
    const QString by = byNames.value(int(m_by));
    m_table->setSortingEnabled(false);
    m_table->clear();
    // A row: the group's label (its stack in the tooltip), then three figures, each shown as
    // text and sorted by its value.
    using Figure = std::pair<QString, qlonglong>;
    auto addRow = [this](const std::string &label, const std::string &key, const std::array<Figure, 3> &figures) {
        auto *row = new Row(m_table);
        row->setText(0, QString::fromStdString(label));
        row->setToolTip(0, stackToolTip(key));
        row->setData(0, kGroupKeyRole, QString::fromStdString(key));
        for (int c = 1; c < 4; ++c) {
            row->setText(c, figures[std::size_t(c - 1)].first);
            row->setData(c, Qt::UserRole, figures[std::size_t(c - 1)].second);
            row->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
        }
    };
    if (comparing()) {
        m_table->setHeaderLabels({by, tr("Before"), tr("After"), tr("Change")});
        for (const auto &d : m_deltas)
            addRow(d.label, d.key,
                   {Figure{bytesText(d.baseBytes), d.baseBytes}, Figure{bytesText(d.otherBytes), d.otherBytes},
                    Figure{signedBytes(d.delta()), d.delta()}});
        m_table->sortByColumn(3, Qt::DescendingOrder);
    } else {
        m_table->setHeaderLabels({by, tr("Bytes"), tr("Blocks"), tr("Share")});
        for (const auto &g : m_groups) {
            const double share = result.liveBytes > 0 ? 100.0 * double(g.bytes) / double(result.liveBytes) : 0;
            addRow(g.label, g.key,
                   {Figure{bytesText(g.bytes), g.bytes},
                    Figure{QLocale().toString(qulonglong(g.blocks)), qlonglong(g.blocks)},
                    Figure{QStringLiteral("%1%").arg(share, 0, 'f', 1), qlonglong(std::llround(share * 10))}});
        }
        m_table->sortByColumn(1, Qt::DescendingOrder);
    }
    m_table->setSortingEnabled(true);
    m_table->header()->setStretchLastSection(false);
    m_table->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < 4; ++c)
        m_table->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    // Frames by name; compared, by change (red grew, blue shrank).
    m_flame->setColorMode(comparing() ? flamegraph::FlameColorMode::ByChange : flamegraph::FlameColorMode::ByName);
    m_flame->setGraph(result.graph);

    QString where;
    if (m_position < 0) {
        where = tr("before the first event");
    } else {
        where = tr("after event %1 of %2").arg(m_position).arg(device->events.size());
        if (s->hasTimes)
            where += tr(", %1 ms after the first").arg(xOfPosition(m_position), 0, 'f', 2);
    }
    const QString at = m_at == QStringLiteral("peak")           ? tr("the peak")
                       : m_at.startsWith(QStringLiteral("oom")) ? tr("the OOM")
                                                                : m_at;
    QString text = tr("Live at <b>%1</b> (%2): <b>%3</b> in %4 blocks. The allocator held %5 segments, %6 reserved, "
                      "%7 of it free, the largest free piece <b>%8</b>.")
                       .arg(at.toHtmlEscaped(), where, bytesText(result.liveBytes))
                       .arg(QLocale().toString(qulonglong(result.liveBlocks)))
                       .arg(result.allocator.segments.size())
                       .arg(bytesText(result.allocator.reservedBytes), bytesText(result.allocator.freeBytes),
                            bytesText(result.allocator.largestFree));
    if (comparing())
        text += tr(" Against <b>%1</b> at the same instant: what grew, largest first; the flame graph's widths are "
                   "this snapshot's, its colours the change.")
                    .arg(QFileInfo(m_open[std::size_t(m_compareWith)].path).fileName().toHtmlEscaped());
    m_instantText->setText(text);
    m_plot->setInstant(xOfPosition(m_position));
    m_allocationPlot->setInstant(xOfPosition(m_position));
    const std::size_t bandCount = m_plot->bands().keys.size();
    std::map<std::uint64_t, std::uint8_t> bandOfAddress;
    for (std::size_t i = 0; i < result.blocks.size(); ++i)
        bandOfAddress[result.blocks[i].address] = result.bandOfBlock[i];
    m_map->setState(result.allocator, result.blocks,
                    [bandOfAddress = std::move(bandOfAddress), bandCount](const snapshot::LiveBlock &b) {
                        const auto it = bandOfAddress.find(b.address);
                        return plots::SnapshotPlot::bandColor(it == bandOfAddress.end() ? bandCount - 1 : it->second,
                                                              bandCount);
                    });
    refreshLiveOps();
    updateMadeBy();
    Q_EMIT instantShown();
}

} // namespace pyrometer::ui
