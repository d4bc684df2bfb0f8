// The source tree keeps the shape its conventions give it: no C++ or Python file past 800 lines
// (split by concept well before that; the Python engine is a package of modules).
#include <QDirIterator>
#include <QFile>
#include <QTest>

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
};

QTEST_GUILESS_MAIN(TestSourceFiles)
#include "tst_sourcefiles.moc"
