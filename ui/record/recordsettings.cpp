#include "ui/record/recordsettings.h"

#include "core/engine/engine.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>

namespace pyrometer::ui {

namespace {

QStringList toStringList(const std::vector<std::string> &values)
{
    QStringList list;
    for (const auto &value : values)
        list << QString::fromStdString(value);
    return list;
}

std::vector<std::string> fromStringList(const QStringList &list)
{
    std::vector<std::string> values;
    for (const auto &value : list)
        values.push_back(value.toStdString());
    return values;
}

} // namespace

QString defaultRecordFolder(const QString &script)
{
    const auto base = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    const auto name = QFileInfo(script).completeBaseName();
    return QDir(base).filePath(QStringLiteral("pyrometer/records/") +
                               (name.isEmpty() ? QStringLiteral("program") : name));
}

QString legacyRecordsFolder()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath(QStringLiteral("records"));
}

RecordSettings RecordSettings::load(const QSettings &settings)
{
    RecordSettings result;
    auto &o = result.options;
    const auto value = [&](const char *key, const QVariant &fallback) {
        return settings.value(QStringLiteral("record/") + QLatin1String(key), fallback);
    };
    o.python = value("python", QString::fromStdString(o.python)).toString().toStdString();
    o.script = value("script", QString()).toString().toStdString();
    o.asModule = value("asModule", false).toBool();
    o.arguments = fromStringList(value("arguments", QStringList()).toStringList());
    o.workingDirectory = value("workingDirectory", QString()).toString().toStdString();
    for (const auto &entry : value("environment", QStringList()).toStringList())
        if (auto variable = record::parseEnvironmentEntry(entry.toStdString()))
            o.environment.push_back(std::move(*variable));
    const auto output = value("outputDirectory", QString()).toString();
    if (!output.startsWith(legacyRecordsFolder() + QLatin1Char('/')))
        o.outputDirectory = output.toStdString();
    if (const auto mark = record::parseStepMark(value("mark", QStringLiteral("auto")).toString().toStdString()))
        o.mark = mark.value();
    o.skip = value("skip", o.skip).toInt();
    o.warmup = value("warmup", o.warmup).toInt();
    o.steps = value("steps", o.steps).toInt();
    o.repeat = value("repeat", o.repeat).toInt();
    o.delaySeconds = value("delay", o.delaySeconds).toDouble();
    o.durationSeconds = value("duration", o.durationSeconds).toDouble();
    o.cuda = value("cuda", o.cuda).toBool();
    o.recordShapes = value("recordShapes", o.recordShapes).toBool();
    o.profileMemory = value("profileMemory", o.profileMemory).toBool();
    o.withStack = value("withStack", o.withStack).toBool();
    o.withModules = value("withModules", o.withModules).toBool();
    o.keepRunning = value("keepRunning", o.keepRunning).toBool();
    result.interpreters = value("interpreters", QStringList()).toStringList();
    return result;
}

void RecordSettings::save(QSettings &settings) const
{
    const auto &o = options;
    const auto set = [&](const char *key, const QVariant &value) {
        settings.setValue(QStringLiteral("record/") + QLatin1String(key), value);
    };
    set("python", QString::fromStdString(o.python));
    set("script", QString::fromStdString(o.script));
    set("asModule", o.asModule);
    set("arguments", toStringList(o.arguments));
    set("workingDirectory", QString::fromStdString(o.workingDirectory.string()));
    QStringList environment;
    for (const auto &[name, value] : o.environment)
        environment << QString::fromStdString(name + "=" + value);
    set("environment", environment);
    set("outputDirectory", QString::fromStdString(o.outputDirectory.string()));
    set("mark", QString::fromStdString(record::stepMarkName(o.mark)));
    set("skip", o.skip);
    set("warmup", o.warmup);
    set("steps", o.steps);
    set("repeat", o.repeat);
    set("delay", o.delaySeconds);
    set("duration", o.durationSeconds);
    set("cuda", o.cuda);
    set("recordShapes", o.recordShapes);
    set("profileMemory", o.profileMemory);
    set("withStack", o.withStack);
    set("withModules", o.withModules);
    set("keepRunning", o.keepRunning);
    set("interpreters", interpreters);
}

void RecordSettings::rememberInterpreter(const QString &python)
{
    if (python.isEmpty())
        return;
    interpreters.removeAll(python);
    interpreters.prepend(python);
    while (interpreters.size() > 10)
        interpreters.removeLast();
}

void choosePython(QSettings &settings, const QString &python)
{
    if (python.trimmed().isEmpty())
        return;
    auto record = RecordSettings::load(settings);
    record.options.python = python.trimmed().toStdString();
    record.rememberInterpreter(python.trimmed());
    record.save(settings);
}

QString chosenPython(const QSettings &settings)
{
    const auto python = settings.value(QStringLiteral("record/python")).toString();
    return python.isEmpty() ? QString::fromStdString(engine::defaultPython()) : python;
}

} // namespace pyrometer::ui
