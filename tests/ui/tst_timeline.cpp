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

#include <algorithm>
#include <fstream>
#include <set>

using namespace pyrometer;
using namespace pyrometer::ui::timeline;

namespace {

// A trace with known geometry (times in µs):
//  pid 1 tid 1: "outer" 0..1000 holding "inner" 100..300; then 1000 "tiny" events of 10 ns
//               every 100 ns from 2000 µs on; ProfilerStep#0 at 0..1000 (depth 0 sibling? no:
//               the step encloses outer).
//  pid 2 tid 7: two kernels that overlap without nesting: 0..500 and 400..900 (two lanes).
std::shared_ptr<const trace::Trace> makeTrace(const QString &dir)
{
    std::ofstream out((dir + "/t.json").toStdString());
    out << R"({"traceEvents":[)";
    out << R"({"ph":"X","name":"ProfilerStep#0","cat":"user_annotation","pid":1,"tid":1,"ts":0,"dur":1000},)";
    out << R"({"ph":"X","name":"outer","cat":"cpu_op","pid":1,"tid":1,"ts":0,"dur":900},)";
    out << R"({"ph":"X","name":"inner","cat":"cpu_op","pid":1,"tid":1,"ts":100,"dur":200},)";
    for (int i = 0; i < 1000; ++i)
        out << R"({"ph":"X","name":"tiny","cat":"cpu_op","pid":1,"tid":1,"ts":)" << 2000 + i * 0.1 << R"(,"dur":0.01},)";
    out << R"({"ph":"X","name":"kernelA","cat":"kernel","pid":2,"tid":7,"ts":0,"dur":500},)";
    out << R"({"ph":"X","name":"kernelB","cat":"kernel","pid":2,"tid":7,"ts":400,"dur":500})";
    out << "]}";
    out.close();
    auto loaded = trace::loadTrace((dir + "/t.json").toStdString());
    return loaded.ok() ? loaded.value() : nullptr;
}

trace::TrackId trackNamed(const trace::Trace &trace, std::int64_t pid)
{
    for (std::size_t t = 0; t < trace.tracks.size(); ++t) {
        if (trace.process(trace.tracks[t].process).pid.number == pid)
            return trace::TrackId(std::uint32_t(t));
    }
    return {};
}

std::optional<std::uint32_t> eventNamed(const trace::Trace &trace, trace::TrackId track, std::string_view name)
{
    const auto &t = trace.track(track);
    for (std::uint32_t e = 0; e < t.size(); ++e) {
        if (trace.string(t.eventName[e]) == name)
            return e;
    }
    return std::nullopt;
}

Viewport viewOf(double startUs, double endUs, int width = 1000, int height = 400)
{
    return Viewport{startUs * 1000, (endUs - startUs) * 1000 / width, width, 0, height};
}

} // namespace

class TestTimeline : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::shared_ptr<const trace::Trace> m_trace;
    std::shared_ptr<const TimelineIndex> m_index;
    TimelineLayout m_layout;

private Q_SLOTS:
    void initTestCase()
    {
        m_trace = makeTrace(m_dir.path());
        QVERIFY(m_trace);
        m_index = buildTimelineIndex(m_trace);
        QVERIFY(m_index);
        m_layout = buildLayout(*m_index, {});
    }

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
        // Split over two threads or not, the boxes and counters are the same, in the same order.
        for (const auto &viewport : {viewOf(0, 10'000), viewOf(90, 310), viewOf(0, 2200, 200)}) {
            const auto one = buildDrawList(*m_index, m_layout, viewport, ColorMode::ByName, std::size_t(-1));
            const auto two = buildDrawList(*m_index, m_layout, viewport, ColorMode::ByName, 0);
            QVERIFY(!one.boxes.empty());
            QCOMPARE(two.boxes, one.boxes);
            QCOMPARE(two.counters.size(), one.counters.size());
            QCOMPARE(two.eventsDrawn, one.eventsDrawn);
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
        ui::JobTracker jobs;
        ui::Workspace workspace(&jobs);
        TimelinePage page(&workspace, &jobs);
        QSignalSpy shown(&page, &TimelinePage::traceShown);
        workspace.openTrace(QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/diff_base.json"));
        QVERIFY(shown.wait(20000) || shown.count() > 0);
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

QTEST_MAIN(TestTimeline)
#include "tst_timeline.moc"
