#include "ui/timeline/timelinepage.h"

#include "core/analysis/idlecauses.h"
#include "core/analysis/kerneltable.h"
#include "core/analysis/optable.h"
#include "core/util/format.h"
#include "ui/jobs/jobtracker.h"
#include "ui/shell/emptystate.h"
#include "ui/shell/preferences.h"
#include "ui/shell/tracechooser.h"
#include "ui/timeline/eventdetails.h"
#include "ui/timeline/timelinelayout.h"
#include "ui/timeline/overviewstrip.h"
#include "ui/timeline/search.h"
#include "ui/workspace/analyses.h"
#include "ui/workspace/workspace.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QShortcut>
#include <QSplitter>
#include <QStackedLayout>
#include <QTextBrowser>
#include <QToolButton>
#include <QUrl>

#include <algorithm>
#include <utility>

namespace pyrometer::ui::timeline {

namespace {

QString legendHtml()
{
    QString html;
    for (const auto &entry : categoryLegend()) {
        html += QStringLiteral("<span style='color:%1'>\u25a0</span>&nbsp;%2&nbsp;&nbsp;")
                    .arg(QColor::fromRgba(entry.color).name(),
                         QString::fromUtf8(entry.label.data(), qsizetype(entry.label.size())));
    }
    return html;
}

} // namespace

TimelinePage::TimelinePage(Workspace *workspace, JobTracker *jobs, QWidget *parent)
    : QWidget(parent), m_workspace(workspace), m_jobs(jobs), m_stack(new QStackedLayout(this)),
      m_empty(new EmptyState(tr("Timeline"),
                             tr("Every event of the trace on its process, thread and GPU-stream track: zoom and pan "
                                "with W A S D or the mouse wheel, search by name, follow launches to their kernels, "
                                "and Shift+drag (or [ and ]) to measure a range."),
                             tr("Open a trace: Ctrl+O"), this)),
      m_traceChooser(new TraceChooser(workspace, this)), m_search(new QLineEdit(this)),
      m_regex(new QCheckBox(tr("Regex"), this)), m_matchLabel(new QLabel(this)), m_colorMode(new QComboBox(this)),
      m_allFlows(new QCheckBox(tr("All flows"), this)), m_legend(new QLabel(this)), m_view(new TimelineView(this)),
      m_details(new QTextBrowser(this))
{
    m_overview = new OverviewStrip(m_view, this);
    auto *content = new QWidget(this);
    auto *layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);

    auto *bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("Trace:"), this));
    bar->addWidget(m_traceChooser);
    bar->addSpacing(12);
    m_search->setPlaceholderText(tr("Search names (Ctrl+F)"));
    m_search->setClearButtonEnabled(true);
    m_search->setMinimumWidth(160);
    bar->addWidget(m_search);
    bar->addWidget(m_regex);
    auto *previous = new QToolButton(this);
    previous->setText(QStringLiteral("\u25c0"));
    previous->setToolTip(tr("Previous match (Shift+Enter)"));
    auto *next = new QToolButton(this);
    next->setText(QStringLiteral("\u25b6"));
    next->setToolTip(tr("Next match (Enter)"));
    bar->addWidget(previous);
    bar->addWidget(next);
    bar->addWidget(m_matchLabel);
    bar->addStretch(1);
    m_colorMode->addItems({tr("Colour by category"), tr("Colour by name")});
    bar->addWidget(m_colorMode);
    m_allFlows->setToolTip(tr("Draw every flow arrow in view, not only the selected event's"));
    bar->addWidget(m_allFlows);
    m_gpuFirst = new QCheckBox(tr("GPU first"), this);
    m_gpuFirst->setChecked(true);
    m_gpuFirst->setToolTip(tr("Show GPU streams (kernels, memcpy, memset) above the CPU threads; "
                              "off: the trace's own order"));
    bar->addWidget(m_gpuFirst);
    connect(m_gpuFirst, &QCheckBox::toggled, this,
            [this](bool on) { m_view->setTrackOrder(on ? TrackOrder::DevicesFirst : TrackOrder::AsRecorded); });
    m_openRange = new QToolButton(this);
    m_openRange->setText(tr("Range in Operators"));
    m_openRange->setToolTip(tr("Open the selected range's operator and kernel tables in the Operators page"));
    m_openRange->setEnabled(false);
    bar->addWidget(m_openRange);
    connect(m_openRange, &QToolButton::clicked, this,
            [this] { Q_EMIT openRangeInOperators(m_lastRange.first, m_lastRange.second); });
    layout->addLayout(bar);

    m_legend->setText(legendHtml());
    m_legend->setWordWrap(true);
    layout->addWidget(m_legend);
    layout->addWidget(m_overview);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_view);
    splitter->addWidget(m_details);
    splitter->setStretchFactor(0, 4);
    splitter->setStretchFactor(1, 1);
    m_details->setPlaceholderText(tr("Click an event to see its details; Shift+drag, or [ and ] at the cursor, "
                                     "to measure a range."));
    layout->addWidget(splitter, 1);

    m_stack->addWidget(m_empty);
    m_stack->addWidget(content);

    connect(m_traceChooser, &TraceChooser::traceChosen, this, &TimelinePage::showTrace);
    // The trace shown, or the one whose index is being built to be shown, may be gone: Close all
    // closes the newest first, which sends the page to another that closes next, before its index
    // is built.
    connect(workspace, &Workspace::traceClosed, this, [this] {
        if (!m_workspace->trace(m_shownTrace) || !m_workspace->trace(m_requestedTrace))
            showTrace(m_workspace->newestTrace());
    });
    connect(m_search, &QLineEdit::textChanged, this, &TimelinePage::runSearch);
    connect(m_regex, &QCheckBox::toggled, this, &TimelinePage::runSearch);
    connect(m_search, &QLineEdit::returnPressed, this, &TimelinePage::nextMatch);
    connect(next, &QToolButton::clicked, this, &TimelinePage::nextMatch);
    connect(previous, &QToolButton::clicked, this, &TimelinePage::previousMatch);
    auto *back = new QShortcut(QKeySequence(Qt::SHIFT | Qt::Key_Return), m_search);
    back->setContext(Qt::WidgetShortcut);
    connect(back, &QShortcut::activated, this, &TimelinePage::previousMatch);
    // Esc in the search box hands the keys back to the timeline (its matches stay highlighted).
    auto *leave = new QShortcut(QKeySequence(Qt::Key_Escape), m_search);
    leave->setContext(Qt::WidgetShortcut);
    connect(leave, &QShortcut::activated, m_view, [this] { m_view->setFocus(Qt::ShortcutFocusReason); });
    auto *find = new QShortcut(QKeySequence::Find, this);
    find->setContext(Qt::WidgetWithChildrenShortcut);
    connect(find, &QShortcut::activated, m_search, [this] {
        m_search->setFocus();
        m_search->selectAll();
    });
    connect(m_colorMode, &QComboBox::currentIndexChanged, this,
            [this](int mode) { m_view->setColorMode(mode == 0 ? ColorMode::ByCategory : ColorMode::ByName); });
    connect(m_allFlows, &QCheckBox::toggled, m_view, &TimelineView::setShowAllFlows);
    connect(m_view, &TimelineView::eventSelected, this, &TimelinePage::showSelection);
    connect(m_view, &TimelineView::rangeSelected, this, &TimelinePage::showRange);
    // A job's range tables: one rank's ("part:N") or all of them ("part:all").
    m_details->setOpenLinks(false);
    connect(m_details, &QTextBrowser::anchorClicked, this, [this](const QUrl &url) {
        if (url.scheme() != QStringLiteral("part") || m_lastRange.second <= m_lastRange.first)
            return;
        bool ok = false;
        const auto part = url.path().toUInt(&ok);
        aggregateRange(m_lastRange.first, m_lastRange.second, ok ? std::optional<std::uint32_t>(part) : std::nullopt);
    });
    connect(m_view, &TimelineView::rangeCleared, this, [this] {
        m_openRange->setEnabled(false);
        showSelection(m_view->selectedEvent());
    });
    // Showing the page gives the timeline the keys (W A S D at once, not after five Tabs).
    setFocusProxy(m_view);
}

bool TimelinePage::hasContent() const
{
    return m_stack->currentIndex() == 1 && m_view->index();
}

namespace {

// The timeline's index as one entry of the document's cache.
struct TimelineKey {
    bool operator==(const TimelineKey &) const = default;
};

} // namespace

void TimelinePage::showTrace(DocumentId id)
{
    const auto document = m_workspace->trace(id);
    m_requestedTrace = document ? id : kNoDocument;
    if (!document) { // the last trace was closed
        m_shownTrace = kNoDocument;
        m_lastRange = {};
        m_openRange->setEnabled(false);
        m_searchTrace = kNoDocument;
        m_search->clear();
        m_pendingEvents.reset();
        m_matches.clear();
        m_view->setIndex(nullptr);
        m_overview->setIndex(nullptr);
        m_details->clear();
        m_stack->setCurrentIndex(0);
        return;
    }
    m_traceChooser->select(id);
    // A search is of one trace: another trace starts without it (as the view starts without the
    // last one's selection and range).
    if (id != m_searchTrace) {
        if (m_searchTrace != kNoDocument) {
            m_exactName.clear();
            m_search->clear();
        }
        m_searchTrace = id;
    }
    // Indexing a large trace takes a moment: a job, superseded if another trace is chosen. The
    // trace on screen chosen again (after another was picked and is still indexing) keeps its
    // view, selection and range: its index comes back from the cache, the same as shown.
    const auto jobId = m_jobs->run<std::shared_ptr<const TimelineIndex>>(
        tr("Indexing the timeline"), QStringLiteral("timeline-index"),
        [document](ProgressReporter &, const StopToken &stop) -> Result<std::shared_ptr<const TimelineIndex>> {
            auto index = document->analyses.get<TimelineIndex>(TimelineKey{}, stop, [&] {
                const auto launches = document->index->hasDevice ? analyses::launchStats(*document, {}, stop) : nullptr;
                return buildTimelineIndex(document->trace, stop, document->index, launches);
            });
            if (!index)
                return Error{"timeline indexing cancelled"};
            return index;
        },
        this,
        [this, id](std::shared_ptr<const TimelineIndex> index) {
            m_shownTrace = id;
            if (const auto joined = m_joined.find(id); joined != m_joined.end()) {
                if (joined->second.base != index) {
                    joined->second.base = index;
                    joined->second.index = withCounters(*index, joined->second.counters);
                }
                index = joined->second.index;
            }
            if (index == m_view->indexPointer()) {
                Q_EMIT traceShown();
                return;
            }
            m_stack->setCurrentIndex(1);
            m_view->setIndex(index);
            m_overview->setIndex(index);
            m_details->clear();
            runSearch();
            applyPendingEvents();
            Q_EMIT traceShown();
        });
    m_jobs->addOwner(jobId, document->jobOwner());
}

void TimelinePage::setJoinedCounters(DocumentId id, std::vector<trace::CounterSeries> counters)
{
    if (counters.empty())
        m_joined.erase(id);
    else
        m_joined[id] = Joined{std::move(counters), nullptr, nullptr};
    if (id == m_requestedTrace)
        showTrace(id);
}

DocumentId TimelinePage::currentTrace() const
{
    return m_traceChooser->currentIndex() >= 0 ? m_traceChooser->currentData().toInt() : kNoDocument;
}

void TimelinePage::chooseTrace(DocumentId id)
{
    const int item = m_traceChooser->findData(id);
    if (item >= 0)
        m_traceChooser->setCurrentIndex(item);
}

void TimelinePage::setColorMode(ColorMode mode)
{
    m_colorMode->setCurrentIndex(mode == ColorMode::ByCategory ? 0 : 1);
    m_view->setColorMode(mode);
}

void TimelinePage::highlightEvents(DocumentId id, const QString &name)
{
    const int item = m_traceChooser->findData(id);
    if (item >= 0 && item != m_traceChooser->currentIndex())
        m_traceChooser->setCurrentIndex(item); // indexes it; the search reruns when it is shown
    // The row's events by their exact name, without touching the Regex box; the view goes to
    // the slowest of them, and ▶ walks on from there in time order.
    m_exactName = name;
    m_revealLongest = true;
    if (m_search->text() == name)
        runSearch();
    else
        m_search->setText(name);
}

void TimelinePage::showEvents(DocumentId id, std::vector<EventRef> events, double startNs, double endNs)
{
    m_pendingEvents = PendingEvents{std::move(events), startNs, endNs};
    const int item = m_traceChooser->findData(id);
    if (item >= 0 && item != m_traceChooser->currentIndex())
        m_traceChooser->setCurrentIndex(item); // indexes it; applied when it is shown
    else if (m_view->index())
        applyPendingEvents();
}

void TimelinePage::applyPendingEvents()
{
    if (!m_pendingEvents)
        return;
    auto [events, start, end] = std::move(*m_pendingEvents);
    m_pendingEvents.reset();
    const auto &trace = *m_view->index()->trace;
    if (end <= start) {
        for (const auto &e : events) {
            const auto &track = trace.track(e.track);
            start = start < end ? std::min(start, double(track.start[e.event])) : double(track.start[e.event]);
            end = std::max(end, double(track.start[e.event] + track.duration[e.event]));
        }
    }
    const std::optional<EventRef> first = events.empty() ? std::nullopt : std::optional<EventRef>(events.front());
    m_view->setHighlights(std::move(events), first);
    if (end > start) {
        const double margin = (end - start) * 0.05;
        m_view->setVisibleRange(start - margin, end + margin);
    }
}

void TimelinePage::runSearch()
{
    m_matches.clear();
    m_currentMatch = -1;
    const auto *index = m_view->index();
    // While another trace is indexed the view still shows the last one: the search waits for it.
    if (!index || m_search->text().isEmpty() || m_shownTrace != currentTrace()) {
        m_matchLabel->clear();
        m_view->setHighlights({}, std::nullopt);
        return;
    }
    // A table row's name stays an exact search until the text is edited.
    if (m_search->text() != m_exactName)
        m_exactName.clear();
    const SearchMode mode = !m_exactName.isEmpty() ? SearchMode::Exact
                            : m_regex->isChecked() ? SearchMode::Regex
                                                   : SearchMode::Contains;
    bool valid = true;
    m_matches = findEvents(*index->trace, m_search->text(), mode, &valid);
    if (!valid) {
        m_matchLabel->setText(tr("invalid pattern"));
        m_view->setHighlights({}, std::nullopt);
        return;
    }
    m_matchLabel->setText(m_matches.empty()       ? tr("no match")
                          : m_matches.size() == 1 ? tr("1 match")
                                                  : tr("%1 matches").arg(m_matches.size()));
    m_view->setHighlights(m_matches, std::nullopt);
    if (m_matches.empty())
        return;
    // Go to a match: a table row's slowest event, else the first match, unless one is in view.
    if (std::exchange(m_revealLongest, false)) {
        m_currentMatch = longestMatch(*index->trace, m_matches);
        showMatch();
    } else if (!anyMatchInView()) {
        m_currentMatch = 0;
        showMatch();
    }
}

bool TimelinePage::anyMatchInView() const
{
    const auto &trace = *m_view->index()->trace;
    const auto &viewport = m_view->viewport();
    if (viewport.width <= 0)
        return true; // not laid out yet: nothing to judge by
    return std::any_of(m_matches.begin(), m_matches.end(), [&](const EventRef &m) {
        const auto &track = trace.track(m.track);
        const double start = double(track.start[m.event]);
        return start < viewport.endNs() && start + double(track.duration[m.event]) > viewport.startNs;
    });
}

void TimelinePage::nextMatch()
{
    if (m_matches.empty())
        return;
    m_currentMatch = (m_currentMatch + 1) % int(m_matches.size());
    showMatch();
}

void TimelinePage::previousMatch()
{
    if (m_matches.empty())
        return;
    m_currentMatch = m_currentMatch <= 0 ? int(m_matches.size()) - 1 : m_currentMatch - 1;
    showMatch();
}

void TimelinePage::showMatch()
{
    const auto &match = m_matches[std::size_t(m_currentMatch)];
    m_matchLabel->setText(tr("%1 of %2").arg(m_currentMatch + 1).arg(m_matches.size()));
    m_view->setHighlights(m_matches, match);
    m_view->selectEvent(match, /*reveal=*/true);
}

void TimelinePage::showSelection(std::optional<EventRef> event)
{
    if (!event || !m_view->index()) {
        m_details->clear();
        return;
    }
    m_details->setHtml(eventDetailsHtml(*m_view->index(), *event));
}

namespace {

struct RangeTables {
    analysis::OpTable ops;
    analysis::KernelTable kernels;
    std::uint64_t events = 0;
    std::vector<analysis::StreamGap> gaps; // GPU idle gaps that overlap the range, longest first
    std::size_t gapCount = 0;              // before keeping the longest
};

constexpr std::size_t kRangeGaps = 12;

QString rangeHtml(const RangeTables &tables, double startNs, double endNs, std::int64_t spanStart)
{
    const auto d = [](std::int64_t ns) { return displayDuration(ns); };
    QString html = QObject::tr("<h3>Range: %1</h3><p>From %2 after the trace start; %3 events start in it. "
                               "F zooms to it, Esc clears it, [ and ] move its ends to the cursor.</p>")
                       .arg(d(std::int64_t(endNs - startNs)), d(std::int64_t(startNs) - spanStart))
                       .arg(tables.events);
    html += QObject::tr("<table cellspacing=0 cellpadding=2><tr><th align=left>Operator</th><th>Calls</th>"
                        "<th>Self</th><th>Total</th><th>Self %</th></tr>");
    for (const auto &row : tables.ops.rows) {
        html += QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td><td align=right>%4</td>"
                               "<td align=right>%5</td></tr>")
                    .arg(QString::fromStdString(row.name).toHtmlEscaped())
                    .arg(row.calls)
                    .arg(d(row.selfNs), d(row.totalNs))
                    .arg(row.selfPercent, 0, 'f', 1);
    }
    html += QStringLiteral("</table>");
    if (!tables.kernels.rows.empty()) {
        html += QObject::tr("<table cellspacing=0 cellpadding=2><tr><th align=left>Kernel</th><th>Count</th>"
                            "<th>Total</th><th>%</th><th align=left>Launched by</th></tr>");
        for (const auto &row : tables.kernels.rows) {
            html +=
                QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td><td align=right>%4</td>"
                               "<td>%5</td></tr>")
                    .arg(QString::fromStdString(row.name).toHtmlEscaped())
                    .arg(row.count)
                    .arg(d(row.totalNs))
                    .arg(row.percent, 0, 'f', 1)
                    .arg(QString::fromStdString(row.launchOp).toHtmlEscaped());
        }
        html += QStringLiteral("</table>");
    }
    if (!tables.gaps.empty()) {
        html += QObject::tr("<p><b>GPU idle gaps</b> in the range: %1, the longest below. <i>Host wait</i>: the CPU "
                            "launched the next kernel late; <i>kernel wait</i>: it was launched and waited on another "
                            "stream or event.</p>")
                    .arg(tables.gapCount);
        html += QObject::tr("<table cellspacing=0 cellpadding=2><tr><th align=left>Stream</th><th>At</th>"
                            "<th>Idle</th><th align=left>Cause</th></tr>");
        for (const auto &gap : tables.gaps) {
            html += QStringLiteral("<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td><td>%4</td></tr>")
                        .arg(QObject::tr("GPU %1 stream %2").arg(gap.device).arg(gap.stream))
                        .arg(d(gap.startNs - spanStart), d(gap.durationNs))
                        .arg(QString::fromUtf8(analysis::idleCauseLabel(gap.cause).data()));
        }
        html += QStringLiteral("</table>");
    }
    return html;
}

} // namespace

std::pair<analysis::ProcessSet, QString> TimelinePage::rangeScope() const
{
    const auto document = m_workspace->trace(m_shownTrace);
    if (!document || !m_rangePart)
        return {};
    return {partProcesses(*document->trace, *m_rangePart), QString::fromStdString(partLabel(*document->trace, *m_rangePart))};
}

void TimelinePage::showRange(double startNs, double endNs)
{
    // In a job's combined trace the tables count the rank of the selected event (a heat-map
    // cell selects its rank's step), else every rank; the tables' head offers the other choice.
    std::optional<std::uint32_t> part;
    const auto *index = m_view->index();
    if (index && traceParts(*index->trace).size() > 1 && m_view->selectedEvent())
        part = processPart(index->trace->process(index->trace->track(m_view->selectedEvent()->track).process));
    aggregateRange(startNs, endNs, part);
}

void TimelinePage::aggregateRange(double startNs, double endNs, std::optional<std::uint32_t> part)
{
    const auto document = m_workspace->trace(m_shownTrace);
    if (!document || !m_view->index())
        return;
    m_rangePart = part;
    const auto processes = part ? partProcesses(*document->trace, *part) : analysis::ProcessSet{};
    m_details->setHtml(tr("<h3>Range</h3><p>Aggregating %1…</p>").arg(displayDuration(std::int64_t(endNs - startNs))));
    // The same range queries as the CLI's --range, off the GUI thread; a newer range replaces it.
    const analysis::TimeRange range{std::int64_t(startNs), std::int64_t(endNs)};
    m_jobs->run<RangeTables>(
        tr("Aggregating the range"), QStringLiteral("timeline-range"),
        [document, range, processes](ProgressReporter &, const StopToken &stop) -> Result<RangeTables> {
            RangeTables tables;
            analysis::OpTableOptions ops;
            ops.range = range;
            ops.processes = processes;
            ops.top = 15;
            tables.ops = analysis::buildOpTable(*document->index, ops, &stop);
            analysis::KernelTableOptions kernels;
            kernels.range = range;
            kernels.processes = processes;
            kernels.top = 10;
            tables.kernels = analysis::buildKernelTable(*document->index, kernels, &stop);
            if (document->index->hasDevice) {
                // The whole trace's gaps, from the document's cache: the GPU page and the
                // Overview asked for the same.
                const auto idle = analyses::idleBreakdown(*document, {}, stop);
                if (idle) {
                    for (const auto &gap : idle->gaps)
                        if (gap.startNs < range.end && gap.startNs + gap.durationNs > range.start &&
                            (processes.isAll() || (gap.next.track.isValid() &&
                                                     processes.contains(document->trace->track(gap.next.track).process.value))))
                            tables.gaps.push_back(gap);
                    tables.gapCount = tables.gaps.size();
                    std::stable_sort(tables.gaps.begin(), tables.gaps.end(),
                                     [](const auto &a, const auto &b) { return a.durationNs > b.durationNs; });
                    if (tables.gaps.size() > kRangeGaps)
                        tables.gaps.resize(kRangeGaps);
                }
            }
            const auto &trace = *document->trace;
            for (std::size_t t = 0; t < trace.tracks.size(); ++t) {
                if (!processes.contains(trace.tracks[t].process.value))
                    continue;
                const auto [first, last] = trace.startRange(trace::TrackId(std::uint32_t(t)), range.start, range.end);
                tables.events += last.value - first.value;
            }
            if (stop.stopRequested())
                return Error{"range aggregation cancelled"};
            return tables;
        },
        this,
        [this, startNs, endNs, document, part](RangeTables tables) {
            QString html = rangeHtml(tables, startNs, endNs, document->trace->info.spanStart);
            // A job's combined trace: whose figures the tables are, said before them, with the
            // other choices as links.
            const auto &trace = *document->trace;
            if (const auto parts = traceParts(trace); parts.size() > 1) {
                QString scope;
                if (part) {
                    scope = tr("<p><b>These tables are %1's alone</b> (its CPU and GPU processes) · "
                               "<a href=\"part:all\">sum the %2 ranks in the Timeline</a></p>")
                                .arg(QString::fromStdString(partLabel(trace, *part)).toHtmlEscaped())
                                .arg(parts.size());
                } else {
                    QStringList links;
                    for (const auto p : parts)
                        links << QStringLiteral("<a href=\"part:%1\">%2</a>")
                                     .arg(p)
                                     .arg(QString::fromStdString(partLabel(trace, p)).toHtmlEscaped());
                    scope = tr("<p><b>These tables sum the %1 ranks in the Timeline</b>; one rank's alone: %2</p>")
                                .arg(parts.size())
                                .arg(links.join(QStringLiteral(" · ")));
                }
                html.replace(html.indexOf(QStringLiteral("</h3>")), 5, QStringLiteral("</h3>") + scope);
            }
            m_details->setHtml(html);
            m_lastRange = {startNs, endNs};
            m_openRange->setEnabled(true);
        });
}

} // namespace pyrometer::ui::timeline
