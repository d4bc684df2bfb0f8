// The Compare page with pruning variants scored on labelled data saved by torch.save (the
// fixture's classifier and its 40-sample set), and the Model page running on that data: the
// accuracy columns show where there is data, energy says it is unavailable rather than 0,
// and the page is grabbed (pyrometer-compare-pruning.png) for a look.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>

#include "ui/compare/comparepage.h"
#include "ui/model/modelpage.h"
#include "ui/model/profileresultsview.h"
#include "ui/model/profilerun.h"
#include "ui/model/sweepview.h"
#include "ui/report/pagesections.h"
#include "ui/workspace/workspace.h"

#include "../../labelledfacts.h"
#include "comparetestutil.h"

using namespace pyrometer;
using namespace pyrometer::ui;
using namespace pyrometer::ui::testing;
using pyrometer::testing::expectedScores;

namespace {

const QString kClassifier = QStringLiteral(PYROMETER_TEST_MODELS_DIR "/classifier.pt");

} // namespace

class TestComparePruning : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("PyrometerTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_comparepruning"));
        QSettings().clear();
        QVERIFY2(QFile::exists(kClassifier), qPrintable(kClassifier));
        QVERIFY(!expectedScores("baseline").isEmpty());
    }

    // Data named relative to the model's folder, as a user types it.
    void comparePageScoresVariantsOnTheData()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        ComparePage page(&workspace, &jobs);
        page.resize(2100, 820);
        page.show();
        QAbstractItemModelTester tester(page.variantsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        workspace.openModel(kClassifier);
        QVERIFY(waitIdle(jobs));

        // Without data the accuracy columns stay hidden.
        page.variantsEdit()->setText(QStringLiteral("baseline,prune_l1=0.5"));
        page.iterationsSpin()->setValue(3);
        page.runVariantsButton()->click();
        QVERIFY(waitIdle(jobs));
        QVERIFY(page.variantsView()->isColumnHidden(kAgreementColumn));
        QVERIFY(page.variantsView()->isColumnHidden(kAccuracyColumn));

        page.inputsEdit()->setText(QStringLiteral("classifier_inputs.pt, classifier_labels.pt"));
        page.variantsEdit()->setText(QStringLiteral("baseline,prune_l1=0.5,prune_channels=0.3,frozen"));
        page.runVariantsButton()->click();
        QVERIFY(waitIdle(jobs));
        const auto &rows = page.variantsModel()->rows();
        QCOMPARE(rows.size(), std::size_t(4));
        for (const auto &row : rows) {
            QVERIFY2(row.ok(), row.error.c_str());
            if (row.name == "frozen")
                continue; // folded batch norms: no expected counts, but scored all the same
            QCOMPARE(row.accuracy,
                     std::optional<double>(expectedScores(QString::fromStdString(row.name)).value("correct").toInt() /
                                           40.0));
            QCOMPARE(row.agreement,
                     std::optional<double>(expectedScores(QString::fromStdString(row.name)).value("agreeing").toInt() /
                                           40.0));
        }
        QVERIFY(rows[3].agreement.has_value());
        for (const int column : {kAccuracyColumn, kAccuracyChangeColumn, kAgreementColumn})
            QVERIFY(!page.variantsView()->isColumnHidden(column));
        const QString status = page.variantsStatus()->text();
        QVERIFY2(status.startsWith(QStringLiteral("Inputs 8x3x16x16, as typed. Accuracy on 40 samples of ")),
                 qPrintable(status));
        QVERIFY2(status.contains(QStringLiteral("Energy")), qPrintable(status));
        // Energy is a figure or "unavailable" with the reason above: never 0.
        const bool energy = !status.contains(QStringLiteral("Energy: unavailable: "));
        for (int row = 0; row < page.variantsModel()->rowCount(); ++row) {
            const auto cell = page.variantsModel()->index(row, 4).data().toString();
            QVERIFY2(energy ? cell.toDouble() > 0 : cell == QStringLiteral("unavailable"), qPrintable(cell));
        }
        // The pruned variants keep their modules: the per-layer table compares them layer by layer.
        page.layerVariantCombo()->setCurrentText(QStringLiteral("prune_channels=0.3"));
        QVERIFY(page.layerModel()->rowCount() >= 7);
        // The report takes the table as shown, accuracy columns included.
        const auto sections = compareSections(page);
        QVERIFY(!sections.empty());
        const auto &header = sections[0].tables[0].header;
        QVERIFY(std::find(header.begin(), header.end(), "Top-1 accuracy") != header.end());
        QVERIFY(std::find(header.begin(), header.end(), "mJ/inference") != header.end());

        page.variantsView()->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
        QTest::qWait(50);
        QVERIFY(page.grab().save(screenshotPath("compare-pruning")));

        // A labels file with one label too few: the job fails and says which file.
        page.inputsEdit()->setText(QStringLiteral("classifier_inputs.pt, data/labels_short.pt"));
        page.runVariantsButton()->click();
        QVERIFY(waitIdle(jobs));
        QVERIFY2(
            page.variantsStatus()->text().contains(QStringLiteral("labels_short.pt: 39 labels for the 40 samples")),
            qPrintable(page.variantsStatus()->text()));
    }

    // The Model page's Inputs field takes the data too: the profile runs at its shapes, and
    // the Compare page, its own field empty, scores the variants on it.
    void modelPageRunsOnTheData()
    {
        JobTracker jobs;
        Workspace workspace(&jobs);
        ModelPage model(&workspace, &jobs);
        ComparePage compare(&workspace, &jobs);
        compare.setFallbackInputs([&](const QString &) { return model.inputsEdit()->text(); });
        workspace.openModel(kClassifier);
        QVERIFY(waitIdle(jobs));
        model.inputsEdit()->setText(QStringLiteral("classifier_inputs.pt, classifier_labels.pt"));
        model.iterationsSpin()->setValue(2);
        model.warmupSpin()->setValue(0);
        model.runButton()->click();
        QVERIFY(waitIdle(jobs));
        QVERIFY(model.results()->run());
        QCOMPARE(model::formatInputSpecs(model.results()->run()->latency.inputs), std::string("32x3x16x16"));
        compare.variantsEdit()->setText(QStringLiteral("baseline,prune_channels=0.3"));
        compare.iterationsSpin()->setValue(2);
        compare.runVariantsButton()->click();
        QVERIFY(waitIdle(jobs));
        QCOMPARE(compare.variantsModel()->rowCount(), 2);
        QCOMPARE(compare.variantsModel()->rows()[1].agreement,
                 std::optional<double>(expectedScores("prune_channels=0.3").value("agreeing").toInt() / 40.0));
        QVERIFY(compare.variantsStatus()->text().contains(QStringLiteral("from the Model page's Inputs field")));
        // The Sweep tab sweeps the data's shapes, its first dimension the batch.
        auto *sweep = model.sweepView();
        sweep->batchesEdit()->setText(QStringLiteral("1,2"));
        sweep->variantsEdit()->setText(QStringLiteral("prune_channels=0.3"));
        sweep->iterationsSpin()->setValue(1);
        sweep->runButton()->click();
        QVERIFY(waitIdle(jobs));
        QVERIFY(sweep->report());
        QCOMPARE(model::formatInputSpecs(sweep->report()->inputs), std::string("Bx3x16x16"));
        QCOMPARE(sweep->pointsModel()->rowCount(), 2);
    }
};

QTEST_MAIN(TestComparePruning)
#include "tst_comparepruning.moc"
