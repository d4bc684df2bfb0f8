#include "core/trace/timestamp.h"

#include <QtTest>

using namespace pyrometer::trace;

class TestTimestamp : public QObject {
    Q_OBJECT
private slots:
    void microsToNanos_data()
    {
        QTest::addColumn<QString>("literal");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<qint64>("nanos");
        QTest::addRow("integer") << "12" << true << qint64(12000);
        QTest::addRow("zero") << "0" << true << qint64(0);
        QTest::addRow("three decimals") << "1.234" << true << qint64(1234);
        QTest::addRow("epoch us keeps ns") << "1712195495519689.047" << true << qint64(1712195495519689047);
        QTest::addRow("epoch us, one decimal") << "1695835542481129.5" << true << qint64(1695835542481129500);
        QTest::addRow("rounds half up") << "0.0005" << true << qint64(1);
        QTest::addRow("rounds down") << "0.0004999" << true << qint64(0);
        QTest::addRow("negative") << "-2.5" << true << qint64(-2500);
        QTest::addRow("exponent") << "1.5e3" << true << qint64(1500000);
        QTest::addRow("negative exponent") << "15E-1" << true << qint64(1500);
        QTest::addRow("tiny") << "1e-9" << true << qint64(0);
        QTest::addRow("trailing blanks") << "42 \n" << true << qint64(42000);
        QTest::addRow("int64 overflow") << "9223372036854775808" << false << qint64(0);
        QTest::addRow("NaN") << "NaN" << false << qint64(0);
        QTest::addRow("Infinity") << "Infinity" << false << qint64(0);
        QTest::addRow("string") << "\"12\"" << false << qint64(0);
        QTest::addRow("leading zero") << "012" << false << qint64(0);
        QTest::addRow("lone dot") << "1." << false << qint64(0);
        QTest::addRow("empty") << "" << false << qint64(0);
        QTest::addRow("huge exponent") << "1e999999" << false << qint64(0);
    }
    void microsToNanos()
    {
        QFETCH(QString, literal);
        QFETCH(bool, valid);
        QFETCH(qint64, nanos);
        const auto result = pyrometer::trace::microsToNanos(literal.toStdString());
        QCOMPARE(result.has_value(), valid);
        if (valid)
            QCOMPARE(qint64(*result), nanos);
    }

    void parseInteger_data()
    {
        QTest::addColumn<QString>("literal");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<qint64>("value");
        QTest::addRow("plain") << "25738" << true << qint64(25738);
        QTest::addRow("negative") << "-1" << true << qint64(-1);
        QTest::addRow("min") << "-9223372036854775808" << true << std::numeric_limits<qint64>::min();
        QTest::addRow("overflow") << "9223372036854775808" << false << qint64(0);
        QTest::addRow("fraction") << "1.5" << false << qint64(0);
        QTest::addRow("text") << "stream 7" << false << qint64(0);
        QTest::addRow("sign only") << "-" << false << qint64(0);
    }
    void parseInteger()
    {
        QFETCH(QString, literal);
        QFETCH(bool, valid);
        QFETCH(qint64, value);
        const auto result = pyrometer::trace::parseInteger(literal.toStdString());
        QCOMPARE(result.has_value(), valid);
        if (valid)
            QCOMPARE(qint64(*result), value);
    }
};

QTEST_GUILESS_MAIN(TestTimestamp)
#include "tst_timestamp.moc"
