#include "core/torch/modelfile.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace pyrometer;

namespace {

std::filesystem::path modelFixture(const char *name)
{
    return std::filesystem::path(PYROMETER_FIXTURES_DIR) / "models" / name;
}

QJsonObject demoFacts()
{
    QFile file(QStringLiteral(PYROMETER_RESOURCES_DIR "/demo/demo_facts.json"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

} // namespace

class TestModelFile : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void describesTheDemoModel()
    {
        const auto facts = demoFacts();
        QVERIFY(!facts.isEmpty());
        const auto model = torch::inspectModel(std::filesystem::path(PYROMETER_RESOURCES_DIR) / "demo" / "demo_model.pt");
        QVERIFY2(model.ok(), model.ok() ? "" : model.error().message.c_str());
        // The expected figures were computed by PyTorch when the demo was made.
        QCOMPARE(qint64(model->parameters), qint64(facts.value("parameters").toInteger()));
        QCOMPARE(qint64(model->modules.size()), qint64(facts.value("modules").toInteger()));
        QCOMPARE(model->parameterBytes, model->parameters * 4); // float32 weights
        QCOMPARE(model->modules.front().qualifiedName, std::string());
        QCOMPARE(model->modules.front().totalParameters, model->parameters);
        QVERIFY(model->fileBytes > 0);
        QVERIFY(QString::fromStdString(model->forwardSchema).startsWith("forward("));

        // Depth-first with qualified names; own parameters sum to the total.
        std::uint64_t own = 0;
        bool sawStemConv = false;
        for (const auto &module : model->modules) {
            own += module.ownParameters;
            if (module.qualifiedName == "stem.0") {
                sawStemConv = true;
                QCOMPARE(module.typeName, std::string("Conv2d"));
                QCOMPARE(module.depth, 2);
                QCOMPARE(module.ownParameters, std::uint64_t(16 * 3 * 3 * 3));
            }
        }
        QVERIFY(sawStemConv);
        QCOMPARE(own, model->parameters);
    }

    void scriptedModelParameters()
    {
        const auto model = torch::inspectModel(modelFixture("tiny_scripted.pt"));
        QVERIFY2(model.ok(), model.ok() ? "" : model.error().message.c_str());
        QCOMPARE(model->parameters, std::uint64_t(4 * 3 + 3 + 3 * 2 + 2));
        QCOMPARE(model->modules.size(), std::size_t(4)); // Sequential + Linear, ReLU, Linear
        QCOMPARE(model->modules[1].qualifiedName, std::string("0"));
        QCOMPARE(model->modules[1].typeName, std::string("Linear"));
    }

    void refusesWhatIsNotTorchScript_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("says");
        QTest::addRow("state_dict") << "state_dict.pt" << "torch.save checkpoint";
        QTest::addRow("legacy pickle") << "legacy_pickle.pt" << "Python pickle";
        QTest::addRow("zip without code") << "not_torchscript.zip" << "zip archive without TorchScript";
        QTest::addRow("text") << "text.pt" << "not a zip file";
        QTest::addRow("empty") << "empty.pt" << "empty";
        QTest::addRow("missing") << "no_such_model.pt" << "no such file";
    }
    void refusesWhatIsNotTorchScript()
    {
        QFETCH(QString, file);
        QFETCH(QString, says);
        const auto path = modelFixture(file.toUtf8().constData());
        const auto model = torch::inspectModel(path);
        QVERIFY(!model.ok());
        const QString message = QString::fromStdString(model.error().message);
        QVERIFY2(message.startsWith(QString::fromStdString(path.string()) + ":"), qPrintable(message));
        QVERIFY2(message.contains(says), qPrintable(message));
        QVERIFY2(!message.contains('\n'), qPrintable(message));
        if (file != "no_such_model.pt")
            QVERIFY2(message.contains("torch.jit.trace") && message.contains("torch.jit.script"), qPrintable(message));
    }

    void refusesADirectory()
    {
        const auto model = torch::inspectModel(std::filesystem::path(PYROMETER_FIXTURES_DIR) / "models");
        QVERIFY(!model.ok());
        QVERIFY(QString::fromStdString(model.error().message).contains("is a directory"));
    }

    void reportsTheCompiledTorchVersion()
    {
        // The headers compiled in name the libtorch CMake found (1.13 on Debian 12, 2.6 on 13).
        const QString expected = QStringLiteral(PYROMETER_TORCH_MAJOR_MINOR) + QLatin1Char('.');
        QVERIFY(expected.size() > 3);
        QVERIFY2(QString::fromStdString(torch::torchVersion()).startsWith(expected), torch::torchVersion().c_str());
    }
};

QTEST_GUILESS_MAIN(TestModelFile)
#include "tst_modelfile.moc"
