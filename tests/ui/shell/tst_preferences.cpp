// Preferences: stored and read back, applied to the window (theme, durations, timeline
// colours and wheel, the Model page's defaults), and the View menu's wheel item in sync.
#include "core/engine/engine.h"
#include "ui/jobs/jobtracker.h"
#include "ui/model/latencyhistogram.h"
#include "ui/model/modelpage.h"
#include "ui/overview/overviewpage.h"
#include "ui/plots/memorycurveplot.h"
#include "ui/plots/sweepplots.h"
#include "ui/record/recordsettings.h"
#include "ui/shell/contrast.h"
#include "ui/shell/mainwindow.h"
#include "ui/shell/preferences.h"
#include "ui/shell/preferencesdialog.h"
#include "ui/timeline/timelineindex.h"
#include "ui/timeline/timelinepage.h"

#include "core/trace/trace.h"
#include "tests/ui/maybegrab.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStyleOptionButton>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

#include <qcustomplot.h>

using namespace pyrometer;
using namespace pyrometer::ui;

namespace {

Preferences nonDefault()
{
    Preferences p;
    p.theme = Theme::Dark;
    p.timeUnit = TimeUnit::Milliseconds;
    p.colorMode = timeline::ColorMode::ByName;
    p.wheelZooms = false;
    p.warmup = 3;
    p.iterations = 7;
    p.python = QStringLiteral("/opt/venv/bin/python");
    return p;
}

// The pixels of image within tolerance (the sum of the channels' differences) of color.
int pixelsNear(const QImage &image, const QColor &color, int tolerance)
{
    int near = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            near += std::abs(c.red() - color.red()) + std::abs(c.green() - color.green()) +
                        std::abs(c.blue() - color.blue()) <
                    tolerance;
        }
    return near;
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

    // The interpreter is one setting: Preferences', the Record dialog's and the Model page's.
    void oneInterpreterSetting()
    {
        QCOMPARE(chosenPython(QSettings()),
                 QString::fromStdString(engine::defaultPython())); // python3, or $PYROMETER_PYTHON
        QSettings settings;
        nonDefault().save(settings);
        QCOMPARE(chosenPython(QSettings()), QStringLiteral("/opt/venv/bin/python"));
        const auto record = RecordSettings::load(QSettings());
        QCOMPARE(record.options.python, std::string("/opt/venv/bin/python"));
        QCOMPARE(record.interpreters.front(), QStringLiteral("/opt/venv/bin/python"));
        choosePython(settings, QStringLiteral("/usr/bin/python3"));
        QCOMPARE(Preferences::load(QSettings()).python, QStringLiteral("/usr/bin/python3"));
        QCOMPARE(RecordSettings::load(QSettings()).interpreters,
                 QStringList({QStringLiteral("/usr/bin/python3"), QStringLiteral("/opt/venv/bin/python")}));
        // An empty field in Preferences keeps the choice.
        Preferences cleared = nonDefault();
        cleared.python.clear();
        cleared.save(settings);
        QCOMPARE(chosenPython(QSettings()), QStringLiteral("/usr/bin/python3"));
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

    void contrastIsWcags()
    {
        QCOMPARE(contrastRatio(Qt::black, Qt::white), 21.0);
        QCOMPARE(contrastRatio(Qt::white, Qt::white), 1.0);
        // #555 on #2C2E32, the dark window's grey text of old: about 1.8:1.
        QVERIFY(qAbs(contrastRatio(QColor(0x55, 0x55, 0x55), QColor(0x2c, 0x2e, 0x32)) - 1.8) < 0.1);
        // Made readable, a dark blue on the dark window reaches 4.5:1 and stays blue.
        const QColor blue = readableOn(QColor(0x15, 0x65, 0xc0), QColor(0x2d, 0x2f, 0x33));
        QVERIFY(contrastRatio(blue, QColor(0x2d, 0x2f, 0x33)) >= kTextContrast);
        QVERIFY(blue.blue() > blue.red() && blue.blue() > blue.green());
        QCOMPARE(readableOn(Qt::black, Qt::white), QColor(Qt::black)); // enough already
    }

    void secondaryTextAndControlsContrast_data()
    {
        QTest::addColumn<int>("themeValue");
        QTest::addRow("light") << int(Theme::Light);
        QTest::addRow("dark") << int(Theme::Dark);
    }
    void secondaryTextAndControlsContrast()
    {
        QFETCH(int, themeValue);
        const auto theme = Theme(themeValue);
        applyTheme(theme);
        const QPalette p = QApplication::palette();
        for (const auto background : {QPalette::Window, QPalette::Base, QPalette::AlternateBase}) {
            // WCAG AA: 4.5:1 for text, placeholders and captions included, on every background.
            QVERIFY2(contrastRatio(p.color(QPalette::PlaceholderText), p.color(background)) >= kTextContrast,
                     qPrintable(QString::number(contrastRatio(p.color(QPalette::PlaceholderText), p.color(background)))));
            QVERIFY(contrastRatio(p.color(QPalette::Text), p.color(background)) >= 7);
            QVERIFY(contrastRatio(p.color(QPalette::WindowText), p.color(background)) >= 7);
        }
        QCOMPARE(p.color(QPalette::PlaceholderText).alpha(), 255);
        // Controls' outlines (Mid) 3:1 against the window, and button text on buttons.
        QVERIFY(contrastRatio(p.color(QPalette::Mid), p.color(QPalette::Window)) >= kGraphicContrast);
        QVERIFY(contrastRatio(p.color(QPalette::ButtonText), p.color(QPalette::Button)) >= kTextContrast);

        // A check box as drawn: its outline is the palette's Mid, not a shade of the window.
        QWidget host;
        host.setAutoFillBackground(true);
        auto *box = new QCheckBox(QStringLiteral("Regex"), &host);
        box->move(10, 10);
        box->resize(box->sizeHint());
        host.resize(200, 60);
        const QImage image = host.grab().toImage();
        QStyleOptionButton option;
        option.initFrom(box);
        const QRect indicator = box->style()->subElementRect(QStyle::SE_CheckBoxIndicator, &option, box).translated(box->pos());
        const QColor border = image.pixelColor(indicator.left(), indicator.center().y());
        QVERIFY2(contrastRatio(border, p.color(QPalette::Window)) >= kGraphicContrast,
                 qPrintable(border.name() + QStringLiteral(" on ") + p.color(QPalette::Window).name()));
        maybeGrab(host, theme == Theme::Dark ? QStringLiteral("checkbox-dark.png") : QStringLiteral("checkbox-light.png"));
    }

    // A details pane's links, set in one theme, take the other's link colour when it changes at
    // runtime (Qt gives a link its colour when the text is set); a link of its own colour keeps it.
    void linksFollowTheTheme()
    {
        applyTheme(Theme::Light);
        QWidget host;
        QTextBrowser pane(&host);
        pane.setHtml(QStringLiteral("<p><a href=\"step:1\">ProfilerStep#1 in the Timeline</a> and "
                                    "<a href=\"x\" style=\"color:#c0392b\">its own colour</a></p>"));
        pane.resize(420, 80);
        host.resize(420, 80);
        host.show();
        QVERIFY(QTest::qWaitForWindowExposed(&host));
        const auto linkColors = [&pane] {
            std::vector<QColor> colors;
            for (auto block = pane.document()->begin(); block != pane.document()->end(); block = block.next())
                for (auto it = block.begin(); !it.atEnd(); ++it)
                    if (it.fragment().charFormat().isAnchor())
                        colors.push_back(it.fragment().charFormat().foreground().color());
            return colors;
        };
        // Pixels near the link colour in the pane as drawn.
        const auto drawnIn = [&pane](const QColor &color) { return pixelsNear(pane.grab().toImage(), color, 30); };
        const QColor lightLink = QApplication::palette().color(QPalette::Link);
        QCOMPARE(linkColors().front(), lightLink);
        applyTheme(Theme::Dark);
        const QColor darkLink = QApplication::palette().color(QPalette::Link);
        QVERIFY(darkLink != lightLink);
        const auto colors = linkColors();
        QCOMPARE(colors.size(), std::size_t(2));
        QCOMPARE(colors.front(), darkLink);
        QCOMPARE(colors.back(), QColor(0xc0, 0x39, 0x2b));
        QVERIFY(contrastRatio(darkLink, QApplication::palette().color(QPalette::Base)) >= kTextContrast);
        QTRY_VERIFY(drawnIn(darkLink) > 20);
        QCOMPARE(drawnIn(lightLink), 0);
        maybeGrab(pane, QStringLiteral("links-dark.png"));
        applyTheme(Theme::Light);
        QCOMPARE(linkColors().front(), lightLink);
    }

    void tabFocusIsClear_data()
    {
        QTest::addColumn<int>("theme");
        QTest::addRow("system") << int(Theme::System);
        QTest::addRow("light") << int(Theme::Light);
        QTest::addRow("dark") << int(Theme::Dark);
    }

    // A tab bar given the keyboard focus outlines its current tab in the highlight colour, at
    // full strength, in every theme (Fusion's own outline is the highlight at a third of it).
    void tabFocusIsClear()
    {
        QFETCH(int, theme);
        applyTheme(Theme(theme));
        QWidget host;
        auto *tabs = new QTabWidget(&host);
        tabs->addTab(new QWidget, QStringLiteral("Kernels"));
        tabs->addTab(new QWidget, QStringLiteral("Launches"));
        tabs->resize(360, 120);
        host.resize(360, 120);
        host.show();
        QVERIFY(QTest::qWaitForWindowExposed(&host));
        auto *bar = tabs->tabBar();
        const QColor highlight = QApplication::palette().color(QPalette::Highlight);
        const auto strong = [&](const QImage &image) { return pixelsNear(image, highlight, 24); };
        const int unfocused = strong(bar->grab().toImage());
        // What Tab does: the focus arrives by keyboard, which is when styles draw it.
        host.setAttribute(Qt::WA_KeyboardFocusChange);
        bar->setFocus(Qt::TabFocusReason);
        QTRY_VERIFY(bar->hasFocus());
        const QImage focused = bar->grab().toImage();
        const int gained = strong(focused) - unfocused;
        QVERIFY2(gained >= 2 * bar->tabRect(0).width(), qPrintable(QString::number(gained)));
        maybeGrab(host, QStringLiteral("tab-focus-%1.png").arg(QString::fromLatin1(QTest::currentDataTag())));
    }

    void chartsFollowTheTheme()
    {
        // Charts made in one theme are redrawn in the other: paper, axes and text from the palette.
        applyTheme(Theme::Light);
        ui::LatencyHistogram histogram;
        histogram.resize(500, 240);
        histogram.setSamples({1.0, 1.1, 1.2, 1.2, 1.3, 1.9}, 1.28, 1.9);
        histogram.show();
        QVERIFY(QTest::qWaitForWindowExposed(&histogram));
        for (const auto theme : {Theme::Dark, Theme::Light, Theme::Dark}) {
            applyTheme(theme);
            const QPalette p = QApplication::palette();
            auto *plot = histogram.plot();
            QTRY_COMPARE(plot->xAxis->tickLabelColor(), p.color(QPalette::Text));
            QCOMPARE(plot->yAxis->labelColor(), p.color(QPalette::Text));
            const QImage image = histogram.grab().toImage();
            QCOMPARE(image.pixelColor(2, 2), p.color(QPalette::Base));
            QCOMPARE(image.pixelColor(image.width() - 3, image.height() - 3), p.color(QPalette::Base));
            // The mean and p99 labels are text on the paper: 4.5:1 whatever their own colour.
            int texts = 0;
            for (int i = 0; i < plot->itemCount(); ++i) {
                if (auto *text = qobject_cast<QCPItemText *>(plot->item(i))) {
                    ++texts;
                    QVERIFY(contrastRatio(text->color(), p.color(QPalette::Base)) >= kTextContrast);
                }
            }
            QCOMPARE(texts, 2);
            maybeGrab(histogram, theme == Theme::Dark ? QStringLiteral("histogram-dark.png") : QStringLiteral("histogram-light.png"));
        }
        // The owner's colour comes back when it is readable again.
        applyTheme(Theme::Light);
        QTRY_COMPARE(histogram.plot()->xAxis->tickLabelColor(), QApplication::palette().color(QPalette::Text));
        bool ownColour = false;
        for (int i = 0; i < histogram.plot()->itemCount(); ++i)
            if (auto *text = qobject_cast<QCPItemText *>(histogram.plot()->item(i)))
                ownColour = ownColour || text->color() == QColor(0xc0, 0x39, 0x2b);
        QVERIFY(ownColour);
    }

    void memoryLabelsSitOnThePaper()
    {
        // A peak label's white background, meaning the paper, is the dark paper in the dark theme.
        applyTheme(Theme::Dark);
        ui::plots::MemoryCurvePlot plot;
        plot.resize(600, 300);
        analysis::MemoryReport report;
        analysis::DeviceMemory device;
        device.device = "cuda:0";
        device.allocated = {{0, 0}, {1'000'000, 64 << 20}, {2'000'000, 32 << 20}};
        device.peakBytes = 64 << 20;
        device.peakTimeNs = 1'000'000;
        report.devices.push_back(device);
        plot.setReport(report, 0);
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        plot.plot()->replot();
        const QColor paper = QApplication::palette().color(QPalette::Base);
        int labels = 0;
        for (int i = 0; i < plot.plot()->itemCount(); ++i) {
            if (auto *text = qobject_cast<QCPItemText *>(plot.plot()->item(i))) {
                ++labels;
                QCOMPARE(text->brush().color().rgb(), paper.rgb());
                QVERIFY(contrastRatio(text->color(), paper) >= kTextContrast);
            }
        }
        QCOMPARE(labels, 1);
        maybeGrab(plot, QStringLiteral("memory-dark.png"));
    }

    void sweepChartsAreDarkInTheDarkTheme()
    {
        applyTheme(Theme::Dark);
        SweepPlots plots;
        plots.resize(900, 280);
        plots.setBudget(std::int64_t(96) << 20);
        for (const std::int64_t batch : {1, 2, 4, 8}) {
            model::SweepPoint point;
            point.variant = "baseline";
            point.batch = batch;
            point.latency.mean = 1.0 + 0.5 * double(batch);
            point.throughputPerSecond = double(batch) * 1000 / point.latency.mean;
            point.peakMemoryBytes = batch << 24;
            plots.addPoint(point);
        }
        plots.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plots));
        const QPalette p = QApplication::palette();
        for (int chart = 0; chart < SweepPlots::ChartCount; ++chart) {
            auto *plot = plots.plot(SweepPlots::Chart(chart));
            plot->replot();
            QCOMPARE(plot->grab().toImage().pixelColor(2, 2), p.color(QPalette::Base));
            const auto *title = qobject_cast<QCPTextElement *>(plot->plotLayout()->element(0, 0));
            QVERIFY(title);
            QCOMPARE(title->textColor(), p.color(QPalette::Text));
            // Points are rings on the paper, not white dots.
            QCOMPARE(plot->graph(0)->scatterStyle().brush().color().rgb(), p.color(QPalette::Base).rgb());
            QVERIFY(contrastRatio(plot->graph(0)->pen().color(), p.color(QPalette::Base)) >= kGraphicContrast);
        }
        maybeGrab(plots, QStringLiteral("sweep-dark.png"));
        // Written to a file, they are black on white: reports are read on white pages.
        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("sweep.png"));
        QVERIFY(plots.savePng(png, 900, 280));
        const QImage saved(png);
        QCOMPARE(saved.pixelColor(2, 2), QColor(Qt::white));
        QCOMPARE(saved.pixelColor(saved.width() - 3, saved.height() - 3), QColor(Qt::white));
        if (!qEnvironmentVariable("PYROMETER_SCREENSHOT_DIR").isEmpty())
            saved.save(qEnvironmentVariable("PYROMETER_SCREENSHOT_DIR") + QStringLiteral("/sweep-saved.png"));
        // ...and the window's charts return to the theme.
        auto *latency = plots.plot(SweepPlots::Latency);
        QTRY_COMPARE(latency->xAxis->tickLabelColor(), p.color(QPalette::Text));
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
