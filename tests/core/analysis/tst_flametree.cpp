// Flame trees and folded stacks against stacks an independent Python computation wrote.
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/flametree.h"
#endif

#include <QObject>

#include <map>
#include <sstream>

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

namespace {

std::map<std::string, std::int64_t> parseFolded(std::istream &in)
{
    std::map<std::string, std::int64_t> stacks;
    std::string line;
    while (std::getline(in, line)) {
        const auto space = line.rfind(' ');
        if (space == std::string::npos)
            continue;
        stacks[line.substr(0, space)] += microsToNs(line.substr(space + 1));
    }
    return stacks;
}

std::string sanitize(std::string name)
{
    std::replace(name.begin(), name.end(), ';', ',');
    return name;
}

} // namespace

class TestFlameTree : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { verifyFixtures(); }

    void golden_data()
    {
        QTest::addColumn<QString>("fixture");
        for (const auto &name : fixtureNames())
            QTest::addRow("%s", name.c_str()) << QString::fromStdString(name);
    }

    void golden()
    {
        QFETCH(QString, fixture);
        const auto name = fixture.toStdString();
        const auto loaded = loadFixture(name);
        QVERIFY(loaded.index);
        FlameOptions options;
        options.threadRoots = false;
        const auto tree = buildFlameTree(*loaded.index, options);
        std::stringstream folded;
        writeFolded(folded, tree);
        const auto actual = parseFolded(folded);
        std::ifstream in(goldenPath(name, ".flame.txt"));
        QVERIFY(in.good());
        const auto expected = parseFolded(in);
        QCOMPARE(actual.size(), expected.size());
        for (const auto &[stack, ns] : expected) {
            const auto it = actual.find(stack);
            QVERIFY2(it != actual.end(), stack.c_str());
            QCOMPARE(it->second, ns);
        }
        // The root's total is the sum of every node's self time.
        std::int64_t selfSum = 0;
        for (const auto &node : tree.nodes)
            selfSum += node.selfNs;
        QCOMPARE(tree.nodes[0].totalNs, selfSum);
    }

    void threadRoots()
    {
        const auto loaded = loadFixture("a100_alexnet");
        QVERIFY(loaded.index);
        const auto tree = buildFlameTree(*loaded.index);
        QVERIFY(!tree.nodes[0].children.empty());
        for (const auto child : tree.nodes[0].children) {
            QCOMPARE(tree.nodes[child].calls, std::uint64_t(0)); // thread frames count no calls
            QVERIFY(!tree.nodes[child].children.empty());
        }
    }

    // Adding python frames or every event keeps the overall time and adds depth.
    void eventSets_data()
    {
        QTest::addColumn<int>("events");
        QTest::addRow("ops+python") << int(FlameEvents::OpsPython);
        QTest::addRow("all") << int(FlameEvents::All);
    }

    void eventSets()
    {
        QFETCH(int, events);
        const auto loaded = loadFixture("h100_bert");
        QVERIFY(loaded.index);
        FlameOptions ops;
        FlameOptions more;
        more.events = static_cast<FlameEvents>(events);
        const auto a = buildFlameTree(*loaded.index, ops);
        const auto b = buildFlameTree(*loaded.index, more);
        QVERIFY(b.nodes.size() > a.nodes.size());
        QVERIFY(b.nodes[0].totalNs >= a.nodes[0].totalNs);
        bool python = false;
        for (const auto &node : b.nodes)
            python = python || node.name.rfind("nn.Module: ", 0) == 0;
        QVERIFY(python);
    }

    void formatMicros_data()
    {
        QTest::addColumn<qint64>("ns");
        QTest::addColumn<QString>("text");
        QTest::addRow("whole") << qint64(12000) << "12";
        QTest::addRow("fraction") << qint64(1500) << "1.5";
        QTest::addRow("ns") << qint64(1) << "0.001";
        QTest::addRow("negative") << qint64(-2250) << "-2.25";
    }

    void formatMicros()
    {
        QFETCH(qint64, ns);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(analysis::formatMicros(ns)), text);
    }

    void separatorsInNames()
    {
        QCOMPARE(sanitize("a;b"), std::string("a,b"));
        FlameTree tree;
        tree.nodes.resize(2);
        tree.nodes[1].name = "x";
        tree.nodes[1].calls = 1;
        tree.nodes[1].selfNs = 3000;
        std::stringstream out;
        writeFolded(out, tree);
        QCOMPARE(out.str(), std::string("x 3\n"));
    }
};

QTEST_GUILESS_MAIN(TestFlameTree)
#include "tst_flametree.moc"
