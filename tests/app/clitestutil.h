#pragma once
// What the CLI tests share: running pyrometer-cli as a user would, and reading CSV (its
// output and the golden tables).
#include <QFile>
#include <QList>
#include <QMap>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace pyrometer::testing {

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
};

// Runs the CLI with COLUMNS set when columns is given, and the variables of extra (LC_ALL, say).
inline Run runCli(const QStringList &arguments, const QString &columns = QString(),
                  const QMap<QString, QString> &extra = {})
{
    QProcess process;
    if (!columns.isEmpty() || !extra.isEmpty()) {
        auto environment = QProcessEnvironment::systemEnvironment();
        if (!columns.isEmpty())
            environment.insert(QStringLiteral("COLUMNS"), columns);
        for (auto it = extra.begin(); it != extra.end(); ++it)
            environment.insert(it.key(), it.value());
        process.setProcessEnvironment(environment);
    }
    process.start(QStringLiteral(PYROMETER_CLI), arguments);
    if (!process.waitForStarted())
        return {-3, QString(), "pyrometer-cli did not start: " + process.errorString()};
    // A hang or a crash is never read as success: -2 when it did not finish, -1 when it crashed.
    if (!process.waitForFinished(180'000)) {
        process.kill();
        process.waitForFinished();
        return {-2, QString::fromUtf8(process.readAllStandardOutput()),
                "pyrometer-cli did not finish in 180 s: " + QString::fromUtf8(process.readAllStandardError())};
    }
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            QString::fromUtf8(process.readAllStandardOutput()), QString::fromUtf8(process.readAllStandardError())};
}

// RFC 4180 CSV: quoted cells may hold commas, quotes ("") and newlines.
inline QList<QStringList> parseCsv(const QString &text)
{
    QList<QStringList> rows;
    QStringList row;
    QString cell;
    bool quoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
                cell += '"', ++i;
            else if (c == '"')
                quoted = false;
            else
                cell += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            row << cell, cell.clear();
        } else if (c == '\n') {
            row << cell, cell.clear();
            rows << row, row.clear();
        } else if (c != '\r') {
            cell += c;
        }
    }
    if (!cell.isEmpty() || !row.isEmpty())
        rows << (row << cell);
    return rows;
}

// A golden table (tests/fixtures/analysis/NAME.SUFFIX), header dropped.
inline QList<QStringList> golden(const QString &name, const QString &suffix)
{
    QFile file(QStringLiteral(PYROMETER_FIXTURES_DIR "/analysis/") + name + suffix);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    auto rows = parseCsv(QString::fromUtf8(file.readAll()));
    if (!rows.isEmpty())
        rows.removeFirst();
    return rows;
}

// Rows of a CLI csv by their key cells, header dropped.
inline QMap<QString, QStringList> keyed(QList<QStringList> rows, int keyColumns)
{
    QMap<QString, QStringList> byKey;
    if (!rows.isEmpty())
        rows.removeFirst();
    for (const auto &row : rows)
        byKey.insert(row.mid(0, keyColumns).join(QChar(0)), row);
    return byKey;
}


} // namespace pyrometer::testing
