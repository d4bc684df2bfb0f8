// Preferences: stored and read back, applied to the window (theme, durations, timeline
// colours and wheel, the Model page's defaults), and the View menu's wheel item in sync.
#include "ui/model/modelpage.h"
#include "ui/overview/overviewpage.h"
#include "ui/shell/mainwindow.h"
#include "ui/shell/preferences.h"
#include "ui/shell/preferencesdialog.h"
#include "ui/jobs/jobtracker.h"
#include "ui/timeline/timelineindex.h"
#include "ui/timeline/timelinepage.h"

#include "core/trace/trace.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QLabel>
#include <QComboBox>
#include <QDir>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>
#include <QTextBrowser>

using namespace pyrometer;
using namespace pyrometer::ui;

namespace {

// PYROMETER_SCREENSHOT_DIR set: the dialog is saved there as PNG, to look at.
void maybeGrab(QWidget &widget, const QString &name)
{
    const QString dir = qEnvironmentVariable("PYROMETER_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return;
    QDir().mkpath(dir);
    widget.grab().save(dir + QLatin1Char('/') + name);
}

Preferences nonDefault()
{
    Preferences p;
    p.theme = Theme::Dark;
    p.timeUnit = TimeUnit::Milliseconds;
    p.colorMode = timeline::ColorMode::ByName;
    p.wheelZooms = false;
    p.warmup = 3;
    p.iterations = 7;
    return p;
}

} // namespace

class TestPreferences : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("PyrometerTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_preferences"));
    }

    void init() { QSettings().clear(); }
    void cleanup()
    {
        applyTheme(Theme::System);
        setDisplayTimeUnit(TimeUnit::Auto);
    }

    void storedAndReadBack()
    {
        QCOMPARE(Preferences::load(QSettings()), Preferences{});
        QSettings settings;
        nonDefault().save(settings);
        QCOMPARE(Preferences::load(QSettings()), nonDefault());
        // Out-of-range values from a hand-edited file are clamped.
        settings.setValue(QStringLiteral("model/iterations"), -4);
        QCOMPARE(Preferences::load(QSettings()).iterations, 1);
    }

    void dialogShowsAndReturnsThePreferences()
    {
        PreferencesDialog dialog(nonDefault());
        QCOMPARE(dialog.preferences(), nonDefault());
        QCOMPARE(dialog.themeCombo()->currentText(), QStringLiteral("Dark"));
        QVERIFY(!dialog.wheelCheck()->isChecked());
        dialog.warmupSpin()->setValue(12);
        dialog.timeUnitCombo()->setCurrentIndex(dialog.timeUnitCombo()->findData(int(TimeUnit::Microseconds)));
        QCOMPARE(dialog.preferences().warmup, 12);
        QCOMPARE(dialog.preferences().timeUnit, TimeUnit::Microseconds);
        dialog.setPreferences(Preferences{});
        QCOMPARE(dialog.preferences(), Preferences{});
    }

    void preferencesApplyToTheWindow()
    {
        QSettings settings;
        nonDefault().save(settings);
        MainWindow window; // reads them at start
        auto *timeline = qobject_cast<timeline::TimelinePage *>(window.pageWidget(Page::Timeline));
        auto *model = qobject_cast<ModelPage *>(window.pageWidget(Page::Model));
        QCOMPARE(model->warmupSpin()->value(), 3);
        QCOMPARE(model->iterationsSpin()->value(), 7);
        QVERIFY(!window.wheelZoomsAction()->isChecked());
        QVERIFY(!timeline->view()->wheelZooms());
        QCOMPARE(timeline->view()->colorMode(), timeline::ColorMode::ByName);
        QCOMPARE(displayTimeUnit(), TimeUnit::Milliseconds);
        QCOMPARE(displayDuration(2'500'000), QStringLiteral("2.50 ms"));
        QCOMPARE(displayDuration(25'000), QStringLiteral("0.0250 ms"));
        QVERIFY(paletteIsDark());
        // Dark stays readable: text contrasts with its background.
        const QPalette palette = QApplication::palette();
        QVERIFY(palette.color(QPalette::Text).lightness() - palette.color(QPalette::Base).lightness() > 150);
        QVERIFY(palette.color(QPalette::WindowText).lightness() - palette.color(QPalette::Window).lightness() > 150);

        Preferences light = nonDefault();
        light.theme = Theme::Light;
        light.warmup = 20;
        light.iterations = 100;
        light.wheelZooms = true;
        window.applyPreferences(light);
        QVERIFY(!paletteIsDark());
        QCOMPARE(model->warmupSpin()->value(), 20);
        QCOMPARE(model->iterationsSpin()->value(), 100);
        QVERIFY(window.wheelZoomsAction()->isChecked());
        QVERIFY(timeline->view()->wheelZooms());

        // The Overview's figures follow the unit: the demo's 10 ms-scale span in µs, then as
        // chosen automatically again.
        window.openDemo();
        QVERIFY(QTest::qWaitFor([&] { return window.jobs()->isIdle(); }, 60'000));
        auto *overview = qobject_cast<OverviewPage *>(window.pageWidget(Page::Overview));
        light.timeUnit = TimeUnit::Microseconds;
        window.applyPreferences(light);
        QVERIFY2(overview->headline()->text().contains(QStringLiteral(" µs")), qPrintable(overview->headline()->text()));
        QVERIFY(!overview->headline()->text().contains(QStringLiteral(" ms<")));
        QVERIFY(overview->summaryHtml().contains(QStringLiteral(" µs")));
        light.timeUnit = TimeUnit::Milliseconds;
        window.applyPreferences(light);
        QVERIFY2(overview->headline()->text().contains(QStringLiteral(" ms")), qPrintable(overview->headline()->text()));
        QVERIFY(!overview->headline()->text().contains(QStringLiteral(" µs")));
    }

    void viewMenuWheelItemAndPreferencesStayInSync()
    {
        MainWindow window;
        auto *timeline = qobject_cast<timeline::TimelinePage *>(window.pageWidget(Page::Timeline));
        QVERIFY(window.wheelZoomsAction()->isChecked());
        // The menu item changes the stored preference...
        window.wheelZoomsAction()->trigger();
        QVERIFY(!timeline->view()->wheelZooms());
        QCOMPARE(Preferences::load(QSettings()).wheelZooms, false);
        PreferencesDialog dialog(Preferences::load(QSettings()));
        QVERIFY(!dialog.wheelCheck()->isChecked());
        // ...and the preference changes the menu item.
        Preferences p = Preferences::load(QSettings());
        p.wheelZooms = true;
        window.applyPreferences(p);
        QVERIFY(window.wheelZoomsAction()->isChecked());
        QVERIFY(timeline->view()->wheelZooms());
        QCOMPARE(QSettings().value(kWheelZoomsKey).toBool(), true);
    }

    void timelineRangeDurationsFollowTheUnit()
    {
        QSettings settings;
        Preferences p;
        p.timeUnit = TimeUnit::Nanoseconds;
        p.save(settings);
        MainWindow window;
        window.openPaths({QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/mi250_minitoy_train_ROCm6_2_kineto.json.gz")});
        auto *timeline = qobject_cast<timeline::TimelinePage *>(window.pageWidget(Page::Timeline));
        QVERIFY(QTest::qWaitFor([&] { return window.jobs()->isIdle() && timeline->view()->index(); }, 30'000));
        const auto start = double(timeline->view()->index()->trace->info.spanStart);
        timeline->view()->selectRange(start, start + 2'000'000);
        QVERIFY(QTest::qWaitFor([&] { return window.jobs()->isIdle(); }, 30'000));
        const QString details = timeline->details()->toPlainText();
        QVERIFY2(details.contains(QStringLiteral("2000000 ns")), qPrintable(details));
        QVERIFY2(!details.contains(QStringLiteral(" ms")) && !details.contains(QStringLiteral("\u00b5s")), qPrintable(details));
    }

    void screenshotsLightAndDark()
    {
        for (const auto theme : {Theme::Light, Theme::Dark}) {
            applyTheme(theme);
            Preferences p = nonDefault();
            p.theme = theme;
            PreferencesDialog dialog(p);
            dialog.resize(dialog.sizeHint());
            dialog.show();
            QVERIFY(QTest::qWaitForWindowExposed(&dialog));
            const QImage image = dialog.grab().toImage();
            QVERIFY(!image.isNull());
            // The dialog's background follows the theme.
            const QColor corner = image.pixelColor(2, 2);
            QCOMPARE(corner.lightness() < 128, theme == Theme::Dark);
            maybeGrab(dialog, theme == Theme::Dark ? QStringLiteral("preferences-dark.png") : QStringLiteral("preferences-light.png"));
        }
    }
};

QTEST_MAIN(TestPreferences)
#include "tst_preferences.moc"
