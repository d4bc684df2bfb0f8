// The timeline as a user drives it: search, details, keys, wheel and clicks, the view's bounds,
// sticky headers and the range tables.
// Qt first: moc cannot parse <compare> (included by core headers) before a Qt header.
#include <QCheckBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QToolTip>

#include "core/analysis/idlecauses.h"
#include "core/trace/loader.h"
#include "ui/timeline/boxlayer.h"
#include "ui/timeline/drawlist.h"
#include "ui/timeline/eventdetails.h"
#include "ui/timeline/kernelname.h"
#include "ui/timeline/search.h"
#include "ui/jobs/jobtracker.h"
#include "ui/shell/preferences.h"
#include "ui/timeline/timelinepage.h"
#include "ui/timeline/timelineview.h"
#include "ui/workspace/workspace.h"
#include "tests/ui/maybegrab.h"
#include "tests/ui/timelinetestutil.h"

#include <algorithm>
#include <fstream>
#include <set>

using namespace pyrometer;
using namespace pyrometer::ui::timeline;
using namespace pyrometer::testing;

// A Timeline page of its own workspace, showing a fixture trace once open() returns true.
struct ShownPage {
    ui::JobTracker jobs;
    ui::Workspace workspace{&jobs};
    TimelinePage page{&workspace, &jobs};
    bool open(const QString &fixture)
    {
        QSignalSpy shown(&page, &TimelinePage::traceShown);
        workspace.openTrace(QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/") + fixture);
        return shown.wait(20000) || shown.count() > 0;
    }
};

class TestTimelineView : public QObject, private TimelineFixture {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY(load()); }

    void searchCountsMatches()
    {
        QCOMPARE(findEvents(*m_trace, "TINY", false).size(), std::size_t(1000)); // case-insensitive
        QCOMPARE(findEvents(*m_trace, "kernel", false).size(), std::size_t(2));
        QCOMPARE(findEvents(*m_trace, "^(inner|outer)$", true).size(), std::size_t(2));
        QCOMPARE(findEvents(*m_trace, "(", false).size(), std::size_t(0)); // literal "(": no match
        bool valid = true;
        QVERIFY(findEvents(*m_trace, "(", true, &valid).empty());
        QVERIFY(!valid);
        const auto matches = findEvents(*m_trace, "er$", true);
        QCOMPARE(matches.size(), std::size_t(2)); // inner, outer in time order
        QVERIFY(m_trace->track(matches[0].track).start[matches[0].event] <= m_trace->track(matches[1].track).start[matches[1].event]);
    }

    void detailsShowSelfTimeAndStack()
    {
        const auto cpu = trackNamed(*m_trace, 1);
        const auto outer = *eventNamed(*m_trace, cpu, "outer");
        QCOMPARE(selfTime(m_trace->track(cpu), outer), std::int64_t(700'000)); // 900 - 200 µs
        const auto inner = *eventNamed(*m_trace, cpu, "inner");
        const QString html = eventDetailsHtml(*m_index, {cpu, inner});
        QVERIFY(html.contains("inner"));
        QVERIFY(html.contains("200 \u00b5s"));
        QVERIFY(html.contains("outer<br>ProfilerStep#0")); // the stack, innermost first
    }

    // A kernel's details name the operator that launched it (not only the runtime call).
    void kernelDetailsNameTheLaunchingOp()
    {
        auto loaded = trace::loadTrace(PYROMETER_FIXTURES_DIR "/traces/gaunernst_bert-small-uncased__1016001.json.gz");
        QVERIFY(loaded.ok());
        const auto index = buildTimelineIndex(loaded.value());
        QVERIFY(index);
        const auto &trace = *index->trace;
        int checked = 0;
        for (std::uint32_t t = 0; t < trace.tracks.size() && checked < 3; ++t) {
            const auto &launch = index->analysis->track(trace::TrackId(t)).launchOp;
            for (std::uint32_t e = 0; e < launch.size() && checked < 3; ++e) {
                if (!launch[e].isValid())
                    continue;
                const auto &opTrack = trace.track(launch[e].track);
                const QString op = QString::fromStdString(std::string(trace.string(opTrack.eventName[launch[e].event.value])));
                const QString html = eventDetailsHtml(*index, {trace::TrackId(t), e});
                QVERIFY2(html.contains(QStringLiteral("Launched by")) && html.contains(op.toHtmlEscaped()), qPrintable(html));
                QVERIFY(op.startsWith(QStringLiteral("aten::")));
                ++checked;
            }
        }
        QCOMPARE(checked, 3);
    }

    void keyboardAndMouseNavigate()
    {
        TimelineView view;
        view.resize(1200, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setIndex(m_index);
        const Viewport fitted = view.viewport();
        QVERIFY(fitted.nsPerPixel > 0);
        QVERIFY(fitted.startNs <= double(m_index->spanStart));
        QVERIFY(fitted.endNs() >= double(m_index->spanEnd));
        QVERIFY(!view.drawList().boxes.empty());

        QTest::keyClick(&view, Qt::Key_W);
        QVERIFY(view.viewport().nsPerPixel < fitted.nsPerPixel);
        QTest::keyClick(&view, Qt::Key_S);
        QTest::keyClick(&view, Qt::Key_S);
        QVERIFY(view.viewport().nsPerPixel > fitted.nsPerPixel * 0.99);
        QTest::keyClick(&view, Qt::Key_0);
        QCOMPARE(view.viewport(), fitted);

        for (int i = 0; i < 5; ++i)
            QTest::keyClick(&view, Qt::Key_W);
        const double before = view.viewport().startNs;
        QTest::keyClick(&view, Qt::Key_D);
        QVERIFY(view.viewport().startNs > before);
        QTest::keyClick(&view, Qt::Key_A);
        QVERIFY(qAbs(view.viewport().startNs - before) < 1);

        // Dragging pans: moving right shows earlier times.
        const QPoint center = view.rowsRect().center();
        const double startBeforeDrag = view.viewport().startNs;
        QTest::mousePress(&view, Qt::LeftButton, {}, center);
        QMouseEvent move(QEvent::MouseMove, QPointF(center + QPoint(100, 0)), view.mapToGlobal(QPointF(center + QPoint(100, 0))),
                         Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&view, &move);
        QTest::mouseRelease(&view, Qt::LeftButton, {}, center + QPoint(100, 0));
        QVERIFY(view.viewport().startNs < startBeforeDrag);

        // The wheel zooms around the cursor: the time under it stays put.
        QTest::keyClick(&view, Qt::Key_0);
        const double anchorX = 300;
        const double timeUnder = view.viewport().toNs(anchorX);
        QWheelEvent wheel(QPointF(view.rowsRect().left() + anchorX, center.y()), view.mapToGlobal(QPointF(center)), {},
                          QPoint(0, 120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(&view, &wheel);
        QVERIFY(view.viewport().nsPerPixel < fitted.nsPerPixel);
        QVERIFY(qAbs(view.viewport().toNs(anchorX) - timeUnder) < view.viewport().nsPerPixel * 2);
    }

    void wheelBehaviourIsConfigurable()
    {
        TimelineView view;
        view.resize(1200, 120); // shorter than the rows, so there is something to scroll
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setIndex(m_index);
        view.setWheelZooms(false);
        const Viewport before = view.viewport();
        const QPointF at(view.rowsRect().center());
        QWheelEvent down(at, view.mapToGlobal(at), {}, QPoint(0, -120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(&view, &down);
        QCOMPARE(view.viewport().nsPerPixel, before.nsPerPixel); // plain wheel scrolls
        QVERIFY(view.viewport().scrollY > before.scrollY);
        QWheelEvent zoom(at, view.mapToGlobal(at), {}, QPoint(0, 120), Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(&view, &zoom);
        QVERIFY(view.viewport().nsPerPixel < before.nsPerPixel); // Ctrl+wheel zooms
    }

    void clickSelectsAndDoubleClickZooms()
    {
        TimelineView view;
        view.resize(1200, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setIndex(m_index);
        view.setVisibleRange(0, 1'000'000); // 0..1000 µs
        const auto cpu = trackNamed(*m_trace, 1);
        const auto inner = *eventNamed(*m_trace, cpu, "inner");
        const auto &row = view.layout().rows[std::size_t(view.layout().sliceRowToLayout[m_index->rowOf(cpu, trace::EventIndex(inner))])];
        const QPoint onInner(view.rowsRect().left() + int(view.viewport().toX(200'000)), view.rowsRect().top() + row.y + 5);

        QSignalSpy selected(&view, &TimelineView::eventSelected);
        QTest::mouseClick(&view, Qt::LeftButton, {}, onInner);
        QCOMPARE(selected.size(), 1);
        QVERIFY(view.selectedEvent());
        QCOMPARE(view.selectedEvent()->event, inner);

        QTest::mouseDClick(&view, Qt::LeftButton, {}, onInner);
        // Zoomed to inner (100..300 µs) with a margin.
        QVERIFY(view.viewport().startNs <= 100'000 && view.viewport().startNs > 50'000);
        QVERIFY(view.viewport().endNs() >= 300'000 && view.viewport().endNs() < 350'000);

        // Shift+drag selects a range.
        view.setVisibleRange(0, 1'000'000);
        QSignalSpy range(&view, &TimelineView::rangeSelected);
        const int y = view.rowsRect().top() + 100;
        QTest::mousePress(&view, Qt::LeftButton, Qt::ShiftModifier, QPoint(view.rowsRect().left() + 100, y));
        QMouseEvent move(QEvent::MouseMove, QPointF(view.rowsRect().left() + 400, y), view.mapToGlobal(QPointF(view.rowsRect().left() + 400, y)),
                         Qt::NoButton, Qt::LeftButton, Qt::ShiftModifier);
        QApplication::sendEvent(&view, &move);
        QTest::mouseRelease(&view, Qt::LeftButton, Qt::ShiftModifier, QPoint(view.rowsRect().left() + 400, y));
        QCOMPARE(range.size(), 1);
        const double from = range.at(0).at(0).toDouble(), to = range.at(0).at(1).toDouble();
        QVERIFY(qAbs((to - from) - 300 * view.viewport().nsPerPixel) < 2 * view.viewport().nsPerPixel);
        QTest::keyClick(&view, Qt::Key_F);
        QVERIFY(qAbs(view.viewport().startNs - from) < 1);
    }

    // Without a mouse: [ and ] set a range's ends at the view's centre (D pans between them), R
    // sets it to the selected event; each emits rangeSelected as Shift+drag does. Esc clears the
    // range, then the selection.
    void keysChooseARange()
    {
        TimelineView view;
        view.resize(1200, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setIndex(m_index);
        view.setVisibleRange(0, 1'000'000);
        const auto cpu = trackNamed(*m_trace, 1);
        const auto outer = *eventNamed(*m_trace, cpu, "outer");
        QSignalSpy ranges(&view, &TimelineView::rangeSelected);
        QSignalSpy cleared(&view, &TimelineView::rangeCleared);

        view.selectEvent(EventRef{cpu, outer});
        QTest::keyClick(&view, Qt::Key_R);
        QCOMPARE(ranges.size(), 1);
        QCOMPARE(view.selectedRange(), std::make_pair(0.0, 900'000.0));

        // [ at the centre (500 µs) moves the start; past the end (900 µs) it starts anew.
        QTest::keyClick(&view, Qt::Key_BracketLeft);
        QCOMPARE(ranges.size(), 2);
        const double centre = view.viewport().toNs(view.viewport().width / 2.0);
        QCOMPARE(view.selectedRange(), std::make_pair(centre, 900'000.0));
        for (int i = 0; i < 5; ++i)
            QTest::keyClick(&view, Qt::Key_D); // on to ~1000 µs
        QTest::keyClick(&view, Qt::Key_BracketLeft);
        QCOMPARE(ranges.size(), 2); // a start alone is no range yet
        QCOMPARE(cleared.size(), 1);
        const double start = view.viewport().toNs(view.viewport().width / 2.0);
        QVERIFY(start > 900'000);
        QTest::keyClick(&view, Qt::Key_D);
        QTest::keyClick(&view, Qt::Key_BracketRight);
        QCOMPARE(ranges.size(), 3);
        const double end = view.viewport().toNs(view.viewport().width / 2.0);
        QCOMPARE(view.selectedRange(), std::make_pair(start, end));
        QCOMPARE(ranges.last().at(0).toDouble(), start);
        QCOMPARE(ranges.last().at(1).toDouble(), end);
        QVERIFY(qAbs((end - start) - 0.1 * view.viewport().width * view.viewport().nsPerPixel) < 1);
        QTest::keyClick(&view, Qt::Key_F);
        QVERIFY(qAbs(view.viewport().startNs - start) < 1);

        QTest::keyClick(&view, Qt::Key_Escape);
        QVERIFY(!view.selectedRange());
        QCOMPARE(cleared.size(), 2);
        QCOMPARE(view.selectedEvent(), std::optional<EventRef>(EventRef{cpu, outer}));
        QTest::keyClick(&view, Qt::Key_Escape);
        QVERIFY(!view.selectedEvent());
    }

    // The arrow keys walk the selection: Left/Right along its row, Up to the enclosing event,
    // Down to the first one it encloses.
    void arrowsMoveTheSelection()
    {
        TimelineView view;
        view.resize(1200, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setIndex(m_index);
        const auto cpu = trackNamed(*m_trace, 1);
        const auto name = [&] {
            return view.selectedEvent() ? std::string(m_trace->string(m_trace->track(cpu).eventName[view.selectedEvent()->event]))
                                        : std::string();
        };
        // Nothing selected: an arrow selects the topmost event under the view's centre.
        QVERIFY(!view.selectedEvent());
        QTest::keyClick(&view, Qt::Key_Right);
        QVERIFY(view.selectedEvent());
        {
            const auto &track = m_trace->track(view.selectedEvent()->track);
            const double start = double(track.start[view.selectedEvent()->event]);
            const double end = start + double(track.duration[view.selectedEvent()->event]);
            // Under the centre, or (where nothing is) the nearest, within an eighth of the view.
            const double centre = view.viewport().toNs(view.viewport().width / 2.0);
            const double distance = centre < start ? start - centre : centre > end ? centre - end : 0;
            const double eighth = view.viewport().toNs(view.viewport().width * 5.0 / 8.0) - centre;
            QVERIFY2(distance <= eighth, qPrintable(QString::fromStdString(name())));
        }
        view.selectEvent(std::nullopt);
        view.selectEvent(EventRef{cpu, *eventNamed(*m_trace, cpu, "inner")});
        QTest::keyClick(&view, Qt::Key_Up);
        QCOMPARE(name(), std::string("outer"));
        QTest::keyClick(&view, Qt::Key_Up);
        QCOMPARE(name(), std::string("ProfilerStep#0"));
        QTest::keyClick(&view, Qt::Key_Up); // the top: stays
        QCOMPARE(name(), std::string("ProfilerStep#0"));
        QTest::keyClick(&view, Qt::Key_Down);
        QCOMPARE(name(), std::string("outer"));
        QTest::keyClick(&view, Qt::Key_Down);
        QCOMPARE(name(), std::string("inner"));
        QTest::keyClick(&view, Qt::Key_Down); // nothing inside inner
        QCOMPARE(name(), std::string("inner"));
        // Along the top row: the step, then the first and second of the tiny events, in time.
        view.selectEvent(EventRef{cpu, *eventNamed(*m_trace, cpu, "ProfilerStep#0")});
        QTest::keyClick(&view, Qt::Key_Right);
        QCOMPARE(name(), std::string("tiny"));
        const auto first = *view.selectedEvent();
        QTest::keyClick(&view, Qt::Key_Right);
        const auto second = *view.selectedEvent();
        const auto &track = m_trace->track(cpu);
        QCOMPARE(track.start[second.event] - track.start[first.event], std::int64_t(100));
        QTest::keyClick(&view, Qt::Key_Left);
        QCOMPARE(*view.selectedEvent(), first);
        QTest::keyClick(&view, Qt::Key_Left);
        QCOMPARE(name(), std::string("ProfilerStep#0"));
        QTest::keyClick(&view, Qt::Key_Left); // the first: stays
        QCOMPARE(name(), std::string("ProfilerStep#0"));
        // Selecting shows it: the view moved to the tiny events when they were chosen.
        QVERIFY(view.viewport().endNs() > 2'000'000);
    }

    // The view with the keys wears a frame of the highlight colour; without them, none.
    void focusIsMarked_data()
    {
        QTest::addColumn<bool>("dark");
        QTest::addRow("light") << false;
        QTest::addRow("dark") << true;
    }
    void focusIsMarked()
    {
        QFETCH(bool, dark);
        QWidget window;
        QPalette palette = window.palette();
        if (dark) {
            palette.setColor(QPalette::Base, QColor(30, 30, 30));
            palette.setColor(QPalette::Window, QColor(45, 45, 45));
            palette.setColor(QPalette::AlternateBase, QColor(40, 40, 40));
            palette.setColor(QPalette::Text, QColor(230, 230, 230));
            palette.setColor(QPalette::Highlight, QColor(42, 130, 218));
        }
        window.setPalette(palette);
        auto *other = new QLineEdit(&window);
        auto *view = new TimelineView(&window);
        other->setGeometry(0, 0, 100, 20);
        view->setGeometry(0, 30, 1000, 400);
        window.resize(1000, 430);
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        view->setIndex(m_index);
        const QColor highlight = view->palette().color(QPalette::Active, QPalette::Highlight);
        const auto framed = [&] {
            const QImage image = view->grab().toImage();
            // Left, top and bottom edges, beside the gutter and in the rows.
            for (const QPoint p : {QPoint(0, 200), QPoint(1, 300), QPoint(100, 0), QPoint(600, 1), QPoint(600, 399)})
                if (image.pixelColor(p) != highlight)
                    return false;
            return true;
        };
        other->setFocus();
        QTRY_VERIFY(other->hasFocus());
        QVERIFY(!framed());
        view->setFocus();
        QTRY_VERIFY(view->hasFocus());
        QVERIFY(framed());
        view->selectEvent(EventRef{trackNamed(*m_trace, 1), *eventNamed(*m_trace, trackNamed(*m_trace, 1), "outer")});
        QTest::keyClick(view, Qt::Key_R);
        view->setVisibleRange(-100'000, 1'300'000);
        maybeGrab(*view, dark ? QStringLiteral("timeline-focus-dark.png") : QStringLiteral("timeline-focus-light.png"));
    }

    // The search box holds one trace's search: choosing another trace clears it; a table row's
    // events shown in another trace still search that trace for them.
    void searchIsPerTrace()
    {
        ShownPage shown;
        QVERIFY(shown.open(QStringLiteral("diff_base.json")));
        auto &[jobs, workspace, page] = shown;
        const auto base = page.currentTrace();
        workspace.openTrace(QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/diff_other.json"));
        QVERIFY(QTest::qWaitFor([&] { return workspace.traces().size() == 2 && jobs.isIdle(); }, 20000));
        const auto other = workspace.traces().rbegin()->first;
        QVERIFY(other != base);
        page.chooseTrace(base);
        QVERIFY(QTest::qWaitFor([&] { return jobs.isIdle() && page.currentTrace() == base; }, 20000));
        page.searchBox()->setText(QStringLiteral("aten::relu"));
        QVERIFY(page.matchLabel()->text().contains("match"));
        page.chooseTrace(other);
        QVERIFY(QTest::qWaitFor([&] { return jobs.isIdle(); }, 20000));
        QCOMPARE(page.currentTrace(), other);
        QCOMPARE(page.searchBox()->text(), QString());
        QCOMPARE(page.matchLabel()->text(), QString());
        // A table row's name, from the other trace: the box holds it and its matches are found.
        page.highlightEvents(base, QStringLiteral("aten::relu"));
        QVERIFY(QTest::qWaitFor([&] { return jobs.isIdle() && page.currentTrace() == base; }, 20000));
        // Its slowest of two shown, as from a table row in the same trace.
        QVERIFY2(QTest::qWaitFor([&] { return page.matchLabel()->text() == QStringLiteral("1 of 2"); }, 5000),
                 qPrintable(page.matchLabel()->text()));
        QCOMPARE(page.searchBox()->text(), QStringLiteral("aten::relu"));
    }

    // A range's tables (Shift+drag) on the hand-built trace: the values worked out by hand for
    // the events that start in [0, 130 us).
    // Zooming and panning out stop at the trace and a margin of 5% of it on each side.
    void viewStaysOnTheTrace()
    {
        TimelineView view;
        view.resize(1200, 400);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setIndex(m_index);
        const double span = double(m_index->spanEnd - m_index->spanStart);
        const double margin = span * 0.05;
        const QPointF at(view.rowsRect().center());
        for (int i = 0; i < 60; ++i) {
            QWheelEvent out(at, view.mapToGlobal(at), {}, QPoint(0, -120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
            QApplication::sendEvent(&view, &out);
        }
        QVERIFY(view.viewport().startNs >= double(m_index->spanStart) - margin - 1);
        QVERIFY(view.viewport().endNs() <= double(m_index->spanEnd) + margin + 1);
        QVERIFY(view.viewport().endNs() - view.viewport().startNs >= span); // the whole trace is in view
        for (int i = 0; i < 8; ++i)
            QTest::keyClick(&view, Qt::Key_W);
        for (int i = 0; i < 200; ++i)
            QTest::keyClick(&view, Qt::Key_D);
        QVERIFY(view.viewport().endNs() <= double(m_index->spanEnd) + margin + 1);
        QVERIFY(view.viewport().endNs() > double(m_index->spanEnd)); // at the end, not short of it
        for (int i = 0; i < 200; ++i)
            QTest::keyClick(&view, Qt::Key_A);
        QVERIFY(view.viewport().startNs >= double(m_index->spanStart) - margin - 1);
        QVERIFY(view.viewport().startNs < double(m_index->spanStart));
    }

    // Zoomed all the way out, the view is fit-all's to the bit, and shows the draw list kept for
    // it while another was shown: the same boxes a fresh build gives, in the same arrays. A
    // change of colours drops it.
    void wholeTraceListIsKept()
    {
        TimelineView view;
        view.resize(1200, 400);
        view.setIndex(m_index);
        const auto whole = view.viewport();
        const auto *kept = view.drawList().boxes.data();
        QVERIFY(!view.drawList().boxes.empty());
        const double middle = view.rowsRect().width() / 2.0;
        for (int i = 0; i < 6; ++i)
            view.zoomBy(0.5, middle);
        view.panByPixels(300);
        QVERIFY(view.drawList().boxes.data() != kept);
        for (int i = 0; i < 9; ++i)
            view.zoomBy(2.0, middle);
        QVERIFY(view.viewport() == whole);
        QCOMPARE(view.drawList().boxes.data(), kept);
        const auto fresh = buildDrawList(*m_index, view.layout(), view.viewport(), view.colorMode());
        QCOMPARE(view.drawList().boxes, fresh.boxes);
        QCOMPARE(view.drawList().eventsDrawn, fresh.eventsDrawn);

        // Other colours: the list kept is dropped, and the whole view built again in them.
        view.zoomBy(0.5, middle);
        view.setColorMode(view.colorMode() == ColorMode::ByName ? ColorMode::ByCategory : ColorMode::ByName);
        view.fitAll();
        QVERIFY(view.viewport() == whole);
        const auto recoloured = buildDrawList(*m_index, view.layout(), view.viewport(), view.colorMode());
        QCOMPARE(view.drawList().boxes, recoloured.boxes);
        QVERIFY(view.drawList().boxes != fresh.boxes);
    }

    // GPU streams come first unless the trace's own order is asked for; the header of the
    // process whose rows fill the top stays drawn there.
    void gpuTracksFirstAndHeadersStay()
    {
        const auto processOrder = [&](const TimelineLayout &layout) {
            std::vector<std::int64_t> pids;
            for (const auto &row : layout.rows)
                if (row.kind == RowKind::Process)
                    pids.push_back(m_trace->processes[row.process].pid.number);
            return pids;
        };
        QCOMPARE(processOrder(buildLayout(*m_index, {})), (std::vector<std::int64_t>{2, 1}));
        QCOMPARE(processOrder(buildLayout(*m_index, {}, {}, TrackOrder::AsRecorded)), (std::vector<std::int64_t>{1, 2}));

        TimelineView view;
        view.resize(1200, 150);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setIndex(m_index);
        QCOMPARE(view.stickyHeaderRow(), -1); // at the top, headers are in their place
        view.setTrackOrder(TrackOrder::AsRecorded);
        // Scroll so that pid 1's header is gone but its rows still fill the top.
        const auto &layout = view.layout();
        const auto firstSlice = std::find_if(layout.rows.begin(), layout.rows.end(),
                                             [](const LayoutRow &row) { return row.kind == RowKind::Slices; });
        QVERIFY(firstSlice != layout.rows.end());
        const QPointF at(view.rowsRect().center());
        for (int i = 0; i < 20 && view.viewport().scrollY < firstSlice->y + 1; ++i) {
            QWheelEvent down(at, view.mapToGlobal(at), {}, QPoint(0, -120), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
            view.setWheelZooms(false);
            QApplication::sendEvent(&view, &down);
        }
        QVERIFY(view.viewport().scrollY > 0);
        const int sticky = view.stickyHeaderRow();
        QVERIFY(sticky >= 0);
        const auto [first, last] = layout.rowsIn(view.viewport().scrollY, view.viewport().scrollY + view.viewport().height);
        QVERIFY(first < last);
        QCOMPARE(layout.rows[std::size_t(sticky)].process, layout.rows[std::size_t(first)].process);
        QCOMPARE(m_trace->processes[layout.rows[std::size_t(sticky)].process].pid.number, std::int64_t(1));
        // Clicking the pinned header collapses its process.
        const auto process = layout.rows[std::size_t(sticky)].process;
        QVERIFY(!view.isProcessCollapsed(process));
        QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(20, view.rowsRect().top() + 5));
        QVERIFY(view.isProcessCollapsed(process));
    }

    // A table row's events: searched by exact name without turning on Regex, the view at the
    // longest of them, and ▶ going on from there in time order.
    void tableRowShowsItsLongestEvent()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("ops.json");
        {
            std::ofstream out(file.toStdString());
            out << R"({"traceEvents":[)"
                << R"({"ph":"X","name":"op","cat":"cpu_op","pid":1,"tid":1,"ts":0,"dur":10},)"
                << R"({"ph":"X","name":"op","cat":"cpu_op","pid":1,"tid":1,"ts":100000,"dur":50},)"
                << R"({"ph":"X","name":"op","cat":"cpu_op","pid":1,"tid":1,"ts":200000,"dur":20},)"
                << R"({"ph":"X","name":"op_other","cat":"cpu_op","pid":1,"tid":1,"ts":300000,"dur":20}]})";
        }
        ui::JobTracker jobs;
        ui::Workspace workspace(&jobs);
        TimelinePage page(&workspace, &jobs);
        page.resize(1200, 600);
        page.show();
        QSignalSpy shown(&page, &TimelinePage::traceShown);
        workspace.openTrace(file);
        QVERIFY(shown.wait(20000) || shown.count() > 0);
        page.highlightEvents(0, QStringLiteral("op"));
        QCOMPARE(page.matchLabel()->text(), QStringLiteral("2 of 3")); // op_other is not "op"
        const auto boxes = page.findChildren<QCheckBox *>();
        const auto regex = std::find_if(boxes.begin(), boxes.end(), [](const QCheckBox *box) { return box->text() == "Regex"; });
        QVERIFY(regex != boxes.end());
        QVERIFY(!(*regex)->isChecked());
        const auto selected = page.view()->selectedEvent();
        QVERIFY(selected);
        const auto &track = page.view()->index()->trace->track(selected->track);
        QCOMPARE(track.duration[selected->event], std::int64_t(50'000));
        const double start = double(track.start[selected->event]);
        QVERIFY(page.view()->viewport().startNs <= start && page.view()->viewport().endNs() >= start + 50'000);
        page.nextMatch();
        QCOMPARE(page.matchLabel()->text(), QStringLiteral("3 of 3"));
        // Typing makes it a plain search again: "op" contains-matches op_other too.
        page.searchBox()->setText(QStringLiteral("op_"));
        page.searchBox()->setText(QStringLiteral("op"));
        const QString label = page.matchLabel()->text();
        QVERIFY2(label == QStringLiteral("4 matches") || label.endsWith(QStringLiteral(" of 4")), qPrintable(label));
    }

    void rangeTablesHaveTheRangesValues()
    {
        ShownPage shown;
        QVERIFY(shown.open(QStringLiteral("diff_base.json")));
        auto &[jobs, workspace, page] = shown;
        page.view()->selectRange(0, 130'000);
        QVERIFY(QTest::qWaitFor([&] { return jobs.isIdle() && page.details()->toPlainText().contains("Operator"); }, 20000));
        const auto lines = page.details()->toPlainText().split('\n', Qt::SkipEmptyParts);
        const auto row = [&](const QStringList &cells) {
            const auto at = lines.indexOf(cells.front());
            return at >= 0 && lines.mid(at, cells.size()) == cells;
        };
        const auto us = [](std::int64_t micros) { return ui::displayDuration(micros * 1000); };
        QVERIFY2(page.details()->toPlainText().contains("5 events start in it"), qPrintable(page.details()->toPlainText()));
        // Operator, calls, self, total, self % of the range's 130 us of self time.
        QVERIFY2(row({"aten::convolution", "1", us(80), us(80), "61.5"}), qPrintable(lines.join('|')));
        QVERIFY2(row({"aten::conv2d", "1", us(20), us(100), "15.4"}), qPrintable(lines.join('|')));
        QVERIFY2(row({"aten::relu", "1", us(30), us(30), "23.1"}), qPrintable(lines.join('|')));
        QVERIFY(!lines.contains("aten::gone")); // starts at 130 us: outside
        // Kernel, count, total, % of the range's 70 us of kernel time.
        QVERIFY2(row({"kernel_a", "1", us(50), "71.4"}), qPrintable(lines.join('|')));
        QVERIFY2(row({"kernel_b", "1", us(20), "28.6"}), qPrintable(lines.join('|')));
    }

    // A range of a GPU trace lists the streams' idle gaps in it with their causes, as
    // buildIdleBreakdown finds them.
    void rangeListsIdleGaps()
    {
        ui::JobTracker jobs;
        ui::Workspace workspace(&jobs);
        TimelinePage page(&workspace, &jobs);
        QSignalSpy shown(&page, &TimelinePage::traceShown);
        workspace.openTrace(QStringLiteral(PYROMETER_FIXTURES_DIR "/analysis/idlecauses_one_step.json"));
        QVERIFY(shown.wait(20000) || shown.count() > 0);
        const auto document = workspace.trace(workspace.newestTrace());
        QVERIFY(document);
        const std::int64_t origin = document->trace->info.spanStart;
        const analysis::TimeRange range{origin + 100'000, origin + 200'000};
        std::size_t expected = 0;
        bool hostWait = false, kernelWait = false;
        for (const auto &gap : analysis::buildIdleBreakdown(*document->index).gaps) {
            if (gap.startNs < range.end && gap.startNs + gap.durationNs > range.start) {
                ++expected;
                hostWait = hostWait || gap.cause == analysis::IdleCause::HostWait;
                kernelWait = kernelWait || gap.cause == analysis::IdleCause::KernelWait;
            }
        }
        QVERIFY(expected > 0 && hostWait && kernelWait);
        page.view()->selectRange(double(range.start), double(range.end));
        QVERIFY(QTest::qWaitFor([&] { return jobs.isIdle() && page.details()->toPlainText().contains("GPU idle gaps"); }, 20000));
        const auto text = page.details()->toPlainText();
        QVERIFY2(text.contains(QStringLiteral("GPU idle gaps in the range: %1").arg(expected)), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("Host wait")) && text.contains(QStringLiteral("Kernel wait")));
    }
};

QTEST_MAIN(TestTimelineView)
#include "tst_timelineview.moc"
