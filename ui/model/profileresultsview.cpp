#include "ui/model/profileresultsview.h"

#include "core/util/format.h"
#include "ui/model/latencyhistogram.h"
#include "ui/model/layertreemodel.h"
#include "ui/tables/frozencolumn.h"
#include "ui/tables/sortheader.h"

#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTreeView>
#include <QVBoxLayout>

namespace pyrometer::ui {
namespace {

QString ms(double value)
{
    return QObject::tr("%1 ms").arg(QLocale().toString(value, 'f', 3));
}

// A figure with its unit, never broken across lines.
QString unbroken(QString text)
{
    return text.replace(QLatin1Char(' '), QChar::Nbsp);
}

} // namespace

ProfileResultsView::ProfileResultsView(QWidget *parent)
    : QWidget(parent), m_headline(new QLabel(this)), m_histogram(new LatencyHistogram(this)), m_model(new LayerTreeModel(this)),
      m_proxy(new QSortFilterProxyModel(this)), m_filter(new QLineEdit(this)), m_view(new QTreeView(this)),
      m_timelineButton(new QPushButton(tr("Open trace in Timeline"), this)),
      m_flameButton(new QPushButton(tr("Open in Flame graph"), this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    auto *top = new QHBoxLayout;
    m_headline->setWordWrap(true);
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    top->addWidget(m_headline, 1);
    m_timelineButton->setToolTip(tr("Export the recorded profile as a Chrome trace and open it in the Timeline page"));
    m_flameButton->setToolTip(tr("Export the recorded profile as a Chrome trace and open it in the Flame graph page"));
    top->addWidget(m_timelineButton);
    top->addWidget(m_flameButton);
    layout->addLayout(top);

    // The latency summary: one small tile per statistic.
    auto *statsFrame = new QFrame(this);
    statsFrame->setFrameShape(QFrame::StyledPanel);
    auto *stats = new QGridLayout(statsFrame);
    const QStringList captions{tr("cold"), tr("mean"), tr("std"), tr("min"), tr("p50"), tr("p90"), tr("p99"), tr("throughput")};
    for (int i = 0; i < int(Stat::Count); ++i) {
        auto *caption = new QLabel(captions.at(i), statsFrame);
        caption->setAlignment(Qt::AlignCenter);
        caption->setForegroundRole(QPalette::PlaceholderText); // secondary text, 4.5:1 in both themes
        auto *value = new QLabel(statsFrame);
        value->setAlignment(Qt::AlignCenter);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        QFont font = value->font();
        font.setBold(true);
        value->setFont(font);
        stats->addWidget(caption, 0, i);
        stats->addWidget(value, 1, i);
        m_stats.at(std::size_t(i)) = value;
    }
    m_stats.at(std::size_t(Stat::Cold))->setToolTip(tr("The first run after loading: TorchScript specializes the graph then"));

    auto *upper = new QWidget(this);
    auto *upperLayout = new QVBoxLayout(upper);
    upperLayout->setContentsMargins(0, 0, 0, 0);
    upperLayout->addWidget(statsFrame);
    upperLayout->addWidget(m_histogram, 1);

    auto *lower = new QWidget(this);
    auto *lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    m_filter->setPlaceholderText(tr("Filter layers by module or type"));
    m_filter->setClearButtonEnabled(true);
    lowerLayout->addWidget(m_filter);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(LayerTreeModel::SortRole);
    m_proxy->setRecursiveFilteringEnabled(true); // a match keeps its ancestors, so the tree stays a tree
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterRole(LayerTreeModel::FilterRole);
    m_proxy->setFilterKeyColumn(LayerTreeModel::ModuleColumn);
    tables::useSortHeader(m_view);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(LayerTreeModel::TotalMsColumn, Qt::DescendingOrder);
    m_view->setColumnHidden(LayerTreeModel::DeviceMsColumn, true); // shown for a profile with device times
    m_view->setAlternatingRowColors(true);
    m_view->setUniformRowHeights(true);
    m_view->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_view->header()->setStretchLastSection(true);
    tables::freezeFirstColumn(m_view);
    lowerLayout->addWidget(m_view, 1);
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &text) {
        m_proxy->setFilterFixedString(text);
        m_view->expandAll();
    });

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(upper);
    splitter->addWidget(lower);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    layout->addWidget(splitter, 1);

    connect(m_timelineButton, &QPushButton::clicked, this, [this] {
        if (m_run && !m_run->tracePath.empty())
            Q_EMIT openTraceRequested(QString::fromStdString(m_run->tracePath.string()));
    });
    connect(m_flameButton, &QPushButton::clicked, this, [this] {
        if (m_run && !m_run->tracePath.empty())
            Q_EMIT openFlameGraphRequested(QString::fromStdString(m_run->tracePath.string()));
    });
    clear();
}

void ProfileResultsView::clear()
{
    m_run.reset();
    m_headline->setText(tr("No profile yet: set the inputs and press <b>Run profile</b>."));
    for (auto *label : m_stats)
        label->setText(QStringLiteral("–"));
    m_histogram->clear();
    m_model->clear();
    m_timelineButton->setEnabled(false);
    m_flameButton->setEnabled(false);
}

void ProfileResultsView::setRun(std::shared_ptr<const ProfileRun> run, const QString &modelName)
{
    m_run = std::move(run);
    const auto &latency = m_run->latency;
    const auto &profile = m_run->profile;
    const QLocale locale;
    // No allocation at all: the profiler recorded none (the Python engine on torch 1.13).
    const bool memoryRecorded = profile.peakMemoryBytes > 0 || !profile.events.memory.empty();
    QString engineLine;
    if (!latency.engine.empty())
        engineLine = QStringLiteral("<br>") + tr("ran in %1").arg(QString::fromStdString(latency.engine).toHtmlEscaped());
    if (!profile.note.empty())
        engineLine += QStringLiteral("; ") + QString::fromStdString(profile.note).toHtmlEscaped();
    if (!m_run->roofNote.empty())
        engineLine += QStringLiteral("; ") + QString::fromStdString(m_run->roofNote).toHtmlEscaped();
    m_headline->setText(
        tr("<b>%1</b> on <code>%2</code>, %3, threads: %4; %5 warm-up and %6 timed runs; %7 profiled runs, "
           "forward %8, peak memory %9, %10")
            .arg(modelName.toHtmlEscaped(),
                 QString::fromStdString(model::formatInputSpecs(latency.inputs)).toHtmlEscaped(),
                 latency.mode == model::RunMode::Train ? tr("train step") : tr("inference"),
                 QString::number(latency.threads), QString::number(latency.warmup), QString::number(latency.iterations),
                 QString::number(profile.iterations),
                 profile.deviceTimes ? tr("%1 synchronized (%2 of device work)")
                                           .arg(unbroken(ms(profile.forwardMs)), unbroken(ms(profile.deviceForwardMs)))
                                     : unbroken(ms(profile.forwardMs)),
                 memoryRecorded ? unbroken(QString::fromStdString(
                                      formatBytes(std::uint64_t(std::max<std::int64_t>(0, profile.peakMemoryBytes)))))
                                : tr("not recorded"))
            .arg(unbroken(tr("%1 GMACs").arg(locale.toString(profile.totalMacs / 1e9, 'f', 3)))) +
        engineLine);
    const auto set = [this](Stat stat, const QString &text) { m_stats.at(std::size_t(stat))->setText(text); };
    set(Stat::Cold, ms(latency.coldMs));
    set(Stat::Mean, ms(latency.warm.mean));
    set(Stat::Std, ms(latency.warm.std));
    set(Stat::Min, ms(latency.warm.min));
    set(Stat::P50, ms(latency.warm.p50));
    set(Stat::P90, ms(latency.warm.p90));
    set(Stat::P99, ms(latency.warm.p99));
    set(Stat::Throughput, tr("%1 items/s").arg(locale.toString(latency.throughputPerSecond, 'f', 1)));
    m_histogram->setSamples(latency.samplesMs, latency.warm.mean, latency.warm.p99);

    m_model->setRows(profile.rows, modelName, m_run->roof, profile.deviceTimes);
    m_view->setColumnHidden(LayerTreeModel::DeviceMsColumn, !profile.deviceTimes);
    m_view->expandAll();
    for (int column = 0; column < LayerTreeModel::ColumnCount - 1; ++column)
        m_view->resizeColumnToContents(column);
    m_timelineButton->setEnabled(!m_run->tracePath.empty());
    m_flameButton->setEnabled(!m_run->tracePath.empty());
}

} // namespace pyrometer::ui
