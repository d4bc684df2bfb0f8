// pyrometer-cli in a terminal: every table fits COLUMNS with the columns it keeps equal to the
// csv's and a note naming the ones it left out, --help wraps to the width, bad arguments get one
// plain line and exit 2, bytes are in words in tables and raw in csv, and a log folder's pick
// is named on stderr.
#include "clitestutil.h"
#include "core/analysis/kernelnames.h"

#include <QHash>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace pyrometer::testing;

namespace {

const QString kTraces = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/");
const QString kV100 = kTraces + "multirank/sampled_rank-0.json.gz";
const QString kV100Other = kTraces + "multirank/sampled_rank-1.json.gz";
const QString kCpu = kTraces + "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz";
const QString kH100 = kTraces + "gaunernst_bert-small-uncased__1016001.json.gz";
const QString kDemoModel = QStringLiteral(PYROMETER_RESOURCES_DIR "/demo/demo_model.pt");
const QChar kEllipsis(0x2026);

// A table as printed: the header names and the rows' cells, cut at the columns the rule line
// ("-----  ---") marks; the last column runs to the end of its line.
struct PrintedTable {
    QStringList header;
    QList<QStringList> rows;
    QStringList after; // the lines below the rows (the note, a summary)
};

PrintedTable readTable(const QString &text, int rowCount, bool prose = false)
{
    PrintedTable table;
    const auto lines = text.split('\n');
    if (lines.size() < 2)
        return table;
    QList<QPair<int, int>> spans;
    static const QRegularExpression dashes(QStringLiteral("-+"));
    for (auto it = dashes.globalMatch(lines[1]); it.hasNext();) {
        const auto match = it.next();
        spans.append({int(match.capturedStart()), int(match.capturedLength())});
    }
    const auto cells = [&](const QString &line) {
        QStringList out;
        for (int c = 0; c < spans.size(); ++c)
            out << (c + 1 == spans.size() ? line.mid(spans[c].first) : line.mid(spans[c].first, spans[c].second)).trimmed();
        return out;
    };
    table.header = cells(lines[0]);
    int i = 2;
    // Prose cells are printed under their row, indented by four spaces.
    const auto underRow = [&](const QString &line) { return prose && line.startsWith(QStringLiteral("    ")); };
    for (; i < lines.size() && table.rows.size() < rowCount; ++i)
        if (!underRow(lines[i]))
            table.rows << cells(lines[i]);
    for (; i < lines.size(); ++i)
        if (!underRow(lines[i]) && !lines[i].isEmpty())
            table.after << lines[i];
    return table;
}

// The columns the note under a table names, and the width it says shows them all; empty when
// there is no note.
QPair<QStringList, int> noteOf(const PrintedTable &table)
{
    const auto start = std::find_if(table.after.begin(), table.after.end(), [](const QString &l) { return l.startsWith("(not shown: "); });
    if (start == table.after.end())
        return {};
    QString note;
    for (auto it = start; it != table.after.end(); ++it) {
        note += (note.isEmpty() ? "" : " ") + *it;
        if (it->endsWith(')'))
            break;
    }
    static const QRegularExpression form(QStringLiteral(R"(^\(not shown: (.+); COLUMNS=(\d+) or --format csv or json shows them\)$)"));
    const auto match = form.match(note);
    if (!match.hasMatch())
        return {{QStringLiteral("unreadable note: ") + note}, 0};
    return {match.captured(1).split(QStringLiteral(", ")), match.captured(2).toInt()};
}

// "1.50 MiB" back to bytes, with the half unit of its last digit it may be off by.
bool bytesFromWords(const QString &text, double *bytes, double *tolerance)
{
    static const QRegularExpression form(QStringLiteral(R"(^(-?)(\d+)(?:\.(\d+))? (B|KiB|MiB|GiB|TiB)$)"));
    const auto match = form.match(text);
    if (!match.hasMatch())
        return false;
    const double unit = std::pow(1024.0, QStringList({"B", "KiB", "MiB", "GiB", "TiB"}).indexOf(match.captured(4)));
    *bytes = (match.captured(1) + match.captured(2) + "." + match.captured(3) + "0").toDouble() * unit;
    *tolerance = 0.5 * std::pow(10.0, -double(match.captured(3).size())) * unit;
    return true;
}

// Whether a table cell shows the csv's value: the same text, the name elided in the middle,
// the number rounded to the table's decimals, or the bytes in words.
bool shows(const QString &table, const QString &csv)
{
    if (table == csv.trimmed())
        return true;
    // Elided in the middle: "…", or "..." where the terminal does not take UTF-8.
    // The value may hold marks of its own (a kernel's short name collapses templates to <…>):
    // any mark of the table's may be the cut.
    for (const QString &mark : {QString(kEllipsis), QStringLiteral("...")}) {
        for (auto cut = table.indexOf(mark); cut >= 0; cut = table.indexOf(mark, cut + 1))
            if (csv.startsWith(table.left(cut)) && csv.endsWith(table.mid(cut + mark.size())) &&
                csv.size() > table.size() - mark.size())
                return true;
    }
    if (table.contains(':') && csv.contains(':')) { // a range "start:end"
        const auto t = table.split(':'), c = csv.split(':');
        return t.size() == c.size() && std::equal(t.begin(), t.end(), c.begin(), shows);
    }
    bool tableNumber = false, csvNumber = false;
    const double value = csv.toDouble(&csvNumber);
    const double shown = table.toDouble(&tableNumber);
    if (tableNumber && csvNumber) {
        const auto dot = table.indexOf('.');
        const int decimals = dot < 0 ? 0 : int(table.size() - dot - 1);
        return std::abs(shown - value) <= 0.5 * std::pow(10.0, -decimals) + 1e-9 * std::abs(value);
    }
    double bytes = 0, tolerance = 0;
    return csvNumber && bytesFromWords(table, &bytes, &tolerance) && std::abs(bytes - value) <= tolerance;
}

// The csv of a command, run once for every width it is compared with.
QList<QStringList> csvOf(const QStringList &arguments)
{
    static QHash<QString, QList<QStringList>> runs;
    const auto key = arguments.join(QChar(0));
    if (!runs.contains(key))
        runs.insert(key, parseCsv(runCli(arguments + QStringList{"--format", "csv"}).out));
    return runs.value(key);
}

int longestLine(const QString &text, QString *line)
{
    int longest = 0;
    for (const auto &l : text.split('\n'))
        if (l.size() > longest) {
            longest = int(l.size());
            *line = l;
        }
    return longest;
}

} // namespace

class TestCliTerminal : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void tablesFitAndKeepTheCsvValues_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("columns");
        QTest::addColumn<QStringList>("notInGrid"); // prose under the rows, or shown in another column
        QTest::addColumn<QStringList>("unsteadyRows"); // first cells of rows that differ from run to run
        const QStringList prose{"finding", "evidence", "fix"};
        struct Command {
            const char *name;
            QStringList arguments;
            QStringList notInGrid = {};
            QStringList unsteadyRows = {};
            bool narrow = false; // also at 60 columns
        };
        const QList<Command> commands{
            {"info", {"info", kV100}, {}, {"load"}},
            {"ops", {"ops", kV100}, {}, {}, true},
            {"ops by total", {"ops", kV100, "--sort", "total"}},
            {"ops by shape", {"ops", kV100, "--by", "shape"}},
            {"kernels", {"kernels", kV100}},
            {"kernels by stream", {"kernels", kV100, "--by-stream"}, {}, {}, true},
            {"streams", {"kernels", kV100, "--streams"}},
            {"steps", {"steps", kV100}, {}, {}, true},
            {"advise", {"advise", kV100}, prose, {}, true},
            {"flame", {"flame", kV100}},
            {"diff", {"diff", kV100, kV100Other}, {}, {}, true},
            {"cpu ops", {"ops", kCpu}},
            {"cpu steps", {"steps", kCpu}},
            {"h100 ops by stack", {"ops", kH100, "--by", "stack", "--top", "40"}, {}, {}, true},
            {"h100 memory", {"memory", kH100}, {"peak"}, {}, true},
        };
        for (const auto &command : commands)
            for (const char *columns : {"60", "80"})
                if (command.narrow || columns == QLatin1String("80"))
                    QTest::addRow("%s at %s", command.name, columns)
                        << command.arguments << QString::fromLatin1(columns) << command.notInGrid << command.unsteadyRows;
        QTest::addRow("ops at 200") << QStringList{"ops", kH100} << "200" << QStringList() << QStringList();
        QTest::addRow("steps at 200") << QStringList{"steps", kV100} << "200" << QStringList() << QStringList();
    }
    void tablesFitAndKeepTheCsvValues()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, columns);
        QFETCH(QStringList, notInGrid);
        QFETCH(QStringList, unsteadyRows);
        const auto table = runCli(arguments, columns);
        QVERIFY2(table.exitCode == 0, qPrintable(table.err));
        QString line;
        QVERIFY2(longestLine(table.out, &line) <= columns.toInt(), qPrintable(line));

        auto csv = csvOf(arguments);
        QVERIFY(csv.size() > 1);
        const auto csvHeader = csv.takeFirst();
        const auto printed = readTable(table.out, int(csv.size()), !notInGrid.isEmpty());
        QCOMPARE(printed.rows.size(), csv.size());
        QVERIFY(!printed.header.isEmpty());
        // Kept columns: the csv's values, row by row.
        for (int c = 0; c < printed.header.size(); ++c) {
            const auto column = csvHeader.indexOf(printed.header[c]);
            QVERIFY2(column >= 0, qPrintable(printed.header[c]));
            for (int r = 0; r < csv.size(); ++r) {
                if (unsteadyRows.contains(csv[r].value(0)))
                    continue;
                const auto shown = printed.rows[r].value(c);
                // A kernel's name reads short in a table; csv keeps the trace's.
                auto expected = csv[r].value(column);
                if (arguments.first() == QLatin1String("kernels") && printed.header[c] == QLatin1String("name"))
                    expected = QString::fromStdString(pyrometer::analysis::shortKernelName(expected.toStdString(), 0));
                QVERIFY2(shows(shown, expected), qPrintable(QStringLiteral("row %1, %2: table \"%3\", csv \"%4\"")
                                                                .arg(r)
                                                                .arg(printed.header[c], shown, csv[r].value(column))));
            }
        }
        // The rest were left out for the width, and the note says which, and how to see them.
        QStringList dropped;
        for (const auto &name : csvHeader)
            if (!printed.header.contains(name) && !notInGrid.contains(name))
                dropped << name;
        const auto [named, everything] = noteOf(printed);
        QCOMPARE(QSet<QString>(named.begin(), named.end()), QSet<QString>(dropped.begin(), dropped.end()));
        if (!dropped.isEmpty())
            QVERIFY2(everything > columns.toInt(), qPrintable(QString::number(everything)));
        if (!dropped.isEmpty() && columns == "60") {
            // At the width the note gives, every column is back and no note is printed.
            const auto wide = runCli(arguments, QString::number(everything));
            const auto all = readTable(wide.out, int(csv.size()), !notInGrid.isEmpty());
            QCOMPARE(noteOf(all).first, QStringList());
            for (const auto &name : dropped)
                QVERIFY2(all.header.contains(name), qPrintable(name));
        }
    }

    void tablesFitTerminalsWithoutUtf8()
    {
        // "…" is one column in a UTF-8 terminal and three bytes (three characters) in one that
        // is not: the V100 ResNet-50 kernels table elides two names a row, so rows were 84
        // characters wide at COLUMNS=80 there. The elision mark follows the locale.
        const QString resnet = kTraces + "tb_logdir/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
        const QList<QPair<QString, bool>> locales{{"C", false}, {"POSIX", false}, {"C.UTF-8", true}, {"en_US.utf8", true}};
        for (const auto &[locale, utf8] : locales) {
            const auto run = runCli({"kernels", resnet}, "80", {{"LC_ALL", locale}});
            QVERIFY2(run.exitCode == 0, qPrintable(run.err));
            const auto lines = run.out.split('\n');
            QVERIFY(lines.size() > 10);
            int elided = 0;
            for (const auto &line : lines) {
                // Bytes are what a terminal without UTF-8 shows as columns; characters what one with it shows.
                const auto width = utf8 ? line.size() : line.toUtf8().size();
                QVERIFY2(width <= 80, qPrintable(locale + ": " + line));
                elided += int(line.contains(utf8 ? QString(kEllipsis) : QStringLiteral("...")));
                if (!utf8)
                    QVERIFY2(!line.contains(kEllipsis), qPrintable(locale + ": " + line));
            }
            QVERIFY2(elided > 5, qPrintable(locale + ": " + run.out));
        }
    }

    void instantsCountFromTheTraceStart()
    {
        // Tables print when something happened as µs from the trace's start, as the Timeline
        // does; json keeps the trace's own ts. The start is the earliest ts of a timed event,
        // taken from the file below rather than from the CLI.
        const QString resnet = kTraces + "tb_logdir/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz";
        const auto json = runCli({"memory", resnet, "--format", "json"});
        QCOMPARE(json.exitCode, 0);
        auto csv = parseCsv(runCli({"memory", resnet, "--format", "csv"}).out);
        QVERIFY(csv.size() == 3);
        const auto header = csv.takeFirst();
        const auto at = header.indexOf("at us");
        QVERIFY(at >= 0);
        // The trace's start: the earliest ts of a complete ("X") event in the file, found with
        // zcat and Python's json: min(float(e["ts"]) for e in events if e["ph"] == "X").
        const double start = 1623142623460016.0;
        static const QRegularExpression peak(QStringLiteral(R"("peak_us":\s*([0-9.e+]+))"));
        QList<double> absolute;
        for (auto it = peak.globalMatch(json.out); it.hasNext();)
            absolute << it.next().captured(1).toDouble();
        QCOMPARE(absolute.size(), 2);
        for (int r = 0; r < 2; ++r) {
            const double shown = csv[r][at].toDouble();
            QVERIFY2(shown >= 0 && shown < 1e6, qPrintable(csv[r][at]));
            QCOMPARE(shown, absolute[r] - start);
        }
        // --range counts from the same start: the first 100 ms holds fewer allocations than all.
        const auto all = parseCsv(runCli({"memory", resnet, "--format", "csv"}).out);
        const auto first = parseCsv(runCli({"memory", resnet, "--format", "csv", "--range", "0:100000"}).out);
        const auto allocations = header.indexOf("allocations");
        QVERIFY(first.size() == 3 && allocations >= 0);
        for (int r = 1; r < 3; ++r) {
            QVERIFY2(first[r][allocations].toInt() > 0, qPrintable(first[r].join(',')));
            QVERIFY2(first[r][allocations].toInt() < all[r][allocations].toInt(), qPrintable(first[r].join(',')));
        }
    }

    void modelTablesFit_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QStringList>("notInGrid");
        QTest::addRow("flops") << QStringList{"flops", kDemoModel, "--input", "2x3x64x64"} << QStringList();
        QTest::addRow("profile") << QStringList{"profile", kDemoModel, "--input", "2x3x64x64", "--warmup", "0", "--iters", "2", "--profile-iters", "1"}
                                 << QStringList();
        QTest::addRow("sweep") << QStringList{"sweep", kDemoModel, "--input", "Bx3x64x64", "--batches", "1,2", "--warmup", "0", "--iters", "1"}
                               << QStringList();
        QTest::addRow("compare") << QStringList{"compare", kDemoModel, "--input", "1x3x64x64", "--variants", "baseline,frozen", "--warmup", "0",
                                                "--iters", "1"}
                                 << QStringList{"note"};
    }
    void modelTablesFit()
    {
        // Measured times differ from run to run: the width and the columns are checked here, the
        // values of flops (counted, not measured) as well.
        QFETCH(QStringList, arguments);
        QFETCH(QStringList, notInGrid);
        auto csv = parseCsv(runCli(arguments + QStringList{"--format", "csv"}).out);
        QVERIFY(csv.size() > 1);
        const auto csvHeader = csv.takeFirst();
        const auto run = runCli(arguments, QStringLiteral("60"));
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QString line;
        QVERIFY2(longestLine(run.out, &line) <= 60, qPrintable(line));
        // profile prints its latency above the table, after a blank line.
        const auto start = arguments.first() == "profile" ? run.out.indexOf("\n\n") + 2 : 0;
        const auto printed = readTable(run.out.mid(start), int(csv.size()), !notInGrid.isEmpty());
        QStringList dropped;
        for (const auto &name : csvHeader)
            if (!printed.header.contains(name) && !notInGrid.contains(name))
                dropped << name;
        QVERIFY(!dropped.isEmpty());
        const auto named = noteOf(printed).first;
        QCOMPARE(QSet<QString>(named.begin(), named.end()), QSet<QString>(dropped.begin(), dropped.end()));
        if (arguments.first() == "flops")
            for (int c = 0; c < printed.header.size(); ++c)
                for (int r = 0; r < csv.size(); ++r)
                    QVERIFY2(shows(printed.rows[r].value(c), csv[r].value(csvHeader.indexOf(printed.header[c]))), qPrintable(printed.header[c]));
    }

    void helpFitsTheWidth()
    {
        static const QRegularExpression space(QStringLiteral("\\s+"));
        for (const QString command : {"", "info", "ops", "kernels", "steps", "memory", "flame", "advise", "diff", "profile", "flops",
                                      "report", "sweep", "compare", "export"}) {
            const auto arguments = command.isEmpty() ? QStringList{"--help"} : QStringList{command, "--help"};
            QString wide;
            for (const QString columns : {"50", "80"}) {
                if (!command.isEmpty() && command != "ops" && command != "compare" && columns == "80")
                    continue; // one narrow width for the rest
                const auto run = runCli(arguments, columns);
                QCOMPARE(run.exitCode, 0);
                QString line;
                QVERIFY2(longestLine(run.out, &line) <= columns.toInt(), qPrintable(command + ": " + line));
                if (command.isEmpty() || command == "ops" || command == "compare") {
                    // Wrapping loses no words: the text is the unwrapped one, spaces aside.
                    if (wide.isEmpty())
                        wide = runCli(arguments, "1000").out.remove(space);
                    QCOMPARE(QString(run.out).remove(space), wide);
                }
            }
        }
        const auto ops = runCli({"ops", "--help"}, "80");
        QVERIFY2(ops.out.contains("--by name|shape|module|stack"), qPrintable(ops.out));
        QVERIFY2(ops.out.contains("--top N"), qPrintable(ops.out));
    }

    void badArgumentsAreNamed_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("says");
        static QTemporaryDir out;
        QTest::addRow("misspelt command") << QStringList{"opz", kCpu} << "pyrometer-cli: unknown command opz; did you mean ops?";
        QTest::addRow("swapped letters") << QStringList{"stpes", kCpu} << "pyrometer-cli: unknown command stpes; did you mean steps?";
        QTest::addRow("no such command") << QStringList{"frobnicate", kCpu}
                                         << "pyrometer-cli: unknown command frobnicate; the commands are info, ops, kernels,";
        QTest::addRow("no command") << QStringList{} << "pyrometer-cli: name a command: info, ops,";
        QTest::addRow("--by") << QStringList{"ops", kCpu, "--by", "foo"}
                              << "pyrometer-cli ops: --by must be one of name, shape, module, stack (not \"foo\")";
        QTest::addRow("--sort") << QStringList{"ops", kCpu, "--sort", "avg"} << "pyrometer-cli ops: --sort must be one of self, total, calls";
        QTest::addRow("--format") << QStringList{"steps", kCpu, "--format", "xml"}
                                  << "pyrometer-cli steps: --format must be one of table, csv, md, json (not \"xml\")";
        QTest::addRow("flame --format") << QStringList{"flame", kCpu, "--format", "svg"}
                                        << "pyrometer-cli flame: --format must be one of collapsed, table, csv, md, json";
        QTest::addRow("--events") << QStringList{"flame", kCpu, "--events", "py"} << "pyrometer-cli flame: --events must be one of ops, python, all";
        QTest::addRow("--time-unit") << QStringList{"report", kCpu, "-o", out.filePath("r.md"), "--time-unit", "h"}
                                     << "pyrometer-cli report: --time-unit must be one of auto, ns, us, ms, s";
        QTest::addRow("--mode") << QStringList{"profile", kDemoModel, "--mode", "eval"} << "pyrometer-cli profile: --mode must be one of infer, train";
        QTest::addRow("--top -3") << QStringList{"ops", kCpu, "--top", "-3"}
                                  << "pyrometer-cli ops: --top must be a whole number, 1 or more (not \"-3\")";
        QTest::addRow("--top 0") << QStringList{"kernels", kCpu, "--top", "0"} << "pyrometer-cli kernels: --top must be a whole number, 1 or more";
        QTest::addRow("diff --top") << QStringList{"diff", kCpu, kCpu, "--top", "-1"} << "pyrometer-cli diff: --top must be a whole number";
        QTest::addRow("--iters") << QStringList{"profile", kDemoModel, "--iters", "-1"}
                                 << "pyrometer-cli profile: --iters must be a whole number, 1 or more";
        QTest::addRow("--warmup") << QStringList{"compare", kDemoModel, "--warmup", "-2"}
                                  << "pyrometer-cli compare: --warmup must be a whole number, 0 or more";
        QTest::addRow("--batches") << QStringList{"sweep", kDemoModel, "--batches", "1,0"}
                                   << "pyrometer-cli sweep: --batches must be a whole number, 1 or more (not \"0\")";
        QTest::addRow("not a number") << QStringList{"diff", kCpu, kCpu, "--fail-if-slower", "lots"}
                                      << "pyrometer-cli diff: --fail-if-slower must be a number (not \"lots\")";
        QTest::addRow("misspelt option") << QStringList{"ops", kCpu, "--bye", "name"} << "pyrometer-cli ops: unknown option --bye; did you mean --by?";
        QTest::addRow("missing trace") << QStringList{"steps"} << "pyrometer-cli steps: TRACE is required";
    }
    void badArgumentsAreNamed()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, says);
        const auto run = runCli(arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.startsWith(says), qPrintable(run.err));
        QCOMPARE(run.err.count('\n'), 1);
        QVERIFY2(run.out.isEmpty(), qPrintable(run.out));
    }

    void bytesInWordsInTablesAndRawInCsv()
    {
        // The H100 trace records memory: its ops table has the four memory columns, some negative.
        const QStringList memoryColumns{"self cpu mem", "cpu mem", "self device mem", "device mem"};
        const auto csvRun = runCli({"ops", kH100, "--format", "csv"});
        auto csv = parseCsv(csvRun.out);
        QVERIFY2(csv.size() > 1, qPrintable(csvRun.err));
        const auto header = csv.takeFirst();
        const auto table = readTable(runCli({"ops", kH100}, "250").out, int(csv.size()));
        QCOMPARE(table.header, header);
        static const QRegularExpression words(QStringLiteral(R"(^-?\d+(\.\d+)? (B|KiB|MiB|GiB)$)"));
        static const QRegularExpression raw(QStringLiteral(R"(^-?\d+$)"));
        bool negative = false, large = false;
        for (const auto &name : memoryColumns) {
            const auto c = header.indexOf(name);
            QVERIFY2(c >= 0, qPrintable(name));
            for (int r = 0; r < csv.size(); ++r) {
                const auto &shown = table.rows[r][c];
                QVERIFY2(words.match(shown).hasMatch(), qPrintable(name + ": " + shown));
                QVERIFY2(raw.match(csv[r][c]).hasMatch(), qPrintable(name + ": " + csv[r][c]));
                QVERIFY2(shows(shown, csv[r][c]), qPrintable(shown + " vs " + csv[r][c]));
                QCOMPARE(shown.startsWith('-'), csv[r][c].startsWith('-'));
                negative = negative || shown.startsWith('-');
                large = large || shown.endsWith("MiB");
            }
        }
        QVERIFY(negative && large);
        // memory: the peak in words in the table, in bytes in csv.
        auto peaks = parseCsv(runCli({"memory", kH100, "--format", "csv"}).out);
        QVERIFY(peaks.size() > 1);
        const auto peakHeader = peaks.takeFirst();
        const auto peakTable = readTable(runCli({"memory", kH100}, "200").out, int(peaks.size()));
        const auto column = peakHeader.indexOf("peak bytes");
        const auto shown = peakTable.header.indexOf("peak bytes");
        QVERIFY(column >= 0 && shown >= 0 && !peaks.isEmpty());
        for (int r = 0; r < peaks.size(); ++r) {
            QVERIFY2(raw.match(peaks[r][column]).hasMatch(), qPrintable(peaks[r][column]));
            QVERIFY2(words.match(peakTable.rows[r][shown]).hasMatch(), qPrintable(peakTable.rows[r][shown]));
            QVERIFY(shows(peakTable.rows[r][shown], peaks[r][column]));
        }
    }

    void aLogFolderNamesTheFileItReads()
    {
        const QString folder = kTraces + "tb_logdir";
        const QString newest = "resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz";
        const auto run = runCli({"steps", folder, "--format", "csv"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.err, "pyrometer-cli: reading " + newest + " (run 'resnet50_num_workers_0'; the newest of 2 spans)\n");
        // stdout holds the csv only: the same as reading that file itself, which says nothing.
        const auto direct = runCli({"steps", folder + "/" + newest, "--format", "csv"});
        QCOMPARE(run.out, direct.out);
        QVERIFY(direct.err.isEmpty());
        QVERIFY(run.out.startsWith("step,duration us,"));
    }
};

QTEST_GUILESS_MAIN(TestCliTerminal)
#include "tst_cli_terminal.moc"
