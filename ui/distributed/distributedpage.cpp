#include "ui/distributed/distributedpage.h"

#include "core/report/jobreport.h"
#include "core/summary/timelineranks.h"
#include "ui/distributed/rankbars.h"
#include "ui/distributed/rankstep.h"
#include "ui/distributed/stepheatmap.h"
#include "ui/shell/displaytext.h"
#include "ui/shell/emptystate.h"
#include "ui/shell/tabkeys.h"
#include "ui/tables/sortheader.h"
#include "ui/workspace/jobload.h"
#include "ui/workspace/workspace.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QSplitter>
#include <QStackedLayout>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace pyrometer::ui::distributed {

namespace {

QTableView *makeTable(QAbstractItemModel *proxy, QWidget *parent)
{
    auto *view = new QTableView(parent);
    tables::useSortHeader(view);
    view->setModel(proxy);
    view->setSortingEnabled(true);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setAlternatingRowColors(true);
    view->verticalHeader()->setVisible(false);
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    view->horizontalHeader()->setStretchLastSection(true);
    view->setWordWrap(false);
    return view;
}

QLabel *makeText(QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setWordWrap(true);
    label->setTextFormat(Qt::RichText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

// The summary line: how many ranks, of which world, which backend, how many steps.
QString summaryText(const JobDocument &job)
{
    const auto &figures = job.figures;
    QString text = QObject::tr("<b>%1</b>: %2 ranks").arg(job.title().toHtmlEscaped()).arg(figures.ranks.size());
    if (figures.worldSize > 0)
        text += QObject::tr(" of a world of %1").arg(figures.worldSize);
    if (!figures.backend.empty())
        text += QObject::tr(", %1").arg(qs(figures.backend).toHtmlEscaped());
    if (!figures.ranks.empty()) {
        int fewest = figures.ranks.front().stepCount();
        int most = fewest;
        for (const auto &rank : figures.ranks) {
            fewest = std::min(fewest, rank.stepCount());
            most = std::max(most, rank.stepCount());
        }
        text += fewest == most ? QObject::tr(", %1 steps each").arg(most)
                               : QObject::tr(", %1 to %2 steps").arg(fewest).arg(most);
    }
    return text;
}

// The straggler finding and its evidence, the problems with the files, and the clocks' anchor.
QString findingText(const analysis::JobFigures &figures)
{
    QString html;
    for (const auto &sentence : report::stragglerSentences(figures)) {
        const bool found = !figures.stragglers.empty();
        html += QStringLiteral("<p style='margin:2px 0'>%1%2%3</p>")
                    .arg(found ? QStringLiteral("<b style='color:#c62828'>") : QStringLiteral("<b>"),
                         qs(sentence).toHtmlEscaped(), QStringLiteral("</b>"));
    }
    for (const auto &problem : figures.problems)
        html += QStringLiteral("<p style='margin:2px 0'>⚠ %1</p>").arg(qs(problem).toHtmlEscaped());
    for (const auto &note : figures.notes)
        html += QStringLiteral("<p style='margin:2px 0'>Note: %1.</p>").arg(qs(note).toHtmlEscaped());
    html += QStringLiteral("<p style='margin:2px 0'>%1</p>").arg(qs(report::anchorSentence(figures)).toHtmlEscaped());
    return html;
}

} // namespace

DistributedPage::DistributedPage(Workspace *workspace, QWidget *parent)
    : QWidget(parent), m_workspace(workspace), m_stack(new QStackedLayout),
      m_empty(new EmptyState(tr("Distributed"),
                             tr("A multi-rank training job side by side: which rank holds the others back, how much of "
                                "each rank's time is computation, communication (hidden or exposed), memory and idle, "
                                "step times per rank, and the collectives with their bandwidth."),
                             tr("Open a folder of rank traces with File → Open job…"), this)),
      m_chooser(new QComboBox(this)), m_summary(makeText(this)), m_finding(makeText(this)),
      m_timelineNote(makeText(this)), m_bars(new RankBars(this)), m_heatMap(new StepHeatMap(this)),
      m_tables(new QTabWidget(this)), m_collectivesRank(new QComboBox(this)), m_ranksModel(makeRanksModel(this)),
      m_collectivesModel(makeCollectivesModel(this)), m_ranksProxy(new HighlightingProxy(this)),
      m_collectivesProxy(new HighlightingProxy(this))
{
    m_ranksProxy->setSourceModel(m_ranksModel);
    m_collectivesProxy->setSourceModel(m_collectivesModel);
    m_ranksProxy->setHighlighted([this](int row) { return m_ranksModel->rows()[std::size_t(row)].straggler; });
    m_ranksView = makeTable(m_ranksProxy, this);
    m_collectivesView = makeTable(m_collectivesProxy, this);
    m_ranksView->sortByColumn(0, Qt::AscendingOrder);
    m_timelineNote->setForegroundRole(QPalette::PlaceholderText);

    auto *content = new QWidget(this);
    auto *layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *top = new QHBoxLayout;
    m_chooser->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_chooser->setToolTip(tr("The open job shown"));
    top->addWidget(m_chooser);
    top->addWidget(m_summary, 1);
    layout->addLayout(top);
    layout->addWidget(m_finding);
    layout->addWidget(m_timelineNote);

    auto *charts = new QSplitter(Qt::Horizontal, content);
    charts->addWidget(m_bars);
    charts->addWidget(m_heatMap);
    charts->setChildrenCollapsible(false);
    charts->setSizes({3000, 2000}); // in proportion, whatever the width

    auto *collectives = new QWidget(this);
    auto *collectivesLayout = new QVBoxLayout(collectives);
    collectivesLayout->setContentsMargins(0, 4, 0, 0);
    auto *rankRow = new QHBoxLayout;
    rankRow->addWidget(new QLabel(tr("Show:"), collectives));
    m_collectivesRank->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    rankRow->addWidget(m_collectivesRank);
    rankRow->addStretch(1);
    collectivesLayout->addLayout(rankRow);
    collectivesLayout->addWidget(m_collectivesView, 1);
    m_tables->addTab(m_ranksView, tr("Ranks"));
    m_tables->addTab(collectives, tr("Collectives"));
    switchTabsWithCtrlTab(m_tables, this);

    auto *split = new QSplitter(Qt::Vertical, content);
    split->addWidget(charts);
    split->addWidget(m_tables);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);
    layout->addWidget(split, 1);

    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addLayout(m_stack);
    m_stack->addWidget(m_empty);
    m_stack->addWidget(content);

    connect(m_chooser, &QComboBox::activated, this, [this](int item) { showJob(m_chooser->itemData(item).toInt()); });
    connect(m_collectivesRank, &QComboBox::currentIndexChanged, this, &DistributedPage::showCollectives);
    connect(m_heatMap, &StepHeatMap::cellActivated, this, &DistributedPage::requestStep);
    // A rank's row, double-clicked or with Enter: its first step in the Timeline.
    m_ranksView->setToolTip(tr("Double-click a rank to see its first step in the Timeline"));
    connect(m_ranksView, &QAbstractItemView::activated, this,
            [this](const QModelIndex &index) { requestStep(std::size_t(m_ranksProxy->mapToSource(index).row()), 0); });
    m_ranksView->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_ranksView, &QWidget::customContextMenuRequested, this, [this](const QPoint &at) {
        const auto index = m_ranksView->indexAt(at);
        if (!index.isValid())
            return;
        auto *menu = rankMenu(std::size_t(m_ranksProxy->mapToSource(index).row()), this);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(m_ranksView->viewport()->mapToGlobal(at));
    });
    connect(workspace, &Workspace::jobOpened, this, [this](DocumentId id) {
        rebuildChooser();
        showJob(id);
    });
    connect(workspace, &Workspace::jobClosed, this, [this](DocumentId id) {
        rebuildChooser();
        if (id == m_jobId)
            showJob(m_workspace->newestJob());
    });
    connect(workspace, &Workspace::jobTimelineChanged, this, [this](DocumentId id) {
        if (id == m_jobId)
            updateTimelineNote();
    });
    showJob(kNoDocument);
}

bool DistributedPage::hasContent() const
{
    return m_job != nullptr;
}

void DistributedPage::rebuildChooser()
{
    const QSignalBlocker quiet(m_chooser);
    m_chooser->clear();
    for (const auto id : m_workspace->jobDocuments())
        m_chooser->addItem(m_workspace->jobDocument(id)->title(), id);
    m_chooser->setCurrentIndex(m_chooser->findData(m_jobId));
    m_chooser->setVisible(m_chooser->count() > 1);
}

void DistributedPage::showJob(DocumentId id)
{
    auto job = m_workspace->jobDocument(id);
    // The tables point into the job's figures: empty them before letting the job go.
    m_ranksModel->clear();
    m_collectivesModel->clear();
    m_job = job;
    m_jobId = job ? id : kNoDocument;
    {
        const QSignalBlocker quiet(m_chooser);
        m_chooser->setCurrentIndex(m_chooser->findData(m_jobId));
    }
    const std::shared_ptr<const analysis::JobFigures> figures =
        job ? std::shared_ptr<const analysis::JobFigures>(job, &job->figures) : nullptr;
    m_bars->setJob(figures);
    m_heatMap->setJob(figures);
    {
        const QSignalBlocker quiet(m_collectivesRank);
        m_collectivesRank->clear();
        m_collectivesRank->addItem(tr("All ranks"), -1);
        if (job) {
            for (const auto &rank : job->figures.ranks) {
                if (rank.rank >= 0)
                    m_collectivesRank->addItem(rankLabel(rank), rank.rank);
            }
        }
    }
    m_stack->setCurrentIndex(job ? 1 : 0);
    if (!job) {
        m_summary->clear();
        m_finding->clear();
        m_timelineNote->clear();
        return;
    }
    m_summary->setText(summaryText(*job));
    m_finding->setText(findingText(job->figures));
    updateTimelineNote();
    m_ranksModel->setRows(rankRows(job->figures));
    m_ranksView->resizeColumnsToContents();
    showCollectives();
}

void DistributedPage::showCollectives()
{
    if (!m_job)
        return;
    m_collectivesModel->setRows(collectiveRows(m_job->figures, m_collectivesRank->currentData().toInt()));
    m_collectivesView->resizeColumnsToContents();
}

void DistributedPage::updateTimelineNote()
{
    if (!m_job)
        return;
    QString note = m_job->timelineReason;
    // With no rank in the Timeline, the reason says why.
    if (!m_job->timelineRanks.empty() && m_job->timelineTrace == kNoDocument)
        note += QLatin1Char(' ') + tr("(not loaded: it loads after the summary, and is gone once its trace is closed)");
    else if (!m_job->timelineRanks.empty())
        note += QLatin1Char(' ') + tr("Click a cell of the heat map to see that rank's step there.");
    m_timelineNote->setText(note.toHtmlEscaped());
}

void DistributedPage::requestStep(std::size_t rankIndex, std::size_t step)
{
    if (!m_job || rankIndex >= m_job->figures.ranks.size() || step >= m_job->figures.ranks[rankIndex].steps.size())
        return;
    const auto &rank = m_job->figures.ranks[rankIndex];
    if (m_job->timelinePosition(rankIndex) < 0) {
        Q_EMIT statusMessage(tr("%1 is not in the Timeline. %2").arg(rankLabel(rank), m_job->timelineReason));
        return;
    }
    const auto combined = m_workspace->trace(m_job->timelineTrace);
    if (!combined) {
        Q_EMIT statusMessage(tr("The job's ranks are not loaded in the Timeline"));
        return;
    }
    const auto &s = rank.steps[step];
    const std::int64_t offset =
        rankIndex < m_job->figures.clockOffsetNs.size() ? m_job->figures.clockOffsetNs[rankIndex] : 0;
    const auto annotation = findRankStep(*combined->trace, rankLabel(rank).toStdString(), s.name, s.startNs + offset);
    Q_EMIT stepRequested(m_job->timelineTrace, double(s.startNs + offset), double(s.startNs + s.durationNs + offset),
                         annotation);
}

QMenu *DistributedPage::rankMenu(std::size_t rankIndex, QWidget *parent)
{
    auto *menu = new QMenu(parent);
    if (!m_job || rankIndex >= m_job->figures.ranks.size())
        return menu;
    const auto &rank = m_job->figures.ranks[rankIndex];
    const QString label = rankLabel(rank);
    auto *step = menu->addAction(tr("Show %1's first step in the Timeline").arg(label));
    step->setEnabled(!rank.steps.empty() && m_job->timelinePosition(rankIndex) >= 0);
    connect(step, &QAction::triggered, this, [this, rankIndex] { requestStep(rankIndex, 0); });
    const QString file = QString::fromStdString(rank.file);
    const auto where = summary::rankTraceHere(rank);
    auto *open = menu->addAction(where == summary::RankTrace::Here ? tr("Open %1's whole trace").arg(label)
                                 : where == summary::RankTrace::Missing
                                     ? tr("Open %1's whole trace (not on this machine)").arg(label)
                                     : tr("Open %1's trace (not the file its summary was made from)").arg(label));
    open->setEnabled(where != summary::RankTrace::Missing);
    open->setToolTip(where == summary::RankTrace::Different
                         ? tr("%1 has another size than the trace the summary was made from: it opens as it is now, "
                              "and its figures may differ from the job's.")
                               .arg(file)
                         : file);
    connect(open, &QAction::triggered, this, [this, file] { m_workspace->openTrace(file); });
    return menu;
}

} // namespace pyrometer::ui::distributed
