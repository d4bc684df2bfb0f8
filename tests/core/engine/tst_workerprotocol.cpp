// The Python engine's worker protocol as the host reads it: every message checked against its
// schema, the version said in "hello", streamed results assembled, anything else refused with a
// message that names the problem.
#include "core/engine/workerprotocol.h"

#include <QTest>

using namespace pyrometer;
using namespace pyrometer::engine;

#ifndef Q_MOC_RUN
namespace {

const std::string kHello = R"({"event":"hello","protocol":1,"python":"3.11.2","torch":"2.6.0","devices":["cpu"]})";

// The problem the line after a good hello gives, or "" when it reads.
std::string problemOf(const std::string &line)
{
    WorkerMessages messages;
    if (!messages.read(kHello))
        return "hello refused";
    const auto read = messages.read(line);
    return read ? std::string() : read.error().message;
}

} // namespace
#endif

class TestWorkerProtocol : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void wellFormedMessagesRead();
    void wrongTypesAreNamed_data();
    void wrongTypesAreNamed();
    void anotherVersionIsRefused();
    void streamedResultsAreAssembled();
    void brokenStreamsAreRefused();
};

// The JSON lines are raw strings, which moc cannot read.
#ifndef Q_MOC_RUN
void TestWorkerProtocol::wellFormedMessagesRead()
{
    WorkerMessages messages;
    const auto hello = messages.read(kHello);
    QVERIFY(hello && hello.value());
    QCOMPARE(hello.value()->value("torch", std::string()), std::string("2.6.0"));
    QVERIFY(messages.greeted());
    const auto latency = messages.read(R"({"event":"latency","cold_ms":3.5,"samples_ms":[1,1.5,2]})");
    QVERIFY(latency && latency.value());
    QCOMPARE(problemOf(R"({"event":"variant","name":"fp16","error":"","note":"","max_abs_diff":null,"params":12})"),
             std::string());
    QCOMPARE(problemOf(R"({"event":"done"})"), std::string());
}

void TestWorkerProtocol::wrongTypesAreNamed_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("problem");
    QTest::newRow("event a number") << R"({"event":1})"
                                    << "'event' is an integer, not a string";
    QTest::newRow("no event") << R"({"kind":"x"})"
                              << "a message has no 'event'";
    QTest::newRow("not an object") << R"([1,2])"
                                   << "a message is a list, not an object";
    QTest::newRow("not json") << R"({"event":"done")"
                              << "a line that is not JSON";
    QTest::newRow("garbage") << "\x01\xff garbage"
                             << "a line that is not JSON";
    QTest::newRow("unknown event") << R"({"event":"surprise"})"
                                   << "an event this Pyrometer does not know: 'surprise'";
    QTest::newRow("parameters a string") << R"({"event":"loaded","kind":"torchscript","parameters":"many"})"
                                         << "loaded: 'parameters' is a string, not an integer";
    QTest::newRow("a module's depth") << R"({"event":"loaded","modules":[{"name":"fc","depth":"1"}]})"
                                      << "loaded.modules[0]: 'depth' is a string, not an integer";
    QTest::newRow("samples not numbers") << R"({"event":"latency","samples_ms":[1,"2"]})"
                                         << "latency: 'samples_ms' is a list, not a list of numbers";
    QTest::newRow("an error without message") << R"({"event":"error","kind":"run"})"
                                              << "error: 'message' is missing";
}

void TestWorkerProtocol::wrongTypesAreNamed()
{
    QFETCH(QString, line);
    QFETCH(QString, problem);
    QCOMPARE(QString::fromStdString(problemOf(line.toStdString())), problem);
}

void TestWorkerProtocol::anotherVersionIsRefused()
{
    WorkerMessages old;
    const auto before = old.read(R"({"event":"loaded","kind":"x"})");
    QVERIFY(!before);
    QCOMPARE(before.error().message, std::string("'loaded' before 'hello': a worker of another version"));
    WorkerMessages unversioned;
    QCOMPARE(unversioned.read(R"({"event":"hello","python":"3.11"})").error().message,
             std::string("hello: 'protocol' is missing"));
    WorkerMessages newer;
    QCOMPARE(newer.read(R"({"event":"hello","protocol":2})").error().message,
             std::string("a worker of protocol 2, where this Pyrometer speaks protocol 1"));
    // An error before hello (no torch, an unreadable request) is read: it says what failed.
    WorkerMessages early;
    const auto error = early.read(R"({"event":"error","kind":"no_torch","message":"no torch","detail":[]})");
    QVERIFY(error && error.value());
}

void TestWorkerProtocol::streamedResultsAreAssembled()
{
    WorkerMessages messages;
    QVERIFY(messages.read(kHello));
    const auto begin = messages.read(R"({"event":"begin","of":"profile","iterations":3,"trace":""})");
    QVERIFY(begin && !begin.value());
    for (int i = 0; i < 3; ++i) {
        const auto item =
            messages.read(R"({"event":"item","of":"profile","list":"ops","item":{"name":"aten::mm","start":)" +
                          std::to_string(i) + R"(,"dur":2,"tid":"7"}})");
        QVERIFY2(item && !item.value(), item ? "" : item.error().message.c_str());
    }
    QVERIFY(messages.read(R"({"event":"item","of":"profile","list":"memory","item":{"t":1,"bytes":64}})"));
    const auto end = messages.read(R"({"event":"end","of":"profile"})");
    QVERIFY(end && end.value());
    const auto &profile = *end.value();
    QCOMPARE(profile.value("event", std::string()), std::string("profile"));
    QCOMPARE(profile.value("iterations", 0), 3);
    QCOMPARE(profile["ops"].size(), std::size_t(3));
    QCOMPARE(profile["ops"][2]["start"].get<int>(), 2);
    QCOMPARE(profile["memory"].size(), std::size_t(1));
    QVERIFY(!profile.contains("of"));
}

void TestWorkerProtocol::brokenStreamsAreRefused()
{
    QCOMPARE(problemOf(R"({"event":"item","of":"profile","list":"ops","item":{}})"),
             std::string("'item' of 'profile' outside its stream"));
    QCOMPARE(problemOf(R"({"event":"begin","of":"surprise"})"),
             std::string("a stream of an event this Pyrometer does not know: 'surprise'"));
    WorkerMessages messages;
    QVERIFY(messages.read(kHello));
    QVERIFY(messages.read(R"({"event":"begin","of":"ops"})"));
    QCOMPARE(messages.read(R"({"event":"item","of":"ops","list":"ops","item":{"name":5}})").error().message,
             std::string("ops.ops[0]: 'name' is an integer, not a string"));
    QCOMPARE(messages.read(R"({"event":"item","of":"ops","list":"nothing","item":{}})").error().message,
             std::string("'ops' has no list 'nothing' to stream"));
    QCOMPARE(messages.read(R"({"event":"done"})").error().message, std::string("'done' inside the stream of 'ops'"));
}

#endif

QTEST_GUILESS_MAIN(TestWorkerProtocol)
#include "tst_workerprotocol.moc"
