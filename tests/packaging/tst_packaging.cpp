// The desktop integration files validate with the freedesktop and AppStream tools, agree with
// one another on the application id and MIME types, and the icons are rendered at every size.
#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace {

const QString kAppId = QStringLiteral("io.github.pyrometer.Pyrometer");
const QString kPackaging = QStringLiteral(PYROMETER_PACKAGING_DIR);
const QString kIcons = QStringLiteral(PYROMETER_ICONS_DIR);

struct Run {
    int exitCode = -1;
    QString output;
};

Run run(const QString &program, const QStringList &arguments)
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, arguments);
    if (!process.waitForFinished(60'000))
        return {};
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1, QString::fromUtf8(process.readAll())};
}

QString tool(const char *name)
{
    return QStandardPaths::findExecutable(QLatin1String(name));
}

QString readText(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// "Key=a;b;" of the desktop file, as a list.
QStringList desktopList(const QString &key)
{
    const QRegularExpression line(QStringLiteral("^%1=(.*)$").arg(key), QRegularExpression::MultilineOption);
    const auto match = line.match(readText(kPackaging + QLatin1Char('/') + kAppId + QStringLiteral(".desktop")));
    return match.hasMatch() ? match.captured(1).split(QLatin1Char(';'), Qt::SkipEmptyParts) : QStringList();
}

QStringList matches(const QString &text, const QString &pattern)
{
    QStringList found;
    for (auto it = QRegularExpression(pattern).globalMatch(text); it.hasNext();)
        found.append(it.next().captured(1));
    return found;
}

} // namespace

class TestPackaging : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void desktopFileValidates()
    {
        const QString validator = tool("desktop-file-validate");
        if (validator.isEmpty())
            QSKIP("desktop-file-validate is not installed (scripts/setup installs desktop-file-utils)");
        const auto result = run(validator, {kPackaging + QLatin1Char('/') + kAppId + QStringLiteral(".desktop")});
        QVERIFY2(result.exitCode == 0 && result.output.trimmed().isEmpty(), qPrintable(result.output));
        QCOMPARE(desktopList(QStringLiteral("Icon")), QStringList{kAppId});
        QCOMPARE(desktopList(QStringLiteral("Exec")).value(0), QStringLiteral("pyrometer %F"));
    }

    void metainfoValidates()
    {
        const QString validator = tool("appstreamcli");
        if (validator.isEmpty())
            QSKIP("appstreamcli is not installed (scripts/setup installs appstream)");
        const QString metainfo = kPackaging + QLatin1Char('/') + kAppId + QStringLiteral(".metainfo.xml");
        const auto result = run(validator, {QStringLiteral("validate"), QStringLiteral("--no-net"), metainfo});
        QVERIFY2(result.exitCode == 0, qPrintable(result.output));
        QVERIFY2(!result.output.contains(QLatin1String("W:")) && !result.output.contains(QLatin1String("E:")), qPrintable(result.output));
        const QString text = readText(metainfo);
        QCOMPARE(matches(text, QStringLiteral("<id>([^<]+)</id>")), QStringList{kAppId});
        QCOMPARE(matches(text, QStringLiteral("<launchable type=\"desktop-id\">([^<]+)</launchable>")),
                 QStringList{kAppId + QStringLiteral(".desktop")});
        QVERIFY(matches(text, QStringLiteral("<caption>([^<]+)</caption>")).size() >= 1);
        QVERIFY(matches(text, QStringLiteral("<release version=\"([^\"]+)\"")).contains(QStringLiteral(PYROMETER_VERSION)));
        // The media types it provides are the desktop file's.
        QCOMPARE(matches(text, QStringLiteral("<mediatype>([^<]+)</mediatype>")), desktopList(QStringLiteral("MimeType")));
    }

    void mimeTypesValidateAndMatchTheDesktopFile()
    {
        const QString updater = tool("update-mime-database");
        if (updater.isEmpty())
            QSKIP("update-mime-database is not installed (scripts/setup installs shared-mime-info)");
        const QString xml = kPackaging + QLatin1Char('/') + kAppId + QStringLiteral(".xml");
        if (const QString xmllint = tool("xmllint"); !xmllint.isEmpty()) {
            const auto wellFormed = run(xmllint, {QStringLiteral("--noout"), xml});
            QVERIFY2(wellFormed.exitCode == 0, qPrintable(wellFormed.output));
        }
        // update-mime-database refuses malformed definitions: compile ours alone into a scratch
        // database and read back its globs.
        QTemporaryDir database;
        QVERIFY(QDir(database.path()).mkpath(QStringLiteral("packages")));
        QVERIFY(QFile::copy(xml, database.filePath(QStringLiteral("packages/") + kAppId + QStringLiteral(".xml"))));
        const auto result = run(updater, {QStringLiteral("-V"), database.path()});
        QVERIFY2(result.exitCode == 0, qPrintable(result.output));
        QVERIFY2(!result.output.contains(QLatin1String("rror")) && !result.output.contains(QLatin1String("arning")),
                 qPrintable(result.output));
        const QString globs = readText(database.filePath(QStringLiteral("globs2")));
        QVERIFY(globs.contains(QStringLiteral(":application/x-pytorch-profiler-trace:*.pt.trace.json\n")));
        QVERIFY(globs.contains(QStringLiteral(":application/x-pytorch-profiler-trace-gzip:*.pt.trace.json.gz\n")));
        QVERIFY(globs.contains(QStringLiteral(":application/x-pyrometer-session:*.pyrometer\n")));
        // Every MimeType of the desktop file is defined here.
        const QStringList defined = matches(readText(xml), QStringLiteral("<mime-type type=\"([^\"]+)\""));
        const QStringList used = desktopList(QStringLiteral("MimeType"));
        QVERIFY(!used.isEmpty());
        for (const auto &type : used)
            QVERIFY2(defined.contains(type), qPrintable(type));
    }

    void iconsAreRenderedAtEverySize()
    {
        for (const int size : {16, 22, 24, 32, 48, 64, 128, 256}) {
            const QString file = QStringLiteral("%1/%2x%2/apps/%3.png").arg(kIcons).arg(size).arg(kAppId);
            const QImage image(file);
            QVERIFY2(!image.isNull(), qPrintable(file));
            QCOMPARE(image.size(), QSize(size, size));
            // Drawn, not blank: the centre is opaque, the corner (rounded) transparent.
            QCOMPARE(image.pixelColor(size / 2, size / 2).alpha(), 255);
            QVERIFY(image.pixelColor(0, 0).alpha() < 128);
        }
    }
};

QTEST_GUILESS_MAIN(TestPackaging)
#include "tst_packaging.moc"
