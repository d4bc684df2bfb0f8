// The timeline's index, draw lists, labels, ruler and hit tests on a trace of known geometry.
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
#include "ui/timeline/gutterlabel.h"
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

class TestTimeline : public QObject, private TimelineFixture {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY(load()); }

    void indexHasRowsPerLaneAndDepth()
    {
        const auto gpu = trackNamed(*m_trace, 2);
        QCOMPARE(m_index->trackRowCount[gpu.value], 2u); // overlapping kernels: two lanes
        const auto cpu = trackNamed(*m_trace, 1);
        QCOMPARE(m_index->trackRowCount[cpu.value], 3u); // step, outer, inner (tiny ones at depth 0)
        QCOMPARE(m_index->steps.size(), std::size_t(1));
        QCOMPARE(m_index->steps.front().name, std::string("ProfilerStep#0"));
        QCOMPARE(m_index->steps.front().end - m_index->steps.front().start, std::int64_t(1'000'000));
        // Every row's events are disjoint and sorted, as the binary searches assume.
        for (const auto &row : m_index->rows) {
            const auto &track = m_trace->track(row.trackId);
            for (std::size_t i = 1; i < row.size(); ++i)
                QVERIFY(track.start[row.events[i]] >= track.start[row.events[i - 1]] + track.duration[row.events[i - 1]]);
        }
    }

    void onlyVisibleEventsAreDrawn()
    {
        // 90..310 µs shows outer, inner and the step, and no tiny event, no kernel past 900.
        const auto list = buildDrawList(*m_index, m_layout, viewOf(90, 310), ColorMode::ByCategory);
        QStringList names;
        for (const auto &box : list.boxes)
            names.append(QString::fromUtf8(m_trace->string(m_trace->track(m_index->rows[box.row].trackId).eventName[box.event])));
        names.sort();
        QCOMPARE(names, (QStringList{"ProfilerStep#0", "inner", "kernelA", "outer"}));
        for (const auto &box : list.boxes) {
            QVERIFY(box.x1 > box.x0);
            QVERIFY(box.x0 >= -2 && box.x1 <= 1002);
        }
        QCOMPARE(list.steps.size(), std::size_t(1));
    }

    void subPixelEventsAreMerged()
    {
        // 1000 tiny events over 100 µs on a 1000 px view of 0..10000 µs: 10 px in all.
        const auto list = buildDrawList(*m_index, m_layout, viewOf(0, 10'000), ColorMode::ByCategory);
        std::size_t tinyBoxes = 0;
        std::set<std::uint32_t> tinyEvents; // an event that crosses a column is in both its boxes
        for (const auto &box : list.boxes) {
            const auto &track = m_trace->track(m_index->rows[box.row].trackId);
            if (m_trace->string(track.eventName[box.event]) != "tiny")
                continue;
            ++tinyBoxes;
            for (auto position = box.position; position < box.position + box.count; ++position)
                tinyEvents.insert(m_index->rows[box.row].events[position]);
            QVERIFY(box.x1 - box.x0 >= 1);
        }
        QCOMPARE(tinyEvents.size(), std::size_t(1000)); // none lost
        QVERIFY2(tinyBoxes <= 12, qPrintable(QString::number(tinyBoxes)));

        // Zoomed in to 10 of them, each is its own box.
        const auto close = buildDrawList(*m_index, m_layout, viewOf(2000, 2001), ColorMode::ByCategory);
        std::size_t single = 0;
        for (const auto &box : close.boxes)
            single += box.count == 1 && m_trace->string(m_trace->track(m_index->rows[box.row].trackId).eventName[box.event]) == "tiny";
        QCOMPARE(single, std::size_t(10));
    }

    void mergedCostDoesNotGrowWithEvents()
    {
        // Fit-all: the box count is bounded by rows x pixels, not by events.
        const auto list = buildDrawList(*m_index, m_layout, viewOf(0, 2200, 200), ColorMode::ByName);
        QVERIFY(list.boxes.size() < 20);
        QVERIFY(list.eventsDrawn >= 1000);
    }

    void rowSearchesAgreeWithALinearScan()
    {
        // The galloping search from any starting position finds what a linear scan finds.
        const auto cpu = trackNamed(*m_trace, 1);
        const auto &row = m_index->rows[m_index->trackFirstRow[cpu.value]];
        QVERIFY(row.size() > 1000);
        QCOMPARE(row.starts.size(), row.size());
        QCOMPARE(row.busyBefore.size(), row.size() + 1);
        const auto linear = [&](std::int64_t time, std::uint32_t from) {
            auto i = from;
            while (i < row.size() && row.endAt(i) <= time && row.starts[i] < time)
                ++i;
            return i;
        };
        for (const std::int64_t time : {std::int64_t(-5), std::int64_t(0), std::int64_t(950'000), std::int64_t(2'000'000),
                                        std::int64_t(2'000'010), std::int64_t(2'050'005), std::int64_t(2'099'910),
                                        std::int64_t(9'000'000)}) {
            for (const std::uint32_t from : {0u, 1u, 7u, 500u, 999u, std::uint32_t(row.size())})
                QCOMPARE(row.firstEndingAfter(time, from), linear(time, from));
        }
        // longestIn picks the longest event of a range: the step, before the tiny ones.
        QCOMPARE(row.longestIn(0, std::uint32_t(row.size())).duration, std::int64_t(1'000'000));
        QCOMPARE(row.longestIn(1, std::uint32_t(row.size())).duration, std::int64_t(10));
    }

    void touchingBoxesOfAColourJoin()
    {
        const auto box = [](float x0, float x1, int y, std::uint32_t color) {
            DrawBox b;
            b.x0 = x0;
            b.x1 = x1;
            b.y = y;
            b.height = 18;
            b.color = color;
            return b;
        };
        // Two touching red boxes join; a gap, another colour or another row breaks the run;
        // a box narrower than a pixel still covers one.
        const auto fills = joinedFills({box(0, 2.5f, 0, 0xffff0000), box(2.5f, 4, 0, 0xffff0000), box(6, 6.2f, 0, 0xffff0000),
                                        box(6.2f, 9, 0, 0xff00ff00), box(9, 12, 18, 0xff00ff00)});
        QCOMPARE(fills, (std::vector<Fill>{{0, 4, 0, 18, 0xffff0000},
                                           {6, 7, 0, 18, 0xffff0000},
                                           {6, 9, 0, 18, 0xff00ff00},
                                           {9, 12, 18, 18, 0xff00ff00}}));
    }

    void touchingBoxesGetAGap()
    {
        const auto box = [](float x0, float x1, std::uint32_t color = 0xfff28e2b) {
            DrawBox b;
            b.x0 = x0;
            b.x1 = x1;
            b.height = 18;
            b.color = color;
            return b;
        };
        // Two kernels end to end keep a column between them, the first giving it up; one that
        // overlaps the next by a fraction of a pixel too.
        QCOMPARE(joinedFills({box(0, 10), box(10, 20)}), (std::vector<Fill>{{0, 9, 0, 18, 0xfff28e2b}, {10, 20, 0, 18, 0xfff28e2b}}));
        QCOMPARE(joinedFills({box(0, 10.4f), box(10.4f, 20)}),
                 (std::vector<Fill>{{0, 9, 0, 18, 0xfff28e2b}, {10, 20, 0, 18, 0xfff28e2b}}));
        // A narrow box keeps its pixels and the wide one after it starts a column later.
        QCOMPARE(joinedFills({box(0, 2), box(2, 12)}), (std::vector<Fill>{{0, 2, 0, 18, 0xfff28e2b}, {3, 12, 0, 18, 0xfff28e2b}}));
        // Boxes 3 pixels wide or less still join: zoomed out, a gap per box would be noise.
        QCOMPARE(joinedFills({box(0, 3), box(3, 6), box(6, 9)}), (std::vector<Fill>{{0, 9, 0, 18, 0xfff28e2b}}));
        // A gap that is there already is kept as it is.
        QCOMPARE(joinedFills({box(0, 10), box(12, 20)}), (std::vector<Fill>{{0, 10, 0, 18, 0xfff28e2b}, {12, 20, 0, 18, 0xfff28e2b}}));
    }

    void kernelLabelsNameTheKernel_data()
    {
        // Names as the fixtures record them.
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("label");
        QTest::addRow("cutlass launcher")
            << "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>"
               "(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)"
            << "cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8";
        QTest::addRow("elementwise")
            << "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
               "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)"
            << "vectorized_elementwise_kernel";
        QTest::addRow("anonymous namespace")
            << "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, "
               "c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)"
            << "vectorized_layer_norm_kernel";
        QTest::addRow("lambda in template arguments")
            << "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<bool, at::native::func_wrapper_t<bool, "
               "at::native::and_kernel_cuda(at::TensorIterator&)::{lambda()#1}::operator()() const::{lambda()#12}::"
               "operator()() const::{lambda(bool, bool)#1}>, unsigned int, bool, 4> >(at::native::ReduceOp<bool, "
               "at::native::func_wrapper_t<bool, at::native::and_kernel_cuda(at::TensorIterator&)::{lambda()#1}::"
               "operator()() const::{lambda()#12}::operator()() const::{lambda(bool, bool)#1}>, unsigned int, bool, 4>)"
            << "reduce_kernel";
        QTest::addRow("flash attention")
            << "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, "
               "false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, "
               "false, false, false, false, false, true, false>(pytorch_flash::Flash_fwd_params)"
            << "flash_fwd_kernel";
        QTest::addRow("cudnn, a cast in the arguments")
            << "void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>"
               "(cudnn::ops::nchw2nhwc_params_t<float>, float const*, float*)"
            << "nchwToNhwcKernel";
        QTest::addRow("no namespace") << "void fft2d_r2c_32x32<float, false, 5u, true>(float2*, float const*, int, int)"
                                      << "fft2d_r2c_32x32";
        QTest::addRow("cublas, no signature")
            << "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"
            << "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas";
        QTest::addRow("triton") << "triton_poi_fused_add_cos_sin_0" << "triton_poi_fused_add_cos_sin_0";
        QTest::addRow("cut short") << "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::na"
                                   << "elementwise_kernel";
    }
    void kernelLabelsNameTheKernel()
    {
        QFETCH(QString, name);
        QFETCH(QString, label);
        QCOMPARE(QString::fromStdString(kernelLabel(name.toStdString())), label);
    }

    void everyFixtureKernelGetsAShortLabel()
    {
        // Every kernel of a GPU trace: a label with no signature left in it.
        const auto loaded = trace::loadTrace(PYROMETER_FIXTURES_DIR "/traces/gaunernst_bert-small-uncased__1016001.json.gz");
        QVERIFY(loaded.ok());
        const auto &trace = *loaded.value();
        std::set<std::string> names;
        for (const auto &track : trace.tracks)
            for (std::size_t e = 0; e < track.size(); ++e)
                if (trace.string(track.category[e]) == "kernel")
                    names.insert(std::string(trace.string(track.eventName[e])));
        QVERIFY(names.size() >= 10);
        for (const auto &name : names) {
            const QString label = QString::fromStdString(kernelLabel(name));
            QVERIFY2(!label.isEmpty(), name.c_str());
            for (const char *part : {"void ", "::", "<", "(", " "})
                QVERIFY2(!label.contains(QLatin1String(part)), qPrintable(label));
            QVERIFY2(QString::fromStdString(name).contains(label), qPrintable(label));
        }
    }

    void rulerLabelsStayInside_data()
    {
        QTest::addColumn<double>("startNs");
        QTest::addColumn<double>("nsPerPixel");
        QTest::addColumn<int>("width");
        QTest::addRow("5 ms at the edge") << 0.0 << 5'000'000.0 / 900 << 900;
        QTest::addRow("ns") << 3.0 << 0.37 << 777;
        QTest::addRow("narrow") << 0.0 << 1000.0 << 95;
        QTest::addRow("panned") << 123'456.0 << 77.7 << 1003;
    }
    void rulerLabelsStayInside()
    {
        QFETCH(double, startNs);
        QFETCH(double, nsPerPixel);
        QFETCH(int, width);
        const Viewport view{startNs, nsPerPixel, width, 0, 100};
        const auto ticks = rulerTicks(view, 0);
        QVERIFY(!ticks.empty());
        std::vector<float> widths;
        for (const auto &tick : ticks)
            widths.push_back(7.0f * float(tick.label.size())); // about a character's width each
        const auto labels = placeTickLabels(ticks, widths, float(width));
        QVERIFY(!labels.empty());
        float previousRight = -1000;
        for (const auto &label : labels) {
            QVERIFY(label.left >= 0);
            QVERIFY2(label.left + widths[label.tick] <= float(width), ticks[label.tick].label.c_str());
            QVERIFY(label.left >= previousRight + 6);
            previousRight = label.left + widths[label.tick];
        }
    }

    void rulerLabelAtTheEdgeMovesOrGoes()
    {
        const std::vector<Tick> ticks{{0, "0 ms"}, {300, "1 ms"}, {600, "2 ms"}, {880, "3 ms"}};
        const std::vector<float> widths{30, 30, 30, 30};
        // "3 ms" would end at 913: it ends at the edge instead, left of its tick.
        QCOMPARE(placeTickLabels(ticks, widths, 900),
                 (std::vector<TickLabel>{{0, 3}, {1, 303}, {2, 603}, {3, 870}}));
        // With no room left beside "2 ms" it is left out rather than drawn over it.
        QCOMPARE(placeTickLabels(ticks, widths, 640), (std::vector<TickLabel>{{0, 3}, {1, 303}, {2, 603}}));
        // Wider than the whole area: no label.
        QCOMPARE(placeTickLabels({{0, "0 ms"}}, {120}, 100), std::vector<TickLabel>{});
    }

    void kernelRowsRangeAndGutterRead()
    {
        // The GPU fixture zoomed to a few kernels, a range selected over them.
        const auto loaded = trace::loadTrace(PYROMETER_FIXTURES_DIR "/traces/gaunernst_bert-small-uncased__1016001.json.gz");
        QVERIFY(loaded.ok());
        const auto index = buildTimelineIndex(loaded.value());
        const auto &trace = *index->trace;
        std::vector<std::pair<std::int64_t, std::int64_t>> kernels;
        for (const auto &track : trace.tracks)
            for (std::size_t e = 0; e < track.size(); ++e)
                if (trace.string(track.category[e]) == "kernel")
                    kernels.emplace_back(track.start[e], track.start[e] + track.duration[e]);
        std::sort(kernels.begin(), kernels.end());
        QVERIFY(kernels.size() > 4);
        TimelineView view;
        view.resize(1100, 260);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setIndex(index);
        // The last four: wide enough for labels.
        const auto last = kernels.size() - 1;
        view.setVisibleRange(double(kernels[last - 3].first), double(kernels[last].second));
        const double start = double(kernels[last - 2].first), end = double(kernels[last - 1].second);
        view.selectRange(start, end);
        QApplication::processEvents();
        const QImage image = view.grab().toImage();
        maybeGrab(view, QStringLiteral("timeline-kernels.png"));
        // The range's length sits on a tag of the range's colour, with white text on it.
        const QRect rows = view.rowsRect();
        const int middle = rows.left() + int((view.viewport().toX(start) + view.viewport().toX(end)) / 2);
        bool white = false, tag = false;
        for (int x = middle - 30; x < middle + 30; ++x)
            for (int y = rows.top() + 3; y < rows.top() + 14; ++y) {
                const QColor c = image.pixelColor(x, y);
                white = white || (c.red() > 230 && c.green() > 230 && c.blue() > 230);
                tag = tag || c == QColor(40, 110, 220);
            }
        QVERIFY(tag);
        QVERIFY(white);
        // The gutter's tooltip gives a track's whole name.
        const auto &row = view.layout().rows[1];
        QCOMPARE(row.kind, RowKind::Slices);
        const QPoint at(40, rows.top() + row.y + row.height / 2);
        QHelpEvent help(QEvent::ToolTip, at, view.mapToGlobal(at));
        QApplication::sendEvent(&view, &help);
        QCOMPARE(QToolTip::text(), QString::fromStdString(trace.track(index->rows[row.ref].trackId).name));
    }

    void boxLabelsFitTheirBoxes()
    {
        // A long name whole on a box 700 pixels wide, elided inside a box 120 pixels wide, 3
        // pixels clear of its right end, and elided longer on a box between the two. Frames
        // after the first draw labels laid out before: the same pixels again.
        const auto loaded = trace::loadTrace(PYROMETER_FIXTURES_DIR "/traces/gaunernst_bert-small-uncased__1016001.json.gz");
        QVERIFY(loaded.ok());
        const auto index = buildTimelineIndex(loaded.value());
        const auto &trace = *index->trace;
        TimelineView view;
        view.resize(1200, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setIndex(index);
        const QRect rows = view.rowsRect();
        // The box of `event` once its box is `pixels` wide, and the rightmost column (in the
        // rows area) where its label changed a pixel; -1 when it drew none.
        const auto labelEnd = [&](trace::TrackId track, std::uint32_t event, double pixels, QImage *shown) {
            const auto &columns = trace.track(track);
            const double nsPerPixel = double(columns.duration[event]) / pixels;
            const double start = double(columns.start[event]) - 40 * nsPerPixel;
            view.setVisibleRange(start, start + nsPerPixel * rows.width());
            QApplication::processEvents();
            const QImage image = view.grab().toImage();
            if (shown)
                *shown = image;
            for (const auto &box : view.drawList().boxes) {
                if (box.column || box.event != event || index->rows[box.row].trackId != track)
                    continue;
                if (box.y < 0 || box.y + box.height > rows.height())
                    return std::pair{-2, 0}; // not in view vertically
                int rightmost = -1;
                const QColor fill = QColor::fromRgba(box.color);
                for (int x = int(box.x0); x < int(box.x1); ++x)
                    for (int y = box.y; y < box.y + box.height - 1; ++y)
                        if (image.pixelColor(rows.left() + x, rows.top() + y) != fill)
                            rightmost = x;
                return std::pair{rightmost, int(box.x1)};
            }
            return std::pair{-2, 0};
        };
        bool checked = false;
        for (std::uint32_t t = 0; t < trace.tracks.size() && !checked; ++t) {
            const auto &track = trace.tracks[t];
            for (std::uint32_t e = 0; e < track.size() && !checked; ++e) {
                // Long names on events short enough that the view is not clamped to the trace.
                if (trace.string(track.eventName[e]).size() < 40 || track.duration[e] < 1000 ||
                    track.duration[e] * 20 > index->spanEnd - index->spanStart)
                    continue;
                QImage first;
                const auto [wideEnd, wideRight] = labelEnd(trace::TrackId(t), e, 700, &first);
                if (wideEnd == -2)
                    continue;
                QVERIFY2(wideEnd >= 0, "no label drawn");
                QVERIFY(wideEnd < wideRight - 3);
                const int textWidth = wideEnd - 40 - 3; // the box starts 40 pixels in, its label 3 more
                if (textWidth < 200)
                    continue; // the whole name fits a narrow box
                const auto [narrowEnd, narrowRight] = labelEnd(trace::TrackId(t), e, 120, nullptr);
                QVERIFY2(narrowEnd >= 0, "no label drawn");
                QVERIFY2(narrowEnd < narrowRight - 3,
                         qPrintable(QStringLiteral("label ends at %1, box at %2").arg(narrowEnd).arg(narrowRight)));
                // Between the two, a longer elision of the same label.
                const auto [mediumEnd, mediumRight] = labelEnd(trace::TrackId(t), e, (120 + textWidth) / 2.0, nullptr);
                QVERIFY2(mediumEnd > narrowEnd + 20 && mediumEnd < wideEnd && mediumEnd < mediumRight - 3,
                         qPrintable(QStringLiteral("%1 (box to %2) between %3 and %4").arg(mediumEnd).arg(mediumRight).arg(narrowEnd).arg(wideEnd)));
                QImage again;
                labelEnd(trace::TrackId(t), e, 700, &again);
                QCOMPARE(again, first);
                checked = true;
            }
        }
        QVERIFY(checked);
    }

    void rasterizedFillsMatchQPainter()
    {
        // Writing pixels directly gives what QPainter::fillRect gives, clipping included, at
        // device pixel ratios 1 and 2.
        const std::vector<Fill> fills{{-3, 5, 2, 4, 0xff4e79a7}, {10, 11, 0, 30, 0xfff28e2b}, {30, 45, 25, 10, 0xffe15759},
                                      {20, 20, 5, 5, 0xff000000}};
        for (const qreal ratio : {1.0, 2.0}) {
            QImage direct(int(40 * ratio), int(30 * ratio), QImage::Format_RGB32);
            direct.setDevicePixelRatio(ratio);
            direct.fill(Qt::white);
            QImage painted = direct.copy();
            rasterizeFills(direct, fills);
            QPainter painter(&painted);
            for (const auto &fill : fills)
                painter.fillRect(QRect(fill.left, fill.y, std::max(1, fill.right - fill.left), fill.height), QColor::fromRgba(fill.color));
            painter.end();
            QCOMPARE(direct, painted);
            QCOMPARE(direct.pixel(int(10 * ratio), int(29 * ratio)), QRgb(0xfff28e2b));
        }
    }

    void twoThreadsBuildTheSameList()
    {
        // Split over two threads or not, the boxes and counters are the same, in the same order:
        // the rows the second thread takes from the back go in their places.
        for (const auto &viewport : {viewOf(0, 10'000), viewOf(90, 310), viewOf(0, 2200, 200)}) {
            const auto one = buildDrawList(*m_index, m_layout, viewport, ColorMode::ByName, std::size_t(-1));
            const auto two = buildDrawList(*m_index, m_layout, viewport, ColorMode::ByName, 0);
            QCOMPARE(one.rowsBeside, std::size_t(0));
            QVERIFY(two.rowsBeside >= 1);
            QVERIFY(!one.boxes.empty());
            QCOMPARE(two.boxes, one.boxes);
            QCOMPARE(two.counters.size(), one.counters.size());
            for (std::size_t c = 0; c < one.counters.size(); ++c) {
                QCOMPARE(two.counters[c].counter, one.counters[c].counter);
                QCOMPARE(two.counters[c].y, one.counters[c].y);
                QCOMPARE(two.counters[c].points, one.counters[c].points);
            }
            QCOMPARE(two.eventsDrawn, one.eventsDrawn);
        }
    }

    void reusedListsBuildTheSameList()
    {
        // A view builds each frame into the arrays of the last one: whatever they held before
        // (a wider view, more boxes, counters, steps), the list comes out as a fresh one would,
        // on one thread or two, and the boxes' fills as joinedFills gives them after any fills
        // already there.
        DrawList list;
        DrawList scratch;
        std::vector<Fill> fills;
        for (const std::size_t parallel : {std::size_t(0), std::size_t(-1)}) {
            for (const auto &viewport : {viewOf(0, 10'000), viewOf(90, 310), viewOf(0, 2200, 200), viewOf(0, 10'000)}) {
                const auto fresh = buildDrawList(*m_index, m_layout, viewport, ColorMode::ByName, parallel);
                buildDrawList(*m_index, m_layout, viewport, ColorMode::ByName, list, scratch, parallel);
                QVERIFY(!fresh.boxes.empty());
                QCOMPARE(list.boxes, fresh.boxes);
                QCOMPARE(list.counters.size(), fresh.counters.size());
                for (std::size_t c = 0; c < list.counters.size(); ++c)
                    QCOMPARE(list.counters[c].points, fresh.counters[c].points);
                QCOMPARE(list.steps.size(), fresh.steps.size());
                QCOMPARE(list.eventsDrawn, fresh.eventsDrawn);
                QVERIFY(list.viewport == viewport);

                const Fill before{0, 5, 0, 3, 0xff123456u};
                fills.assign(1, before);
                appendJoinedFills(list.boxes, fills);
                const auto joined = joinedFills(fresh.boxes);
                QCOMPARE(fills.size(), joined.size() + 1);
                QCOMPARE(fills.front(), before);
                QVERIFY(std::equal(joined.begin(), joined.end(), fills.begin() + 1));
            }
        }
    }

    void overlappingKernelsGetTwoRows()
    {
        const auto list = buildDrawList(*m_index, m_layout, viewOf(0, 1000), ColorMode::ByCategory);
        std::set<int> kernelRows;
        for (const auto &box : list.boxes) {
            const auto name = m_trace->string(m_trace->track(m_index->rows[box.row].trackId).eventName[box.event]);
            if (name.starts_with("kernel"))
                kernelRows.insert(box.y);
        }
        QCOMPARE(kernelRows.size(), std::size_t(2));
    }

    void hitTestFindsTheEventUnderThePixel()
    {
        const auto view = viewOf(0, 1000);
        const auto cpu = trackNamed(*m_trace, 1);
        const auto inner = *eventNamed(*m_trace, cpu, "inner");
        const auto innerRow = m_index->rowOf(cpu, trace::EventIndex(inner));
        const auto &layoutRow = m_layout.rows[std::size_t(m_layout.sliceRowToLayout[innerRow])];
        const auto hit = hitTest(*m_index, m_layout, view, 200, layoutRow.y + 5);
        QVERIFY(hit);
        QCOMPARE(hit->event, inner);
        // Just past inner's end, within the tolerance, still inner; far right of it, nothing.
        QCOMPARE(hitTest(*m_index, m_layout, view, 302, layoutRow.y + 5)->event, inner);
        QVERIFY(!hitTest(*m_index, m_layout, view, 600, layoutRow.y + 5));
        // A process header row holds no event.
        QVERIFY(!hitTest(*m_index, m_layout, view, 200, 2));
    }

    void collapsingAProcessHidesItsRows()
    {
        const auto cpu = trackNamed(*m_trace, 1);
        const auto process = m_trace->track(cpu).process.value;
        const auto layout = buildLayout(*m_index, {process});
        QCOMPARE(layout.sliceRowToLayout[m_index->trackFirstRow[cpu.value]], -1);
        QVERIFY(layout.height < m_layout.height);
    }

    // Process headers are drawn bold: a label fitted with the plain font's widths was cut at the
    // gutter's edge mid-token ("rank 0 · python3.10 (GPU 0"). Each header of names growing a
    // letter at a time fits in the bold font, whole or with "…", the rank and the device kept.
    void processHeadersFitTheGutter()
    {
        std::ofstream out((m_dir.path() + "/ranks.json").toStdString());
        out << R"({"traceEvents":[)";
        constexpr int kProcesses = 40;
        for (int p = 1; p <= kProcesses; ++p) {
            const std::string name = "rank " + std::to_string(p) + " \u00b7 py" + std::string(std::size_t(p), 'x');
            out << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << p << ",\"args\":{\"name\":\"" << name
                << "\"}},{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":" << p << ",\"args\":{\"labels\":\"GPU "
                << p << "\"}},{\"ph\":\"X\",\"name\":\"op\",\"cat\":\"cpu_op\",\"pid\":" << p
                << ",\"tid\":1,\"ts\":0,\"dur\":10}" << (p < kProcesses ? "," : "");
        }
        out << "]}";
        out.close();
        auto loaded = trace::loadTrace((m_dir.path() + "/ranks.json").toStdString());
        QVERIFY(loaded.ok());
        TimelineView view;
        view.resize(900, 1200);
        view.setIndex(buildTimelineIndex(loaded.value()));
        QFont bold = view.font();
        bold.setBold(true);
        const QFontMetrics metrics(bold);
        int headers = 0, elided = 0;
        for (std::size_t r = 0; r < view.layout().rows.size(); ++r) {
            const auto &row = view.layout().rows[r];
            if (row.kind != RowKind::Process)
                continue;
            ++headers;
            const auto &process = view.index()->trace->processes[row.process];
            const QString whole = QString::fromStdString(process.name);
            const QString label = view.gutterLabel(int(r));
            QVERIFY2(metrics.horizontalAdvance(label) <= TimelineView::kGutterWidth - 8, qPrintable(label));
            if (label.endsWith(whole))
                continue;
            ++elided;
            QVERIFY2(label.contains(QChar(0x2026)), qPrintable(label));
            const QString rank = QStringLiteral("rank %1 \u00b7 ").arg(row.process + 1);
            const QString device = QStringLiteral(" (GPU %1)").arg(row.process + 1);
            QVERIFY2(label.contains(rank) && label.endsWith(device), qPrintable(label));
        }
        QCOMPARE(headers, kProcesses);
        QVERIFY2(elided > 0 && elided < kProcesses, qPrintable(QString::number(elided)));
        maybeGrab(view, QStringLiteral("timeline-process-headers.png"));
    }

    // However narrow, a fitted label is whole or elided with "…", never cut inside a token.
    void processLabelsElideWholeTokens()
    {
        const QFontMetrics metrics(QApplication::font());
        const QString head = QStringLiteral("rank 0 \u00b7 "), body = QStringLiteral("python3.10"),
                      tail = QStringLiteral(" (GPU 0)");
        const QString whole = head + body + tail;
        for (int width = 4; width < metrics.horizontalAdvance(whole) + 10; ++width) {
            const QString label = fitProcessLabel(head, body, tail, metrics, width);
            QVERIFY2(metrics.horizontalAdvance(label) <= width, qPrintable(label));
            if (label.isEmpty()) { // not even "…" fits
                QVERIFY(width < metrics.horizontalAdvance(QChar(0x2026)));
                continue;
            }
            if (label == whole)
                continue;
            QVERIFY2(label.endsWith(QChar(0x2026)) || (label.startsWith(head) && label.endsWith(tail) &&
                                                        label.contains(QChar(0x2026))),
                     qPrintable(label));
        }
        QCOMPARE(fitProcessLabel(head, body, tail, metrics, 1000), whole);
    }

    // A counter's scale is in bytes for the memory curves, the trace's and a joined snapshot's.
    void counterScalesSayBytesForMemory()
    {
        const double bytes = 70.0 * 1024 * 1024;
        QCOMPARE(counterPeakText("Memory allocated (device 0)", bytes), QStringLiteral("max 70.0 MiB"));
        QCOMPARE(counterPeakText("Snapshot active (device 0)", bytes), QStringLiteral("max 70.0 MiB"));
        QCOMPARE(counterPeakText("Snapshot reserved (device 1)", bytes), QStringLiteral("max 70.0 MiB"));
        QCOMPARE(counterPeakText("Queue depth (stream 7)", 12), QStringLiteral("max 12"));
    }

    void rulerAdaptsItsUnit_data()
    {
        QTest::addColumn<double>("nsPerPixel");
        QTest::addColumn<QString>("unit");
        QTest::addRow("ns") << 0.5 << " ns";
        QTest::addRow("us") << 50.0 << " \u00b5s";
        QTest::addRow("ms") << 50'000.0 << " ms";
        QTest::addRow("s") << 50'000'000.0 << " s";
    }
    void rulerAdaptsItsUnit()
    {
        QFETCH(double, nsPerPixel);
        QFETCH(QString, unit);
        const Viewport view{0, nsPerPixel, 1000, 0, 100};
        const auto ticks = rulerTicks(view, 0);
        QVERIFY(ticks.size() >= 5 && ticks.size() <= 12);
        for (std::size_t i = 0; i < ticks.size(); ++i) {
            QVERIFY2(QString::fromStdString(ticks[i].label).endsWith(unit), ticks[i].label.c_str());
            if (i > 0)
                QVERIFY(ticks[i].x - ticks[i - 1].x >= 90 - 0.01);
        }
        QCOMPARE(QString::fromStdString(ticks.front().label), QString("0") + unit);
    }

};

QTEST_MAIN(TestTimeline)
#include "tst_timeline.moc"
