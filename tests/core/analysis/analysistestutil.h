#pragma once

// Helpers shared by the analysis tests: fixture traces by name, golden CSV reading.
#ifndef Q_MOC_RUN // moc cannot parse C++20 library headers
#include "core/analysis/traceindex.h"
#include "core/trace/loader.h"
#endif

#include <QtTest>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace pyrometer::analysis::testing {

// The real traces of tests/fixtures/traces by short name (the names the golden files use); the
// recorded CPU trace lives beside its goldens in tests/fixtures/analysis.
inline std::filesystem::path fixturePath(const std::string &name)
{
    static const std::map<std::string, std::string> real{
        {"a100_alexnet", "benchmark_result_2869224_1695835535_trace.json.gz"},
        {"mi250_rocm", "mi250_minitoy_train_ROCm6_2_kineto.json.gz"},
        {"cpu_gloo", "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"},
        {"h100_bert", "gaunernst_bert-small-uncased__1016001.json.gz"},
        {"kineto_unordered", "before_fix_trace.json"},
        {"v100_resnet50", "tb_logdir/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"},
    };
    const std::filesystem::path fixtures = PYROMETER_FIXTURES_DIR;
    const auto it = real.find(name);
    if (it == real.end())
        return fixtures / "analysis" / (name + ".json");
    return fixtures / "traces" / it->second;
}

inline std::filesystem::path goldenPath(const std::string &name, const std::string &suffix)
{
    return std::filesystem::path(PYROMETER_FIXTURES_DIR) / "analysis" / (name + suffix);
}

inline const std::vector<std::string> &fixtureNames()
{
    static const std::vector<std::string> names{"torch_cpu_cnn", "a100_alexnet",     "mi250_rocm",   "cpu_gloo",
                                                "h100_bert",     "kineto_unordered", "v100_resnet50"};
    return names;
}

// One row per fixture in a column "fixture", for a data-driven test's _data function.
inline void addFixtureRows()
{
    QTest::addColumn<QString>("fixture");
    for (const auto &name : fixtureNames())
        QTest::newRow(name.c_str()) << QString::fromStdString(name);
}

struct Loaded {
    std::shared_ptr<const trace::Trace> trace;
    std::shared_ptr<const TraceIndex> index;
};

// A real trace of 2025-2026 in tests/fixtures/traces2026.
inline std::filesystem::path fixture2026(const std::string &file)
{
    return std::filesystem::path(PYROMETER_FIXTURES_DIR) / "traces2026" / file;
}

// Loads a trace file and indexes it (not cached); empty, with a warning naming the problem,
// when it cannot be loaded.
inline Loaded loadTracePath(const std::filesystem::path &path)
{
    auto loaded = trace::loadTrace(path);
    if (!loaded.ok()) {
        qWarning("%s", loaded.error().message.c_str());
        return {};
    }
    return {loaded.value(), buildTraceIndex(*loaded.value())};
}

// Loads (once per process) a fixture and its index; empty when it cannot be loaded. Tests call
// verifyFixtures() from initTestCase first, so a missing file fails by name instead of crashing.
inline Loaded loadFixture(const std::string &name)
{
    static std::map<std::string, Loaded> cache;
    if (const auto it = cache.find(name); it != cache.end())
        return it->second;
    auto loaded = trace::loadTrace(fixturePath(name));
    if (!loaded.ok()) {
        qWarning("%s", loaded.error().message.c_str());
        return {};
    }
    Loaded result{loaded.value(), buildTraceIndex(*loaded.value())};
    cache.emplace(name, result);
    return result;
}

// Fails (by file name) unless every fixture trace is there and loads.
inline void verifyFixtures()
{
    for (const auto &name : fixtureNames()) {
        const auto path = fixturePath(name);
        QVERIFY2(std::filesystem::exists(path), qPrintable(QString::fromStdString("missing fixture " + path.string())));
        QVERIFY2(loadFixture(name).index, qPrintable(QString::fromStdString("fixture does not load: " + path.string())));
    }
}

// RFC 4180 CSV: rows of cells, header included.
inline std::vector<std::vector<std::string>> readCsv(const std::filesystem::path &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const auto text = buffer.str();
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string cell;
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                cell += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cell += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            row.push_back(std::move(cell));
            cell.clear();
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n')
                ++i;
            row.push_back(std::move(cell));
            cell.clear();
            rows.push_back(std::move(row));
            row.clear();
        } else {
            cell += c;
        }
    }
    if (!cell.empty() || !row.empty()) {
        row.push_back(std::move(cell));
        rows.push_back(std::move(row));
    }
    return rows;
}

// "123.456" (µs, at most three decimals, as the golden files write them) -> 123456 ns, exactly.
inline std::int64_t microsToNs(const std::string &text)
{
    const bool negative = !text.empty() && text[0] == '-';
    const auto body = negative ? text.substr(1) : text;
    const auto dot = body.find('.');
    std::int64_t ns = std::stoll(body.substr(0, dot)) * 1000;
    if (dot != std::string::npos) {
        auto fraction = body.substr(dot + 1);
        fraction.resize(3, '0');
        ns += std::stoll(fraction);
    }
    return negative ? -ns : ns;
}

// A row of a NAME.utilization.csv golden (device, busy_us, step_busy_us, step_time_us): the
// GPU's busy share every view shows, over the steps when the golden has step figures, else
// over the trace's span, spanNs.
inline double goldenGpuShare(const std::vector<std::string> &row, std::int64_t spanNs)
{
    return row[2].empty() ? double(microsToNs(row[1])) / double(spanNs) : double(microsToNs(row[2])) / double(microsToNs(row[3]));
}

} // namespace pyrometer::analysis::testing
