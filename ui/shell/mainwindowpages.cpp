// The main window's pages: made once, and wired to each other (a row in one shows its events in
// the Timeline, a range of the Timeline opens in Operators, a snapshot read shows its page).
#include "ui/shell/mainwindow.h"

#include "ui/compare/comparepage.h"
#include "ui/distributed/distributedpage.h"
#include "ui/flamegraph/flamegraphpage.h"
#include "ui/gpu/gpupage.h"
#include "ui/memory/memorypage.h"
#include "ui/model/modelpage.h"
#include "ui/overview/overviewpage.h"
#include "ui/roofline/rooflinepage.h"
#include "ui/snapshot/snapshotpage.h"
#include "ui/tables/operatorspage.h"
#include "ui/timeline/timelinepage.h"

#include <QLineEdit>
#include <QListWidget>
#include <QStackedWidget>

namespace pyrometer::ui {

void MainWindow::createPages()
{
    m_pages[Page::Overview] = new OverviewPage(m_workspace, m_jobs, this);
    m_pages[Page::Timeline] = new timeline::TimelinePage(m_workspace, m_jobs, this);
    m_pages[Page::FlameGraph] = new flamegraph::FlameGraphPage(m_workspace, m_jobs, this);
    m_pages[Page::Operators] = new tables::OperatorsPage(m_workspace, m_jobs, this);
    m_pages[Page::Model] = new ModelPage(m_workspace, m_jobs, this);
    connect(qobject_cast<ModelPage *>(m_pages.at(Page::Model)), &ModelPage::timelineRequested, this,
            [this] { showPage(Page::Timeline); });
    connect(qobject_cast<ModelPage *>(m_pages.at(Page::Model)), &ModelPage::flameGraphRequested, this,
            [this] { showPage(Page::FlameGraph); });
    auto *timelinePage = qobject_cast<timeline::TimelinePage *>(m_pages.at(Page::Timeline));
    auto *operatorsPage = qobject_cast<tables::OperatorsPage *>(m_pages.at(Page::Operators));
    connect(timelinePage, &timeline::TimelinePage::openRangeInOperators, this,
            [this, operatorsPage, timelinePage](double start, double end) {
                const auto [processes, scope] = timelinePage->rangeScope();
                operatorsPage->showRange(start, end, processes, scope);
                showPage(Page::Operators);
            });
    connect(operatorsPage, &tables::OperatorsPage::rowEventsSelected, timelinePage,
            &timeline::TimelinePage::highlightEvents);
    connect(operatorsPage, &tables::OperatorsPage::rowEventsActivated, this,
            [this, timelinePage](int trace, const QString &name) {
                timelinePage->highlightEvents(trace, name);
                showPage(Page::Timeline);
            });
    auto *memoryPage = new MemoryPage(m_workspace, m_jobs, this);
    m_pages[Page::Memory] = memoryPage;
    connect(memoryPage, &MemoryPage::rowEventsSelected, timelinePage, &timeline::TimelinePage::highlightEvents);
    auto *overviewPage = qobject_cast<OverviewPage *>(m_pages.at(Page::Overview));
    const auto jumpToTimeline = [this, timelinePage](int trace, const overview::TimelineJump &jump) {
        std::vector<timeline::EventRef> events;
        for (const auto &e : jump.events)
            events.push_back({e.track, e.event.value});
        timelinePage->showEvents(trace, std::move(events), double(jump.startNs), double(jump.endNs));
        showPage(Page::Timeline);
    };
    connect(overviewPage, &OverviewPage::timelineJumpRequested, this, jumpToTimeline);
    auto *gpuPage = new gpu::GpuPage(m_workspace, m_jobs, this);
    m_pages[Page::Gpu] = gpuPage;
    connect(gpuPage, &gpu::GpuPage::timelineJumpRequested, this, jumpToTimeline);
    connect(gpuPage, &gpu::GpuPage::rowEventsActivated, this, [this, timelinePage](int trace, const QString &name) {
        timelinePage->highlightEvents(trace, name);
        showPage(Page::Timeline);
    });
    auto *rooflinePage = new roofline::RooflinePage(m_workspace, m_jobs, this);
    m_pages[Page::Roofline] = rooflinePage;
    connect(rooflinePage, &roofline::RooflinePage::rowEventsSelected, timelinePage,
            &timeline::TimelinePage::highlightEvents);
    connect(rooflinePage, &roofline::RooflinePage::rowEventsActivated, this,
            [this, timelinePage](int trace, const QString &name) {
                timelinePage->highlightEvents(trace, name);
                showPage(Page::Timeline);
            });
    connect(overviewPage, &OverviewPage::operatorRequested, this,
            [this, operatorsPage](int trace, const QString &name, bool kernel) {
                operatorsPage->selectName(trace, name, kernel);
                showPage(Page::Operators);
            });
    m_pages[Page::Compare] = new ComparePage(m_workspace, m_jobs, this);
    // An empty Inputs field on the Compare page takes the Model page's, for the same model.
    qobject_cast<ComparePage *>(m_pages.at(Page::Compare))
        ->setFallbackInputs([model = qobject_cast<ModelPage *>(m_pages.at(Page::Model))](const QString &path) {
            return model->currentModelPath() == path ? model->inputsEdit()->text() : QString();
        });
    qobject_cast<ComparePage *>(m_pages.at(Page::Compare))
        ->setEngineSource([model = qobject_cast<ModelPage *>(m_pages.at(Page::Model))](const QString &path) {
            return model->engineFor(path);
        });

    m_pages[Page::Distributed] = new distributed::DistributedPage(m_workspace, this);
    connectDistributedPage();
    auto *snapshotPage = new SnapshotPage(m_jobs, m_workspace, this);
    m_pages[Page::Snapshots] = snapshotPage;
    connect(snapshotPage, &SnapshotPage::snapshotOpened, this, [this] { showPage(Page::Snapshots); });
    // A snapshot joined with a trace: its memory as counter rows of the trace's timeline, and the
    // op that made a group's memory shown there on request.
    connect(snapshotPage, &SnapshotPage::countersJoined, timelinePage, &timeline::TimelinePage::setJoinedCounters);
    connect(snapshotPage, &SnapshotPage::opRequested, this,
            [this, timelinePage](DocumentId trace, trace::TrackId track, std::uint32_t event) {
                timelinePage->showEvents(trace, {timeline::EventRef{track, event}}, 0, 0);
                showPage(Page::Timeline);
            });

    for (const auto page : kAllPages) {
        m_sidebar->addItem(pageTitle(page));
        m_stack->addWidget(m_pages.at(page));
    }
    m_sidebar->setCurrentRow(0);
}

} // namespace pyrometer::ui
