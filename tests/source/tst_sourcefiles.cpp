// The source tree keeps the shape its conventions give it: no C++ or Python file past 800 lines
// (split by concept well before that; the Python engine is a package of modules), and the
// dependency arrows of DESIGN.md's layout: only core/torch includes libtorch, and the window and
// the CLI reach models through core/engine and core/model, never core/torch.
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QTest>

namespace {

// The files under folder (relative to the source root) with an #include matching pattern, as
// "path:line: include".
QStringList includesUnder(const QString &folder, const QRegularExpression &pattern)
{
    const QString root = QStringLiteral(PYROMETER_SOURCE_DIR);
    QStringList found;
    QDirIterator it(root + "/" + folder, {"*.cpp", "*.h"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return {path + ": unreadable"};
        int number = 0;
        while (!file.atEnd()) {
            const QString line = QString::fromUtf8(file.readLine()).trimmed();
            ++number;
            if (line.startsWith(QLatin1String("#include")) && pattern.match(line).hasMatch())
                found.append(QStringLiteral("%1:%2: %3").arg(path.mid(root.size() + 1)).arg(number).arg(line));
        }
    }
    return found;
}

} // namespace

class TestSourceFiles : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void noFileIsLongerThan800Lines()
    {
        const QString root = QStringLiteral(PYROMETER_SOURCE_DIR);
        QStringList tooLong;
        int files = 0;
        int python = 0;
        for (const QString folder : {"app", "core", "ui", "tests", "resources", "scripts"}) {
            QDirIterator it(root + "/" + folder, {"*.cpp", "*.h", "*.py"}, QDir::Files, QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const QString path = it.next();
                if (path.contains(QStringLiteral("/tests/fixtures/")))
                    continue;
                QFile file(path);
                QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path));
                const auto lines = file.readAll().count('\n');
                ++files;
                python += path.endsWith(QStringLiteral(".py"));
                if (lines > 800)
                    tooLong.append(QStringLiteral("%1 (%2 lines)").arg(path.mid(root.size() + 1)).arg(lines));
            }
        }
        QVERIFY2(files > 300, qPrintable(QString::number(files)));
        QVERIFY2(python >= 10, qPrintable(QString::number(python))); // the engine's modules, the recorder, scripts
        QVERIFY2(tooLong.isEmpty(), qPrintable(tooLong.join(QStringLiteral(", "))));
    }

    void pagesAndSubcommandsReachModelsThroughTheEngine()
    {
        const QRegularExpression torch(QStringLiteral("\"core/torch/"));
        for (const QString folder :
             {"app", "ui", "core/model", "core/report", "core/session", "core/summary", "core/analysis"}) {
            const auto found = includesUnder(folder, torch);
            QVERIFY2(found.isEmpty(), qPrintable(found.join(QStringLiteral("\n"))));
        }
        // core/engine's headers expose core/model's types only: core/torch stays behind its sources.
        QStringList engineHeaders;
        for (const auto &line : includesUnder(QStringLiteral("core/engine"), torch))
            if (line.section(QLatin1Char(':'), 0, 0).endsWith(QLatin1String(".h")))
                engineHeaders.append(line);
        QVERIFY2(engineHeaders.isEmpty(), qPrintable(engineHeaders.join(QStringLiteral("\n"))));
    }

    void onlyCoreTorchIncludesLibtorch()
    {
        const QRegularExpression libtorch(QStringLiteral("<(torch|ATen|c10|caffe2)/"));
        for (const QString folder : {"app", "ui", "core/model", "core/engine", "core/analysis", "core/trace",
                                     "core/record", "core/report", "core/session", "core/summary", "core/util"}) {
            const auto found = includesUnder(folder, libtorch);
            QVERIFY2(found.isEmpty(), qPrintable(found.join(QStringLiteral("\n"))));
        }
        // And it does include it: the pattern finds what it looks for.
        QVERIFY(!includesUnder(QStringLiteral("core/torch"), libtorch).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestSourceFiles)
#include "tst_sourcefiles.moc"
