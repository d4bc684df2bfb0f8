// File > Export report: the open trace and the model's last run as HTML (tables and charts
// embedded) and Markdown, built in a job; and the HTML as Qt renders it.
#include "ui/jobs/jobtracker.h"
#include "ui/model/modelpage.h"
#include "ui/report/reportexporter.h"
#include "ui/shell/mainwindow.h"
#include "ui/workspace/workspace.h"

#include <QAbstractTextDocumentLayout>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QPainter>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocument>

using namespace pyrometer;
using namespace pyrometer::ui;

namespace {

const QString kTrace = QStringLiteral(PYROMETER_FIXTURES_DIR "/traces/mi250_minitoy_train_ROCm6_2_kineto.json.gz");
const QString kModel = QStringLiteral(PYROMETER_FIXTURES_DIR "/models/tiny_scripted.pt");

bool waitIdle(MainWindow &window)
{
    return QTest::qWaitFor([&] { return window.jobs()->isIdle(); }, 60'000);
}

QString readText(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// Every data: URI image of the page, as (URI, decoded image).
QList<std::pair<QString, QImage>> embeddedImages(const QString &html)
{
    QList<std::pair<QString, QImage>> images;
    const QRegularExpression uri(QStringLiteral("src=\"(data:(image/[a-z+]+);base64,([A-Za-z0-9+/=]+))\""));
    for (auto it = uri.globalMatch(html); it.hasNext();) {
        const auto match = it.next();
        const QByteArray format = match.captured(2) == QLatin1String("image/svg+xml") ? "SVG" : "PNG";
        images.append({match.captured(1), QImage::fromData(QByteArray::fromBase64(match.captured(3).toLatin1()), format.constData())});
    }
    return images;
}

// The page as Qt's rich text engine draws it, with the embedded images registered.
QImage renderWithQt(const QString &html, int width)
{
    QTextDocument document;
    for (const auto &[uri, image] : embeddedImages(html))
        document.addResource(QTextDocument::ImageResource, QUrl(uri), image);
    document.setHtml(html);
    document.setTextWidth(width);
    QImage page(width, int(document.size().height()), QImage::Format_RGB32);
    page.fill(Qt::white);
    QPainter painter(&page);
    document.drawContents(&painter);
    return page;
}

} // namespace

class TestReportExport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("PyrometerTests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_reportexport"));
        QSettings().clear();
    }

    void exportsHtmlAndMarkdown()
    {
        QTemporaryDir dir;
        MainWindow window;
        window.openPaths({kTrace, kModel});
        QVERIFY(waitIdle(window));
        auto *model = qobject_cast<ModelPage *>(window.pageWidget(Page::Model));
        model->setRunDefaults(1, 3);
        model->inputsEdit()->setText(QStringLiteral("2x4"));
        model->runProfile();
        QVERIFY(waitIdle(window));
        QCOMPARE(window.failureCount(), 0);

        // A later page adds its own section (a sweep plot, a comparison).
        report::Section extra{"sweep", "Batch-size sweep", 2, {"from a contributor"}, {}, {}, {}};
        window.reports()->addContributor(QStringLiteral("sweep"), [extra] { return std::vector<report::Section>{extra}; });

        QSignalSpy exported(window.reports(), &ReportExporter::exported);
        const QString html = dir.filePath(QStringLiteral("report.html"));
        QVERIFY(window.reports()->exportTo(html, {}) != 0);
        QVERIFY(waitIdle(window));
        QCOMPARE(exported.size(), 1);
        QCOMPARE(exported.front().front().toString(), html);
        const QString page = readText(html);
        QVERIFY(page.startsWith(QStringLiteral("<!DOCTYPE html>")));
        QVERIFY(page.contains(QStringLiteral("mi250_minitoy_train_ROCm6_2_kineto.json.gz")));
        for (const char *heading : {"Step breakdown", "Top operators by self time", "Top GPU kernels", "Advice",
                                    "Slowest layers by self time", "Batch-size sweep"})
            QVERIFY2(page.contains(QLatin1String(heading)), heading);
        QVERIFY(page.contains(QStringLiteral("<th>Operator</th>")));
        QVERIFY(page.contains(QStringLiteral("<th>Kernel</th>")));
        QVERIFY(page.contains(QStringLiteral("<th>Layer</th>")));
        QVERIFY(page.count(QStringLiteral("<table>")) >= 4);
        QVERIFY(!page.contains(QStringLiteral("src=\"http")));

        const auto images = embeddedImages(page);
        QCOMPARE(images.size(), 2); // the step chart, the roofline
        for (const auto &image : images) {
            QVERIFY(!image.second.isNull()); // each chart decodes
            QVERIFY(image.second.width() >= 600);
        }
        QVERIFY(page.contains(QStringLiteral("<h3>Roofline</h3>")));

        // Qt's rich text shows it, chart included; a copy to look at when asked for.
        const QImage rendered = renderWithQt(page, 1000);
        QVERIFY(rendered.height() > 1000);
        if (const QString shots = qEnvironmentVariable("PYROMETER_SCREENSHOT_DIR"); !shots.isEmpty()) {
            QDir().mkpath(shots);
            rendered.save(shots + QStringLiteral("/report.png"));
        }

        const QString markdown = dir.filePath(QStringLiteral("report.md"));
        QVERIFY(window.reports()->exportTo(markdown, {}) != 0);
        QVERIFY(waitIdle(window));
        const QString text = readText(markdown);
        QVERIFY(text.startsWith(QStringLiteral("# Pyrometer report: ")));
        QVERIFY(text.contains(QStringLiteral("| Operator | Calls |")));
        QVERIFY(text.contains(QStringLiteral("| Layer | Type |")));
        QVERIFY(text.contains(QStringLiteral("## Batch-size sweep")));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), (QStringList{QStringLiteral("report.html"), QStringLiteral("report.md")}));
    }

    void refusesUnknownExtensionsAndEmptyWorkspaces()
    {
        QTemporaryDir dir;
        MainWindow window;
        QSignalSpy failed(window.reports(), &ReportExporter::failed);
        QCOMPARE(window.reports()->exportTo(dir.filePath(QStringLiteral("r.html")), {}), JobTracker::JobId(0));
        QCOMPARE(failed.size(), 1);
        QVERIFY(failed.back().front().toString().contains(QStringLiteral("Nothing to report")));
        window.openPaths({kTrace});
        QVERIFY(waitIdle(window));
        QCOMPARE(window.reports()->exportTo(dir.filePath(QStringLiteral("r.pdf")), {}), JobTracker::JobId(0));
        QCOMPARE(failed.size(), 2);
        QVERIFY(failed.back().front().toString().contains(QStringLiteral(".html or .md")));
        QCOMPARE(window.failureCount(), 2); // both reach the banner
    }
};

QTEST_MAIN(TestReportExport)
#include "tst_reportexport.moc"
