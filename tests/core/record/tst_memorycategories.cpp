// Memory files that are damaged: a field of the wrong type, a number out of its range, sizes
// whose sums overflow. Each is an Error naming the file, never an exception or undefined
// behaviour (found by fuzzing: tests/fuzz/fuzz_memory.cpp).
#include "core/record/memorycategories.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace pyrometer;
using namespace pyrometer::record;

class TestMemoryCategories : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void damagedFilesAreErrors_data();
    void damagedFilesAreErrors();
    void floatsAndLargeSizesInRangeRead();
};

void TestMemoryCategories::damagedFilesAreErrors_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("error");
    const QByteArray sample = R"("categories": ["parameters", "other"], "samples": [{"t": 0.5, "bytes": [1, 2]}])";
    QTest::addRow("format a string") << QByteArray(R"({"format": "1", "categories": [], "samples": []})")
                                     << "unknown memory file format \"1\"";
    QTest::addRow("format out of range") << QByteArray(R"({"format": 1e300, "categories": [], "samples": []})")
                                         << "unknown memory file format";
    QTest::addRow("source a number") << QByteArray(R"({"format": 1, "source": 5, )" + sample + "}")
                                     << "a damaged memory file";
    QTest::addRow("baseline out of range") << QByteArray(R"({"format": 1, "baseline_bytes": 1e300, )" + sample + "}")
                                           << "baseline_bytes is not an integer";
    QTest::addRow("time a string")
        << QByteArray(R"({"format": 1, "categories": ["other"], "samples": [{"t": "x", "bytes": [1]}]})")
        << "a damaged memory file";
    QTest::addRow("step out of range")
        << QByteArray(R"({"format": 1, "categories": ["other"], "samples": [{"step": 1e300, "bytes": [1]}]})")
        << "sample 0: its step is not a number of steps";
    QTest::addRow("phase a list")
        << QByteArray(R"({"format": 1, "categories": ["other"], "samples": [{"phase": [], "bytes": [1]}]})")
        << "a damaged memory file";
    QTest::addRow("size out of range")
        << QByteArray(R"({"format": 1, "categories": ["other"], "samples": [{"bytes": [1e300]}]})")
        << "sample 0: a size out of range";
    QTest::addRow("size past int64")
        << QByteArray(R"({"format": 1, "categories": ["other"], "samples": [{"bytes": [18446744073709551615]}]})")
        << "sample 0: a size out of range";
    // Two columns of one category (unknown names count as other) whose sum overflows.
    QTest::addRow("category sum overflows")
        << QByteArray(R"({"format": 1, "categories": ["a", "b"], "samples": [{"bytes": [9223372036854775807, 1]}]})")
        << "sample 0: a size out of range";
    // Categories that fit, whose total does not.
    QTest::addRow("total overflows")
        << QByteArray(
               R"({"format": 1, "categories": ["parameters", "gradients"], "samples": [{"bytes": [9223372036854775807, 1]}]})")
        << "sample 0: a size out of range";
}

void TestMemoryCategories::damagedFilesAreErrors()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, error);
    QTemporaryDir dir;
    const auto path = dir.filePath("x.pt.memory.json");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text);
    file.close();
    const auto read = loadMemoryCategories(path.toStdString());
    QVERIFY(!read);
    const auto message = QString::fromStdString(read.error().message);
    QVERIFY2(message.startsWith(path + ": "), qPrintable(message));
    QVERIFY2(message.contains(error), qPrintable(message));
}

void TestMemoryCategories::floatsAndLargeSizesInRangeRead()
{
    QTemporaryDir dir;
    const auto path = dir.filePath("x.pt.memory.json");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"format": 1.0, "baseline_bytes": 2048.0, "categories": ["parameters", "other"],
                  "samples": [{"t": 1, "step": 3.0, "profiler_step": 4, "bytes": [4096.0, 4611686018427387904]}]})");
    file.close();
    const auto read = loadMemoryCategories(path.toStdString());
    QVERIFY2(read, read ? "" : read.error().message.c_str());
    QCOMPARE(read->baselineBytes, 2048);
    QCOMPARE(read->samples.size(), std::size_t(1));
    QCOMPARE(read->samples[0].step, 3);
    QCOMPARE(read->samples[0].profilerStep, 4);
    QCOMPARE(read->samples[0].bytes[std::size_t(MemoryCategory::Parameters)], 4096);
    QCOMPARE(read->samples[0].total(), std::int64_t(4611686018427387904) + 4096);
}

QTEST_GUILESS_MAIN(TestMemoryCategories)
#include "tst_memorycategories.moc"
