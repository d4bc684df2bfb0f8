// The report document built from a real trace, and its HTML and Markdown renderings.
#include <QtTest>

#ifndef Q_MOC_RUN // moc cannot parse C++20 library headers
#include "core/analysis/advice.h"
#include "core/analysis/kerneltable.h"
#include "core/analysis/optable.h"
#include "core/analysis/steps.h"
#include "core/analysis/traceindex.h"
#include "core/report/reportrender.h"
#include "core/report/svgchart.h"
#include "core/report/tracereport.h"
#include "core/trace/loader.h"
#include "core/util/format.h"
#endif

#include "../analysis/analysistestutil.h"

#include <QDomDocument>
#include <QRegularExpression>
#include <QTemporaryDir>

using namespace pyrometer;

namespace {

const std::filesystem::path kTrace = std::filesystem::path(PYROMETER_FIXTURES_DIR) / "traces" /
                                     "mi250_minitoy_train_ROCm6_2_kineto.json.gz";

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

QString qs(const std::string &text)
{
    return QString::fromStdString(text);
}

// The payloads of every data: URI of the given type in text.
QList<QByteArray> embedded(const QString &text, const QString &mimeType)
{
    QList<QByteArray> images;
    const QRegularExpression uri(QStringLiteral("data:%1;base64,([A-Za-z0-9+/=]+)").arg(QRegularExpression::escape(mimeType)));
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
        QCOMPARE(html.count(QStringLiteral("<table>")), advice ? 4 : 3); // steps, ops, kernels, findings

        // The top rows are the analyses' own, in their order.
        analysis::OpTableOptions opOptions;
        opOptions.top = 5;
        const auto ops = analysis::buildOpTable(*loaded.index, opOptions);
        QVERIFY(!ops.rows.empty());
        const qsizetype first = html.indexOf(QStringLiteral("<td>%1</td>").arg(qs(report::escapeHtml(ops.rows[0].name))));
        const qsizetype second = html.indexOf(QStringLiteral("<td>%1</td>").arg(qs(report::escapeHtml(ops.rows[1].name))));
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
        QCOMPARE(charts.size(), 1);
        QDomDocument svg;
        QVERIFY(svg.setContent(charts.front()));
        QCOMPARE(svg.documentElement().tagName(), QStringLiteral("svg"));
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
            const auto fact = std::find_if(facts.begin(), facts.end(),
                                           [&](const report::Fact &f) { return f.label == "GPU " + row[0] + " utilization"; });
            QVERIFY2(fact != facts.end(), row[0].c_str());
            const auto value = qs(fact->value);
            QVERIFY2(value.startsWith(QString::number(100.0 * share, 'f', 1) + " % of the " + (overSteps ? "step time" : "trace's span")),
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
        const auto ns = [](const std::string &micros) { return formatDuration(microsToNs(micros), TimeUnit::Nanoseconds); };
        const auto tableOf = [&](const std::string &id) -> const report::Table * {
            for (const auto &section : sections)
                if (section.id == id && !section.tables.empty())
                    return &section.tables.front();
            return nullptr;
        };
        // A table row as the HTML has it: numbers in "num" cells.
        const auto htmlRow = [](const report::Table &table, const std::vector<std::string> &cells) {
            QString row;
            for (std::size_t c = 0; c < cells.size(); ++c)
                row += QStringLiteral("<td%1>%2</td>")
                           .arg(c < table.rightAligned.size() && table.rightAligned[c] ? QStringLiteral(" class=\"num\"") : QString(),
                                qs(report::escapeHtml(cells[c])));
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

        // Operators: calls, self, total and device total by name (names short enough to be whole).
        auto ops = readCsv(goldenPath(name, ".ops.csv"));
        ops.erase(ops.begin());
        const auto *opTable = tableOf("ops");
        QVERIFY(opTable);
        QCOMPARE(opTable->rows.size(), ops.size());
        const bool device = opTable->header.size() == 7;
        int checked = 0;
        for (const auto &e : ops) {
            const auto row = std::find_if(opTable->rows.begin(), opTable->rows.end(), [&](const auto &r) { return r[0] == e[0]; });
            if (row == opTable->rows.end())
                continue; // elided in the report
            ++checked;
            QCOMPARE((*row)[1], e[1]);
            QCOMPARE((*row)[2], ns(e[3]));
            QCOMPARE((*row)[4], ns(e[2]));
            if (device)
                QCOMPARE((*row)[6], ns(e[7]));
            QVERIFY2(html.contains(htmlRow(*opTable, *row)), (*row)[0].c_str());
        }
        QVERIFY(checked * 10 >= int(ops.size()) * 9);

        // Kernels: count and total by kind and name.
        auto kernels = readCsv(goldenPath(name, ".kernels.csv"));
        kernels.erase(kernels.begin());
        if (const auto *table = tableOf("kernels")) {
            QCOMPARE(table->rows.size(), kernels.size());
            for (const auto &e : kernels) {
                const auto row = std::find_if(table->rows.begin(), table->rows.end(),
                                              [&](const auto &r) { return r[0] == e[1] && r[1] == e[0]; });
                if (row == table->rows.end())
                    continue; // elided
                QCOMPARE((*row)[2], e[2]);
                QCOMPARE((*row)[3], ns(e[3]));
            }
        } else {
            QVERIFY(kernels.empty());
        }
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
        QCOMPARE(embedded(markdown, QStringLiteral("image/svg+xml")).size(), 1);
        // Every table row has as many cells as its header.
        for (const auto &line : markdown.split(QLatin1Char('\n'))) {
            if (line.startsWith(QLatin1String("| Operator |")))
                QCOMPARE(line.count(QStringLiteral(" |")), 7); // 6 columns, device total on a GPU trace
        }
    }

    void cellsAreEscaped()
    {
        report::Report document{"a <b> & c", "", {{"x", "T", 2, {"<script>"}, {}, {}, {{"", {"name|pipe"}, {}, {{"<td>|"}}}}}}};
        const auto html = qs(report::renderHtml(document));
        QVERIFY(!html.contains(QStringLiteral("<script>")));
        QVERIFY(html.contains(QStringLiteral("&lt;td&gt;|")));
        const auto markdown = qs(report::renderMarkdown(document));
        QVERIFY(markdown.contains(QStringLiteral("| name\\|pipe |")));
        QVERIFY(markdown.contains(QStringLiteral("| <td>\\| |")));
    }

    void stepChartScalesToTheLongestStep()
    {
        report::StackedBarChart chart{"t", "ms", {"a", "b"}, {"#ff0000", "#00ff00"}, {{"s1", {1.0, 1.0}}, {"s2", {4.0, 0.0}}}};
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
        const auto failed = report::writeReport(document, path.parent_path() / "missing" / "r.md", report::ReportFormat::Html);
        QVERIFY(!failed.ok());
        QVERIFY(qs(failed.error().message).contains(QStringLiteral("missing/r.md")));
    }
};

QTEST_GUILESS_MAIN(TestReport)
#include "tst_report.moc"
