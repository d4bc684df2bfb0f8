#pragma once
// What PyTorch computed for the test models' labelled set when scripts/pruningfacts.py made it
// (facts.json beside the models): for a variant of the classifier, its correct and agreeing
// counts of the 40 samples. Tests that read it define PYROMETER_TEST_MODELS_DIR.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

namespace pyrometer::testing {

inline QJsonObject labelledSet()
{
    QFile file(QStringLiteral(PYROMETER_TEST_MODELS_DIR "/facts.json"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object().value("classifier_data").toObject();
}

inline QJsonObject expectedScores(const QString &variant)
{
    return labelledSet().value("variants").toObject().value(variant).toObject();
}

} // namespace pyrometer::testing
