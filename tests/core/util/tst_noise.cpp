// Confidence intervals worked out by hand (and against Student's t table): a mean's, a ratio of
// two means', and when a difference is within noise.
#include "core/util/noise.h"

#include <QTest>

#include <cmath>

using namespace pyrometer;

class TestNoise : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void studentsTable()
    {
        // Two-sided 95% quantiles from the table (scipy.stats.t.ppf(0.975, df)).
        const std::pair<double, double> table[] = {{1, 12.7062}, {2, 4.3027},   {4, 2.7764},
                                                   {9, 2.2622},  {10, 2.2281},  {15, 2.1314},
                                                   {30, 2.0423}, {100, 1.9840}, {1e6, 1.9600}};
        for (const auto &[df, t] : table)
            QVERIFY2(std::abs(studentT975(df) - t) < 5e-4, qPrintable(QString::number(df)));
        // Fractional degrees (Welch's) lie between their neighbours.
        QVERIFY(studentT975(4.5) < studentT975(4) && studentT975(4.5) > studentT975(5));
    }

    // 10, 12, 14, 16, 18: mean 14, s = sqrt(40 / 4) = 3.162, t(4) = 2.776: 14 ± 3.926.
    void meanOfFiveRuns()
    {
        const auto sample = sampleOf({10, 12, 14, 16, 18});
        QCOMPARE(sample.n, std::size_t(5));
        QCOMPARE(sample.mean, 14.0);
        QCOMPARE(sample.std, std::sqrt(10.0));
        const auto ci = meanInterval(sample);
        QVERIFY(ci);
        const double half = 2.776445 * std::sqrt(10.0) / std::sqrt(5.0);
        QVERIFY(std::abs(ci->low - (14 - half)) < 1e-9);
        QVERIFY(std::abs(ci->high - (14 + half)) < 1e-9);
        QVERIFY(!meanInterval(sampleOf({3})));
    }

    // A baseline of mean 64 ms, s 25 over 10 runs against a variant of 45 ms, s 25 over 10: the
    // speedup 1.42 reads big, yet each mean's log varies by 25²/(10·64²) = 0.01526 and
    // 25²/(10·45²) = 0.03086; se 0.2148 over Welch's 16.2 degrees (t 2.118): 1.42 × e^±0.455,
    // 0.90 to 2.24, which holds 1: within noise. The same means over 1000 runs with s 5 are not.
    void speedupWithinNoise()
    {
        const Sample base{64, 25, 10};
        const Sample variant{45, 25, 10};
        const auto ratio = ratioInterval(base, variant);
        QVERIFY(ratio);
        const double a = 25.0 * 25 / (10 * 64.0 * 64);
        const double b = 25.0 * 25 / (10 * 45.0 * 45);
        const double df = (a + b) * (a + b) / (a * a / 9 + b * b / 9);
        QVERIFY(std::abs(df - 16.15) < 0.01);
        const double half = studentT975(df) * std::sqrt(a + b);
        QVERIFY(std::abs(ratio->low - 64.0 / 45 * std::exp(-half)) < 1e-9);
        QVERIFY(std::abs(ratio->high - 64.0 / 45 * std::exp(half)) < 1e-9);
        QVERIFY(ratio->low < 1 && ratio->high > 2);
        QVERIFY(withinNoise(ratio));
        QVERIFY(QString::fromStdString(ratioText(64.0 / 45, ratio)).endsWith(QStringLiteral(", within noise)")));

        const auto tight = ratioInterval({64, 5, 1000}, {45, 5, 1000});
        QVERIFY(tight && tight->low > 1.4 && tight->high < 1.45);
        QVERIFY(!withinNoise(tight));
        // Without repeated runs there is nothing to say, and nothing is within noise.
        QVERIFY(!ratioInterval({64, 0, 1}, {45, 0, 1}));
        QVERIFY(!withinNoise(std::nullopt));
        QCOMPARE(ratioText(1.5, std::nullopt), std::string("1.50\u00d7"));
    }
};

QTEST_APPLESS_MAIN(TestNoise)
#include "tst_noise.moc"
