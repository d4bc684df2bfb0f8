// The report document built from a real trace, and its HTML and Markdown renderings.
#include <QtTest>

#ifndef Q_MOC_RUN // moc cannot parse C++20 library headers
#include "core/analysis/advice.h"
#include "core/analysis/kerneltable.h"
#include "core/analysis/optable.h"
#include "core/analysis/steps.h"
#include "core/analysis/traceindex.h"
#include "core/report/gpureport.h"
#include "core/report/reportrender.h"
#include "core/report/rooflinereport.h"
#include "core/report/stepsummary.h"
#include "core/report/svgchart.h"
#include "core/report/tracereport.h"
#include "core/trace/loader.h"
#include "core/util/format.h"
#endif

#include "../analysis/analysistestutil.h"

#include <QDomDocument>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <fstream>
#include <map>
#include <numeric>

using namespace pyrometer;

namespace {

const std::filesystem::path kTrace =
    std::filesystem::path(PYROMETER_FIXTURES_DIR) / "traces" / "mi250_minitoy_train_ROCm6_2_kineto.json.gz";

struct Loaded {
    std::shared_ptr<const trace::Trace> trace;
    std::shared_ptr<const analysis::TraceIndex> index;
};

Loaded load()
{
    auto trace = trace::loadTrace(kTrace);
    if (!trace.ok())
        return {};
    auto index = analysis::buildTraceIndex(*trace.value());
    return {trace.value(), index};
}

// A generated CPU trace of `count` steps in a row, of irregular lengths, the one at `slowest`
// (0-based) the longest; each step runs one operator.
std::string manyStepsTrace(std::size_t count, std::size_t slowest)
{
    std::string events;
    long long ts = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const long long dur = i == slowest ? 9000 : 1000 + (long long)(i * 7919 % 1000);
        const auto step = std::to_string(i + 1);
        events += (i ? ",\n" : "") + std::string(R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)") + step +
                  R"(","pid":1,"tid":1,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) + "},\n" +
                  R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":)" + std::to_string(ts + 1) +
                  R"(,"dur":)" + std::to_string(dur / 2) + "}";
        ts += dur + 10;
    }
    return "{\"traceEvents\":[\n" + events + "\n]}";
}

// A trace given as text, loaded from a temporary file, and its index.
Loaded loadText(const std::string &text)
{
    QTemporaryDir dir;
    const auto path = std::filesystem::path(dir.path().toStdString()) / "steps.json";
    std::ofstream(path) << text;
    auto trace = trace::loadTrace(path);
    if (!trace.ok())
        return {};
    return {trace.value(), analysis::buildTraceIndex(*trace.value())};
}

QString qs(const std::string &text)
{
    return QString::fromStdString(text);
}

// The payloads of every data: URI of the given type in text.
QList<QByteArray> embedded(const QString &text, const QString &mimeType)
{
    QList<QByteArray> images;
    const QRegularExpression uri(
        QStringLiteral("data:%1;base64,([A-Za-z0-9+/=]+)").arg(QRegularExpression::escape(mimeType)));
    for (auto it = uri.globalMatch(text); it.hasNext();)
        images.append(QByteArray::fromBase64(it.next().captured(1).toLatin1()));
    return images;
}

} // namespace

class TestReport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void base64MatchesRfc4648_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        for (const char *text : {"", "f", "fo", "foo", "foob", "fooba", "foobar"})
            QTest::addRow("%s", text) << QByteArray(text);
        QTest::addRow("binary") << QByteArray("\x00\xff\x80\x7f\x01", 5);
    }
    void base64MatchesRfc4648()
    {
        QFETCH(QByteArray, bytes);
        QCOMPARE(QByteArray::fromStdString(report::base64(bytes.toStdString())), bytes.toBase64());
    }

    void formatComesFromTheExtension()
    {
        QVERIFY(report::formatForPath("out/report.html") == report::ReportFormat::Html);
        QVERIFY(report::formatForPath("REPORT.HTM") == report::ReportFormat::Html);
        QVERIFY(report::formatForPath("report.md") == report::ReportFormat::Markdown);
        QVERIFY(!report::formatForPath("report.pdf"));
        QVERIFY(!report::formatForPath("report"));
    }

    void htmlHasTheTablesAndEmbeddedCharts()
    {
        const auto loaded = load();
        QVERIFY(loaded.index);
        report::ReportOptions options;
        options.topRows = 5;
        const auto document = report::makeReport({"minitoy"}, report::traceSections(*loaded.index, "", options));
        const QString html = qs(report::renderHtml(document));

        for (const char *id : {"summary", "steps", "ops", "kernels", "advice"})
            QVERIFY2(html.contains(QStringLiteral("id=\"%1\"").arg(QLatin1String(id))), id);
        // Summary, steps, operators and kernels tables with their headers.
        QVERIFY(html.contains(QStringLiteral("<th>Step</th>")));
        QVERIFY(html.contains(QStringLiteral("<th>Operator</th>")));
        QVERIFY(html.contains(QStringLiteral("<th>Kernel</th>")));
        const bool advice = !analysis::adviseTrace(*loaded.index).empty();
        // Steps, ops, kernels, findings, then the GPU analyses' tables.
        std::size_t gpuTables = 0;
        for (const auto &section : report::gpuSections(*loaded.index, "", options))
            gpuTables += section.tables.size();
        QVERIFY(gpuTables >= 4); // a ROCm trace: types, launches, queues, idle, the path's nodes
        // The roofline's table of the ops of known work (the trace records their shapes).
        const auto roofline = report::rooflineSection(*loaded.index, "", options);
        QCOMPARE(roofline.tables.size(), std::size_t(1));
        QCOMPARE(html.count(QStringLiteral("<table>")), qsizetype((advice ? 4 : 3) + roofline.tables.size() + gpuTables));

        // The top rows are the analyses' own, in their order.
        analysis::OpTableOptions opOptions;
        opOptions.top = 5;
        const auto ops = analysis::buildOpTable(*loaded.index, opOptions);
        QVERIFY(!ops.rows.empty());
        const qsizetype first =
            html.indexOf(QStringLiteral("<td class=\"name\">%1</td>").arg(qs(report::escapeHtml(ops.rows[0].name))));
        const qsizetype second =
            html.indexOf(QStringLiteral("<td class=\"name\">%1</td>").arg(qs(report::escapeHtml(ops.rows[1].name))));
        QVERIFY(first > 0);
        QVERIFY(second > first);
        const auto steps = analysis::buildStepBreakdown(*loaded.index);
        QCOMPARE(steps.steps.size(), std::size_t(2));
        for (const auto &step : steps.steps)
            QVERIFY(html.contains(QStringLiteral("<td>%1</td>").arg(qs(step.name))));
        const auto kernels = analysis::buildKernelTable(*loaded.index);
        QVERIFY(html.contains(qs(report::escapeHtml(kernels.rows.front().name))));

        // Self-contained: the chart is inline, nothing is fetched.
        QVERIFY(!html.contains(QStringLiteral("src=\"http")));
        QVERIFY(!html.contains(QStringLiteral("<link")));
        const auto charts = embedded(html, QStringLiteral("image/svg+xml"));
        QCOMPARE(charts.size(), 2); // the step chart, then the roofline
        for (const auto &chart : charts) {
            QDomDocument svg;
            QVERIFY(svg.setContent(chart));
            QCOMPARE(svg.documentElement().tagName(), QStringLiteral("svg"));
        }
        QVERIFY(charts.back().contains("<circle"));
        // One labelled bar per step.
        for (const auto &step : steps.steps)
            QVERIFY(charts.front().contains(QByteArray::fromStdString(step.name)));
    }

    // The summary's GPU utilization per device, for every fixture, against the independent
    // goldens: busy inside the steps over the step time (over the span without steps).
    void gpuUtilizationMatchesTheGoldens_data() { analysis::testing::addFixtureRows(); }
    void gpuUtilizationMatchesTheGoldens()
    {
        QFETCH(QString, fixture);
        using namespace analysis::testing;
        const auto name = fixture.toStdString();
        const auto loaded = loadFixture(name);
        QVERIFY(loaded.index);
        const auto sections = report::traceSections(*loaded.index, "", {});
        QVERIFY(!sections.empty());
        const auto &facts = sections.front().facts;
        auto expected = readCsv(goldenPath(name, ".utilization.csv"));
        expected.erase(expected.begin());
        const auto gpuFacts = std::count_if(facts.begin(), facts.end(), [](const report::Fact &f) {
            return f.label.rfind("GPU ", 0) == 0 && f.label.find("utilization") != std::string::npos;
        });
        QCOMPARE(std::size_t(gpuFacts), expected.size());
        for (const auto &row : expected) {
            const bool overSteps = !row[2].empty();
            const double share = goldenGpuShare(row, loaded.trace->info.spanNanoseconds());
            const auto fact = std::find_if(facts.begin(), facts.end(), [&](const report::Fact &f) {
                return f.label == "GPU " + row[0] + " utilization";
            });
            QVERIFY2(fact != facts.end(), row[0].c_str());
            const auto value = qs(fact->value);
            QVERIFY2(value.startsWith(QString::number(100.0 * share, 'f', 1) + " % of the " +
                                      (overSteps ? "step time" : "trace's span")),
                     qPrintable(value));
        }
    }

    // The numbers in the report's step, operator and kernel tables against the independent
    // goldens, for every fixture, in nanoseconds so that no digit is rounded away; and the
    // HTML carries those cells.
    void tablesMatchTheGoldens_data() { analysis::testing::addFixtureRows(); }
    void tablesMatchTheGoldens()
    {
        QFETCH(QString, fixture);
        using namespace analysis::testing;
        const auto name = fixture.toStdString();
        const auto loaded = loadFixture(name);
        QVERIFY(loaded.index);
        report::ReportOptions options;
        options.topRows = 100000;
        options.timeUnit = TimeUnit::Nanoseconds;
        const auto sections = report::traceSections(*loaded.index, "", options);
        const auto html = qs(report::renderHtml(report::makeReport({name}, sections)));
        const auto ns = [](const std::string &micros) {
            return formatDuration(microsToNs(micros), TimeUnit::Nanoseconds);
        };
        const auto tableOf = [&](const std::string &id) -> const report::Table * {
            for (const auto &section : sections)
                if (section.id == id && !section.tables.empty())
                    return &section.tables.front();
            return nullptr;
        };
        // A table row as the HTML has it: numbers in "num" cells, names in "name" cells, long
        // ones elided with the whole name as the cell's title.
        const auto htmlRow = [](const report::Table &table, const std::vector<std::string> &cells) {
            QString row;
            for (std::size_t c = 0; c < cells.size(); ++c) {
                const bool isName = c < table.names.size() && table.names[c];
                const bool elided = isName && cells[c].size() > report::kNameChars;
                const QString attributes =
                    isName ? QStringLiteral(" class=\"name\"") +
                                 (elided ? QStringLiteral(" title=\"%1\"").arg(qs(report::escapeHtml(cells[c])))
                                         : QString())
                    : c < table.rightAligned.size() && table.rightAligned[c] ? QStringLiteral(" class=\"num\"")
                                                                             : QString();
                const auto text = elided ? report::elideName(cells[c], report::kNameChars) : cells[c];
                row += QStringLiteral("<td%1>%2</td>").arg(attributes, qs(report::escapeHtml(text)));
            }
            return row;
        };

        // Steps: name, duration, then the seven categories in the golden's order.
        auto steps = readCsv(goldenPath(name, ".steps.csv"));
        steps.erase(steps.begin());
        if (const auto *table = tableOf("steps")) {
            QCOMPARE(table->rows.size(), steps.size());
            for (std::size_t r = 0; r < steps.size(); ++r) {
                QCOMPARE(table->rows[r][0], steps[r][0]);
                for (std::size_t c = 1; c < 9; ++c)
                    QCOMPARE(table->rows[r][c], ns(steps[r][c]));
            }
        } else {
            QVERIFY(steps.empty());
        }

        // Operators: calls, self, total and device total by name.
        auto ops = readCsv(goldenPath(name, ".ops.csv"));
        ops.erase(ops.begin());
        const auto *opTable = tableOf("ops");
        QVERIFY(opTable);
        QCOMPARE(opTable->rows.size(), ops.size());
        const bool device = opTable->header.size() == 7;
        for (const auto &e : ops) {
            const auto row =
                std::find_if(opTable->rows.begin(), opTable->rows.end(), [&](const auto &r) { return r[0] == e[0]; });
            QVERIFY2(row != opTable->rows.end(), e[0].c_str());
            QCOMPARE((*row)[1], e[1]);
            QCOMPARE((*row)[2], ns(e[3]));
            QCOMPARE((*row)[4], ns(e[2]));
            if (device)
                QCOMPARE((*row)[6], ns(e[7]));
            QVERIFY2(html.contains(htmlRow(*opTable, *row)), (*row)[0].c_str());
        }

        // Kernels: count and total by kind and name.
        auto kernels = readCsv(goldenPath(name, ".kernels.csv"));
        kernels.erase(kernels.begin());
        if (const auto *table = tableOf("kernels")) {
            QCOMPARE(table->rows.size(), kernels.size());
            for (const auto &e : kernels) {
                const auto row = std::find_if(table->rows.begin(), table->rows.end(),
                                              [&](const auto &r) { return r[0] == e[1] && r[1] == e[0]; });
                QVERIFY2(row != table->rows.end(), e[1].c_str());
                QCOMPARE((*row)[2], e[2]);
                QCOMPARE((*row)[3], ns(e[3]));
            }
        } else {
            QVERIFY(kernels.empty());
        }
    }

    // A GPU trace's report has the GPU analyses: the kernel type table as the Python golden
    // has it (scripts/make-kerneltype-fixtures.py), launches, idle, the critical path and the
    // sequences; a CPU trace has none of them.
    void gpuSectionsHoldTheAnalyses()
    {
        using namespace analysis::testing;
        const auto loaded = loadFixture("h100_bert");
        QVERIFY(loaded.index);
        report::ReportOptions options;
        options.timeUnit = TimeUnit::Nanoseconds;
        const auto sections = report::traceSections(*loaded.index, "bert-", options);
        std::map<std::string, const report::Section *> byId;
        for (const auto &section : sections)
            byId[section.id] = &section;
        for (const char *id :
             {"bert-kernel-types", "bert-launches", "bert-idle", "bert-critical-path", "bert-sequences"})
            QVERIFY2(byId.count(id), id);
        const auto golden = readCsv(goldenPath("h100_bert", ".kerneltypes.csv"));
        const auto &types = byId["bert-kernel-types"]->tables.front();
        QCOMPARE(types.rows.size(), golden.size() - 1);
        for (std::size_t r = 1; r < golden.size(); ++r) {
            QCOMPARE(QString::fromStdString(types.rows[r - 1][0]).toLower().toStdString(), golden[r][0]);
            QCOMPARE(types.rows[r - 1][1], golden[r][1]);
            QCOMPARE(types.rows[r - 1][2], formatDuration(std::stoll(golden[r][2]), TimeUnit::Nanoseconds));
        }
        QVERIFY(byId["bert-critical-path"]->title.find("ProfilerStep#6") != std::string::npos);
        QVERIFY(!byId["bert-sequences"]->tables.empty());
        const auto html = qs(report::renderHtml(report::makeReport({"bert"}, sections)));
        QVERIFY(html.contains("Why the GPU waited") && html.contains("If one of them were twice as fast"));

        const auto cpu = loadFixture("cpu_gloo");
        for (const auto &section : report::traceSections(*cpu.index, "", options))
            QVERIFY2(section.id != "kernel-types" && section.id != "critical-path", section.id.c_str());
    }

    // The roofline section: its table is buildRoofline's rows in order, its chart an SVG with a
    // circle per op of known work; a trace without input shapes says why it has none.
    void rooflineSectionHoldsTheRoofline()
    {
        using namespace analysis::testing;
        const auto loaded = loadFixture("h100_bert");
        QVERIFY(loaded.index);
        const auto section = report::rooflineSection(*loaded.index, "bert-");
        QCOMPARE(section.id, std::string("bert-roofline"));
        const auto roofline = analysis::buildRoofline(*loaded.index);
        QVERIFY(section.facts.front().value.find("NVIDIA H100 SXM5 80GB") != std::string::npos);
        QCOMPARE(section.tables.size(), std::size_t(1));
        const auto &table = section.tables.front();
        QCOMPARE(table.rows.size(), std::min<std::size_t>(15, roofline.rows.size()));
        for (std::size_t r = 0; r < table.rows.size(); ++r) {
            QCOMPARE(table.rows[r][0], roofline.rows[r].name);
            QCOMPARE(table.rows[r].back(), std::string(analysis::boundName(roofline.rows[r].bound)));
        }
        QCOMPARE(section.images.size(), std::size_t(1));
        const auto svg = qs(section.images.front().data);
        std::size_t placed = 0;
        for (const auto &row : roofline.rows)
            placed += row.known() && row.intensity > 0 && row.achievedFlops > 0 ? 1 : 0;
        QCOMPARE(std::size_t(svg.count(QStringLiteral("<circle"))), placed);
        QDomDocument dom;
        QVERIFY(dom.setContent(svg)); // well-formed
        QCOMPARE(section.paragraphs.size(), analysis::rooflineFindings(roofline).size());

        const auto alexnet = loadFixture("a100_alexnet"); // recorded without shapes
        const auto none = report::rooflineSection(*alexnet.index, "");
        QVERIFY(none.images.empty());
        QVERIFY(none.paragraphs.front().find("record_shapes=True") != std::string::npos);
    }

    void markdownHasTheTables()
    {
        const auto loaded = load();
        QVERIFY(loaded.index);
        const auto document = report::makeReport({"minitoy"}, report::traceSections(*loaded.index, ""));
        const QString markdown = qs(report::renderMarkdown(document));
        QVERIFY(markdown.startsWith(QStringLiteral("# Pyrometer report: minitoy")));
        QVERIFY(markdown.contains(QStringLiteral("### Top operators by self time")));
        QVERIFY(markdown.contains(QStringLiteral("| Operator | Calls | Self |")));
        QVERIFY(markdown.contains(QStringLiteral("| --- | ---: | ---: |")));
        QVERIFY(markdown.contains(QStringLiteral("| Step | Duration |")));
        QVERIFY(markdown.contains(QStringLiteral("| Kernel | Kind |")));
        // The step chart and the roofline.
        QCOMPARE(embedded(markdown, QStringLiteral("image/svg+xml")).size(), 2);
        // Every table row has as many cells as its header.
        for (const auto &line : markdown.split(QLatin1Char('\n'))) {
            if (line.startsWith(QLatin1String("| Operator |")))
                QCOMPARE(line.count(QStringLiteral(" |")), 7); // 6 columns, device total on a GPU trace
        }
    }

    void cellsAreEscaped()
    {
        report::Report document{
            "a <b> & c", "", {{"x", "T", 2, {"<script>"}, {}, {}, {{"", {"name|pipe"}, {}, {{"<td>|"}}, {}}}}}};
        const auto html = qs(report::renderHtml(document));
        QVERIFY(!html.contains(QStringLiteral("<script>")));
        QVERIFY(html.contains(QStringLiteral("&lt;td&gt;|")));
        const auto markdown = qs(report::renderMarkdown(document));
        QVERIFY(markdown.contains(QStringLiteral("| name\\|pipe |")));
        QVERIFY(markdown.contains(QStringLiteral("| <td>\\| |")));
    }

    void stepChartScalesToTheLongestStep()
    {
        report::StackedBarChart chart{
            "t", "ms", {"a", "b"}, {"#ff0000", "#00ff00"}, {{"s1", {1.0, 1.0}}, {"s2", {4.0, 0.0}}}};
        const QByteArray svg = QByteArray::fromStdString(report::renderSvg(chart, 650));
        QDomDocument document;
        QVERIFY(document.setContent(svg));
        // Bars: s1 has two segments, s2 one (a zero value draws nothing); the axis ends at 4.
        const auto rects = document.elementsByTagName(QStringLiteral("rect"));
        double widest = 0;
        int bars = 0;
        for (int i = 0; i < rects.size(); ++i) {
            const auto rect = rects.at(i).toElement();
            if (rect.attribute(QStringLiteral("height")) == QLatin1String("18")) {
                ++bars;
                widest = std::max(widest, rect.attribute(QStringLiteral("width")).toDouble());
            }
        }
        QCOMPARE(bars, 3);
        QCOMPARE(widest, 650.0 - 150 - 20); // the 4 ms bar spans the plot
        QCOMPARE(report::niceStep(4, 5), 1.0);
        QCOMPARE(report::niceStep(37, 5), 10.0);
    }

    void distributionInterpolatesPercentiles()
    {
        const auto d = report::distributionOf({50, 10, 40, 20, 30});
        QCOMPARE(d.count, std::size_t(5));
        QCOMPARE(d.mean, std::int64_t(30));
        QCOMPARE(d.p50, std::int64_t(30));
        QCOMPARE(d.p90, std::int64_t(46)); // rank 3.6: 40 + 0.6 * 10
        QCOMPARE(d.p99, std::int64_t(50)); // rank 3.96: 49.6
        QCOMPARE(d.max, std::int64_t(50));
        QCOMPARE(report::distributionOf({}), report::Distribution{});
    }

    void bucketsAverageConsecutiveSteps()
    {
        analysis::StepBreakdown steps;
        for (std::int64_t ns : {10, 20, 30, 40, 50, 60, 70}) {
            analysis::StepRow row;
            row.durationNs = ns;
            row.categoryNs[0] = ns;
            steps.steps.push_back(row);
        }
        const auto buckets = report::bucketSteps(steps, 3);
        QCOMPARE(buckets.size(), std::size_t(3));
        QCOMPARE(buckets[0].first, std::size_t(0));
        QCOMPARE(buckets[0].count, std::size_t(3));
        QCOMPARE(buckets[0].meanNs[0], 20.0);
        QCOMPARE(buckets[1].maxNs, std::int64_t(60));
        QCOMPARE(buckets[2].first, std::size_t(6));
        QCOMPARE(buckets[2].count, std::size_t(1));
        QCOMPARE(buckets[2].meanNs[0], 70.0);
        QCOMPARE(report::bucketSteps(steps, 10).size(), std::size_t(7));
        QCOMPARE(report::slowestSteps(steps, 2), (std::vector<std::size_t>{6, 5}));
    }

    // Thousands of steps: a chart of them all and a table of the slowest, not a row each; the
    // report's size does not grow with the steps.
    void longRunsOfStepsAreSummarised()
    {
        constexpr std::size_t kSteps = 3000;
        constexpr std::size_t kSlowest = 1234;
        const auto loaded = loadText(manyStepsTrace(kSteps, kSlowest));
        QVERIFY(loaded.index);
        const auto steps = analysis::buildStepBreakdown(*loaded.index);
        QCOMPARE(steps.steps.size(), kSteps);
        const auto longest = std::max_element(steps.steps.begin(), steps.steps.end(),
                                              [](const auto &a, const auto &b) { return a.durationNs < b.durationNs; });
        QCOMPARE(std::size_t(longest - steps.steps.begin()), kSlowest);

        report::ReportOptions options;
        const auto sections = report::traceSections(*loaded.index, "", options);
        const auto section =
            std::find_if(sections.begin(), sections.end(), [](const auto &s) { return s.id == "steps"; });
        QVERIFY(section != sections.end());
        QCOMPARE(section->tables.size(), std::size_t(2));

        // The distribution, against the steps' durations sorted here.
        std::vector<std::int64_t> sorted;
        for (const auto &step : steps.steps)
            sorted.push_back(step.durationNs);
        std::sort(sorted.begin(), sorted.end());
        const auto &spread = section->tables[0];
        QVERIFY(qs(spread.caption).contains(QStringLiteral("3000 steps")));
        QCOMPARE(spread.header, (std::vector<std::string>{"Time", "Mean", "p50", "p90", "p99", "Max"}));
        QCOMPARE(spread.rows[0][0], std::string("Step duration"));
        const double sum = std::accumulate(sorted.begin(), sorted.end(), 0.0);
        QCOMPARE(spread.rows[0][1], formatDuration(std::llround(sum / kSteps)));
        QCOMPARE(spread.rows[0][2], formatDuration((sorted[kSteps / 2 - 1] + sorted[kSteps / 2] + 1) / 2));
        QCOMPARE(spread.rows[0][5], formatDuration(longest->durationNs));

        // The slowest steps, slowest first, with their place in time order.
        const auto &slowest = section->tables[1];
        QCOMPARE(slowest.rows.size(), options.topRows);
        QCOMPARE(slowest.rows[0][0], longest->name);
        QCOMPARE(slowest.rows[0][1], std::to_string(kSlowest + 1));
        QCOMPARE(slowest.rows[0][2], formatDuration(longest->durationNs));
        QCOMPARE(slowest.rows[1][2], formatDuration(sorted[kSteps - 2]));

        // One chart of every step, its columns averaging ten steps each.
        QCOMPARE(section->images.size(), std::size_t(1));
        QVERIFY(qs(section->images[0].caption).contains(QStringLiteral("mean of 10 consecutive steps")));
        QDomDocument svg;
        QVERIFY(svg.setContent(QByteArray::fromStdString(section->images[0].data)));
        QVERIFY(section->images[0].data.size() < 60'000);

        const auto html = report::renderHtml(report::makeReport({"steps"}, sections));
        QVERIFY2(html.size() < 150'000, std::to_string(html.size()).c_str());
        QVERIFY(qs(html).count(QStringLiteral("<tr>")) < 80);
        // Three times the steps: about the same report.
        const auto more = loadText(manyStepsTrace(3 * kSteps, kSlowest));
        QVERIFY(more.index);
        const auto bigger =
            report::renderHtml(report::makeReport({"steps"}, report::traceSections(*more.index, "", options)));
        QVERIFY2(double(bigger.size()) < 1.1 * double(html.size()), std::to_string(bigger.size()).c_str());
    }

    void fewStepsAreTabledWhole()
    {
        const auto loaded = loadText(manyStepsTrace(45, 3));
        QVERIFY(loaded.index);
        const auto sections = report::traceSections(*loaded.index, "", {});
        const auto &steps = sections.at(1);
        QCOMPARE(steps.id, std::string("steps"));
        QCOMPARE(steps.tables.size(), std::size_t(1));
        QCOMPARE(steps.tables[0].rows.size(), std::size_t(45));
        QCOMPARE(steps.tables[0].rows[3][0], std::string("ProfilerStep#4"));
        // More than 40: columns, one per step.
        QVERIFY(
            qs(steps.images.at(0).caption).startsWith(QStringLiteral("Every step in time order, one column per step")));
    }

    // Long names are elided with the whole name in the cell's title, and may wrap anywhere;
    // other cells are whole.
    void longNamesAreElided()
    {
        const std::string name =
            "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
            "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)";
        const std::string prose(200, 'x');
        report::Table table{"", {"Kernel", "Note"}, {}, {{name, prose}, {"short", "y"}}, {true}};
        report::Report document{"t", "", {{"k", "K", 2, {}, {}, {}, {table}}}};
        const QString html = qs(report::renderHtml(document));
        const auto elided = report::elideName(name, report::kNameChars);
        QVERIFY(elided.size() <= report::kNameChars);
        QVERIFY(elided.ends_with("\xE2\x80\xA6"));
        QVERIFY(name.starts_with(elided.substr(0, elided.size() - 3)));
        QVERIFY2(html.contains(QStringLiteral("<td class=\"name\" title=\"%1\">%2</td>")
                                   .arg(qs(report::escapeHtml(name)), qs(report::escapeHtml(elided)))),
                 qPrintable(html));
        QVERIFY(html.contains(QStringLiteral("<td class=\"name\">short</td>")));
        QVERIFY(html.contains(QStringLiteral("<td>%1</td>").arg(qs(prose))));
        QVERIFY(html.contains(QStringLiteral("td.name { overflow-wrap: anywhere;")));
        QVERIFY(html.contains(QStringLiteral("max-width: 100%")));
        const QString markdown = qs(report::renderMarkdown(document));
        QVERIFY(markdown.contains(QStringLiteral("| %1 | %2 |").arg(qs(elided), qs(prose))));
        QVERIFY(!markdown.contains(qs(name)));
        // A cut never splits a UTF-8 sequence.
        QCOMPARE(report::elideName(std::string(78, 'a') + "\xC3\xA9\xC3\xA9", 81),
                 std::string(78, 'a') + "\xE2\x80\xA6");
    }

    void columnChartDrawsEachSeriesAsOnePath()
    {
        report::ColumnChart chart;
        chart.title = "t";
        chart.unit = "ms";
        chart.xLabel = "step";
        chart.seriesNames = {"a", "b"};
        chart.seriesColors = {"#ff0000", "#00ff00"};
        for (int c = 0; c < 500; ++c)
            chart.columns.push_back({{1.0, c == 7 ? 3.0 : 0.0}, c == 7 ? 0 : 2.0});
        chart.itemsPerColumn = 2;
        chart.itemCount = 1000;
        QDomDocument document;
        QVERIFY(document.setContent(QByteArray::fromStdString(report::renderSvg(chart, 800, 300))));
        QCOMPARE(document.documentElement().attribute(QStringLiteral("height")), QStringLiteral("300"));
        const auto paths = document.elementsByTagName(QStringLiteral("path"));
        QCOMPARE(paths.size(), 3); // series a, series b (one column), the marks
        QCOMPARE(paths.at(0).toElement().attribute(QStringLiteral("d")).count(QLatin1Char('M')), 500);
        QCOMPARE(paths.at(1).toElement().attribute(QStringLiteral("d")).count(QLatin1Char('M')), 1);
        QCOMPARE(paths.at(2).toElement().attribute(QStringLiteral("d")).count(QLatin1Char('M')), 499);
        QVERIFY(document.toString().contains(QStringLiteral(">1000<"))); // the last item's number
    }

    void markdownImagesAreFilesBesideIt()
    {
        // GitHub shows no data: URIs: a written Markdown report links its images as files in
        // "<name>_files/", written with it (the link percent-encodes the blank); rendered alone
        // it embeds them.
        QTemporaryDir dir;
        report::Report document{"t", "", {}};
        report::Section section;
        section.title = "Charts";
        section.images.push_back({"steps", "image/svg+xml", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>", 0});
        section.images.push_back({"sweep", "image/png", std::string("\x89PNG\r\n\x1a\n", 8), 0});
        document.sections.push_back(section);
        QVERIFY(qs(report::renderMarkdown(document)).contains(QStringLiteral("](data:image/png;base64,")));
        const auto path = std::filesystem::path(dir.filePath(QStringLiteral("run 1.md")).toStdString());
        QVERIFY(report::writeReport(document, path, report::ReportFormat::Markdown).ok());
        QFile markdown(dir.filePath(QStringLiteral("run 1.md")));
        QVERIFY(markdown.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(markdown.readAll());
        QVERIFY2(text.contains(QStringLiteral("![steps](run%201_files/image-01.svg)")), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("![sweep](run%201_files/image-02.png)")));
        QVERIFY(!text.contains(QStringLiteral("data:")));
        QFile png(dir.filePath(QStringLiteral("run 1_files/image-02.png")));
        QVERIFY(png.open(QIODevice::ReadOnly));
        QCOMPARE(png.readAll(), QByteArray("\x89PNG\r\n\x1a\n", 8));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("run 1_files/image-01.svg"))));
    }

    void writeIsAtomic()
    {
        QTemporaryDir dir;
        const auto path = std::filesystem::path(dir.filePath(QStringLiteral("r.md")).toStdString());
        report::Report document{"t", "", {}};
        QVERIFY(report::writeReport(document, path, report::ReportFormat::Markdown).ok());
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("r.md")});
        const auto failed =
            report::writeReport(document, path.parent_path() / "missing" / "r.md", report::ReportFormat::Html);
        QVERIFY(!failed.ok());
        QVERIFY(qs(failed.error().message).contains(QStringLiteral("missing/r.md")));
    }
};

QTEST_GUILESS_MAIN(TestReport)
#include "tst_report.moc"
