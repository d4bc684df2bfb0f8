// Work per op against an independent calculation from the raw JSON (scripts/make-roofline-fixtures.py),
// and rooflines worked by hand: a GEMM and an elementwise op on an H100, an unknown device, an op
// of unknown work, each op counted once.
#include "analysistestutil.h"
#include "core/analysis/kernelnames.h"
#include "core/analysis/roofline.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

namespace {

// The golden file's key of a call: name and its texts as compact JSON.
std::string canonical(std::string_view text)
{
    return text.empty() ? std::string() : nlohmann::json::parse(text).dump();
}

double goldenFigure(const std::string &text)
{
    return text == "unknown" ? OpWork::kUnknown : std::stod(text);
}

bool sameFigure(double a, double b)
{
    return (a < 0 && b < 0) || std::abs(a - b) <= 1e-12 * std::max(std::abs(a), 1.0);
}

// A GPU trace of a few ops, each launching one kernel by correlation, on device `device`.
// Each op: name, input dims, input types, concrete inputs (JSON texts), kernel duration in µs.
struct TestOp {
    std::string name;
    std::string dims;
    std::string types;
    std::string concrete;
    int kernelUs = 0;
    std::vector<TestOp> children = {};
    int kernels = 1; // launched one after another, each kernelUs long
    std::vector<int> moreKernelsUs = {}; // launched after those, each as long as given
};

class TraceWriter {
public:
    explicit TraceWriter(std::string device) : m_device(std::move(device)) {}
    std::string json(const std::vector<TestOp> &ops)
    {
        int at = 10;
        for (const auto &op : ops)
            at = add(op, at) + 5;
        std::string text = R"({"deviceProperties": [{"id": 0, "name": ")" + m_device + R"("}], "traceEvents": [)";
        for (std::size_t i = 0; i < m_events.size(); ++i)
            text += (i ? ",\n" : "\n") + m_events[i];
        return text + "]}";
    }

private:
    // Returns the op's end (µs); children run one after another inside it.
    int add(const TestOp &op, int start)
    {
        const int me = int(m_events.size());
        m_events.emplace_back();
        int at = start + 1;
        for (const auto &child : op.children)
            at = add(child, at) + 1;
        std::vector<int> kernels(op.kernelUs > 0 ? std::size_t(op.kernels) : 0, op.kernelUs);
        kernels.insert(kernels.end(), op.moreKernelsUs.begin(), op.moreKernelsUs.end());
        for (const int kernelUs : kernels) {
            const int correlation = ++m_correlation;
            m_events.push_back(R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": )"
                               + std::to_string(at) + R"(, "dur": 2, "args": {"correlation": )" + std::to_string(correlation) + "}}");
            m_events.push_back(R"({"ph": "X", "cat": "kernel", "name": "kernel_)" + std::to_string(correlation) +
                               R"(", "pid": 0, "tid": 7, "ts": )" + std::to_string(m_gpuClock) + R"(, "dur": )" +
                               std::to_string(kernelUs) + R"(, "args": {"correlation": )" +
                               std::to_string(correlation) + R"(, "device": 0, "stream": 7}})");
            m_gpuClock += kernelUs + 5;
            at += 3;
        }
        std::string args = R"("Input Dims": )" + op.dims + R"(, "Input type": )" + op.types;
        if (!op.concrete.empty())
            args += R"(, "Concrete Inputs": )" + op.concrete;
        m_events[std::size_t(me)] = R"({"ph": "X", "cat": "cpu_op", "name": ")" + op.name + R"(", "pid": 1, "tid": 1, "ts": )"
            + std::to_string(start) + R"(, "dur": )" + std::to_string(at + 1 - start) + R"(, "args": {)" + args + "}}";
        return at + 1;
    }

    std::string m_device;
    std::vector<std::string> m_events;
    int m_correlation = 0;
    int m_gpuClock = 100000;
};

Loaded loadText(const QTemporaryDir &dir, const std::string &text)
{
    const auto path = std::filesystem::path(dir.path().toStdString()) / "trace.json";
    std::ofstream(path) << text;
    auto loaded = trace::loadTrace(path);
    if (!loaded.ok())
        return {};
    return {loaded.value(), buildTraceIndex(*loaded.value())};
}

const RooflineRow *rowNamed(const Roofline &roofline, const std::string &name)
{
    for (const auto &row : roofline.rows)
        if (row.name == name)
            return &row;
    return nullptr;
}

const TestOp kGemm{"aten::mm", "[[4096, 4096], [4096, 4096]]", R"(["c10::BFloat16", "c10::BFloat16"])", R"(["", ""])", 200};
const TestOp kAdd{"aten::add", "[[16777216], [16777216], []]", R"(["float", "float", "Scalar"])", R"(["", "", "1"])", 100};
// aten::linear holding the aten::addmm that launches its 40 µs kernel.
const TestOp kLinear{"aten::linear", "[[128, 256], [512, 256], [512]]", R"(["float", "float", "float"])", R"(["", "", ""])", 0,
                     {{"aten::addmm", "[[512], [128, 256], [256, 512], [], []]",
                       R"(["float", "float", "float", "Scalar", "Scalar"])", R"(["", "", "", "1", "1"])", 40}}};

} // namespace

class TestRoofline : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { verifyFixtures(); }

    void workMatchesIndependentCalculation_data()
    {
        QTest::addColumn<QString>("fixture");
        for (const char *name : {"h100_bert", "mi250_rocm", "v100_resnet50"})
            QTest::newRow(name) << QString(name);
    }

    // Every op with a formula in the fixture has the FLOPs and bytes the script computed from
    // the raw JSON, unknown where it says unknown; every row of the golden file occurs.
    void workMatchesIndependentCalculation()
    {
        QFETCH(QString, fixture);
        const auto loaded = loadFixture(fixture.toStdString());
        QVERIFY(loaded.trace);
        std::map<std::string, std::pair<double, double>> golden;
        const auto csv = readCsv(goldenPath(fixture.toStdString(), ".opwork.csv"));
        QVERIFY(csv.size() > 1);
        for (std::size_t r = 1; r < csv.size(); ++r)
            golden[csv[r][0] + '\t' + csv[r][1] + '\t' + csv[r][2] + '\t' + csv[r][3]] = {goldenFigure(csv[r][4]), goldenFigure(csv[r][5])};
        const auto &trace = *loaded.trace;
        std::set<std::string> seen;
        for (const auto &track : trace.tracks) {
            for (std::size_t e = 0; e < track.size(); ++e) {
                if (track.args[e] == trace::Track::kNoArgs)
                    continue;
                const auto &args = trace.args[track.args[e]];
                if (!args.inputDims.isValid() || !args.inputTypes.isValid())
                    continue;
                const auto name = trace.string(track.eventName[e]);
                const auto concrete = args.concreteInputs.isValid() ? trace.string(args.concreteInputs) : std::string_view();
                const auto work = opWork(name, trace.string(args.inputDims), trace.string(args.inputTypes), concrete);
                if (!work.hasFormula)
                    continue;
                const auto key = std::string(name) + '\t' + canonical(trace.string(args.inputDims)) + '\t'
                    + canonical(trace.string(args.inputTypes)) + '\t' + canonical(concrete);
                const auto it = golden.find(key);
                QVERIFY2(it != golden.end(), ("not in the golden file: " + key).c_str());
                QVERIFY2(sameFigure(work.flops, it->second.first),
                         (key + ": flops " + std::to_string(work.flops) + ", golden " + std::to_string(it->second.first)).c_str());
                QVERIFY2(sameFigure(work.bytes, it->second.second),
                         (key + ": bytes " + std::to_string(work.bytes) + ", golden " + std::to_string(it->second.second)).c_str());
                seen.insert(key);
            }
        }
        QCOMPARE(seen.size(), golden.size());
    }

    // A 4096^3 BF16 GEMM in 200 µs and an FP32 add of 16 Mi elements in 100 µs on an H100 SXM5
    // (989.4 TFLOP/s BF16, 67 TFLOP/s FP32 vector, 3.35 TB/s).
    void gemmAndElementwiseOnH100()
    {
        QTemporaryDir dir;
        const auto loaded = loadText(dir, TraceWriter("NVIDIA H100 80GB HBM3").json({kGemm, kAdd}));
        QVERIFY(loaded.index);
        const auto roofline = buildRoofline(*loaded.index);
        QVERIFY(roofline.gpu);
        QVERIFY(roofline.device);
        QCOMPARE(roofline.device->name, std::string("NVIDIA H100 SXM5 80GB"));

        const auto *gemm = rowNamed(roofline, "aten::mm");
        QVERIFY(gemm);
        const double n = 4096;
        QCOMPARE(gemm->calls, 1u);
        QCOMPARE(gemm->timeNs, 200000);
        QCOMPARE(gemm->flops, 2 * n * n * n);
        QCOMPARE(gemm->bytes, 3 * n * n * 2);
        QCOMPARE(gemm->intensity, 2 * n * n * n / (3 * n * n * 2)); // 1365.3 FLOP/byte
        QCOMPARE(gemm->achievedFlops, 2 * n * n * n / 200e-6);      // 687.2 TFLOP/s
        QVERIFY(gemm->roof);
        QCOMPARE(gemm->roof->precision, Precision::BF16);
        QCOMPARE(gemm->roof->peakFlops, 989.4e12);
        QCOMPARE(gemm->bound, Bound::Compute); // the ridge is 989.4 / 3.35 = 295 FLOP/byte
        QVERIFY(std::abs(gemm->percentOfRoof - 69.4556) < 1e-3);

        const auto *add = rowNamed(roofline, "aten::add");
        QVERIFY(add);
        const double elements = 16777216;
        QCOMPARE(add->flops, elements);
        QCOMPARE(add->bytes, 3 * elements * 4);
        QCOMPARE(add->roof->precision, Precision::FP32);
        QCOMPARE(add->roof->peakFlops, 67e12);
        QCOMPARE(add->bound, Bound::Memory); // 1/12 FLOP/byte
        QCOMPARE(add->achievedBandwidth, 3 * elements * 4 / 100e-6); // 2.01 TB/s
        // Its roof at 1/12 FLOP/byte is 3.35e12 / 12 FLOP/s: 60.1% of it.
        QVERIFY(std::abs(add->percentOfRoof - 100 * (elements / 100e-6) / (3.35e12 / 12)) < 1e-9);
        QCOMPARE(roofline.totalNs, 300000);
        QCOMPARE(roofline.knownNs, 300000);
    }

    // A device the table lacks has no roof: figures of work and achieved rates stay, the share
    // of the roof and the bound are unknown; a given roof then places the ops.
    void unknownDeviceHasNoRoof()
    {
        QTemporaryDir dir;
        const auto loaded = loadText(dir, TraceWriter("AMD Radeon Graphics").json({kGemm}));
        QVERIFY(loaded.index);
        auto roofline = buildRoofline(*loaded.index);
        QCOMPARE(roofline.traceDevice, std::string("AMD Radeon Graphics"));
        QVERIFY(!roofline.device);
        const auto *gemm = rowNamed(roofline, "aten::mm");
        QVERIFY(gemm);
        QVERIFY(gemm->known());
        QVERIFY(!gemm->roof);
        QCOMPARE(gemm->percentOfRoof, OpWork::kUnknown);
        QCOMPARE(gemm->bound, Bound::Unknown);

        RooflineOptions options;
        options.device = customDevice("mine", 1000e12, 2e12);
        roofline = buildRoofline(*loaded.index, options);
        gemm = rowNamed(roofline, "aten::mm");
        QVERIFY(gemm && gemm->roof);
        QCOMPARE(gemm->roof->peakFlops, 1000e12);
        QCOMPARE(gemm->bound, Bound::Compute);
        QVERIFY(std::abs(gemm->percentOfRoof - 100 * (2 * 4096.0 * 4096 * 4096 / 200e-6) / 1000e12) < 1e-9);
        // A fallback roof stands in only where the table has none for the trace's device.
        RooflineOptions fallback;
        fallback.fallbackDevice = customDevice("preferences", 100e12, 1e12);
        QCOMPARE(buildRoofline(*loaded.index, fallback).device->name, std::string("preferences"));
        const auto h100 = loadText(dir, TraceWriter("NVIDIA H100 80GB HBM3").json({kGemm}));
        QCOMPARE(buildRoofline(*h100.index, fallback).device->name, std::string("NVIDIA H100 SXM5 80GB"));
        QVERIFY(findDevice("mi300x"));
        options.device = findDevice("mi300x");
        QCOMPARE(buildRoofline(*loaded.index, options).device->name, std::string("AMD Instinct MI300X"));
    }

    // An op without a formula, or whose shapes the trace lacks, is unknown work, never 0: its
    // time is kept apart and does not count as known.
    void unknownWorkIsShownAsSuch()
    {
        QTemporaryDir dir;
        const TestOp scatter{"aten::scatter_add_", "[[1024], [], [1024], [1024]]", R"(["float", "Int", "long int", "float"])",
                             R"(["", "0", "", ""])", 50};
        // A convolution without Concrete Inputs (before torch 2.0): its output size is unknown.
        const TestOp conv{"aten::conv2d", "[[8, 3, 32, 32], [16, 3, 3, 3], [], [], [], [], []]",
                          R"(["float", "float", "", "GenericList", "GenericList", "GenericList", "Int"])", "", 30};
        const auto loaded = loadText(dir, TraceWriter("NVIDIA H100 80GB HBM3").json({kAdd, scatter, conv}));
        QVERIFY(loaded.index);
        const auto roofline = buildRoofline(*loaded.index);
        QCOMPARE(roofline.totalNs, 180000);
        QCOMPARE(roofline.knownNs, 100000);
        QVERIFY(roofline.rows.front().known());
        for (const auto *name : {"aten::scatter_add_", "aten::conv2d"}) {
            const auto *row = rowNamed(roofline, name);
            QVERIFY2(row, name);
            QVERIFY(!row->known());
            QCOMPARE(row->flops, OpWork::kUnknown);
            QCOMPARE(row->bound, Bound::Unknown);
            QCOMPARE(row->calls, 1u);
        }
        QCOMPARE(rowNamed(roofline, "aten::scatter_add_")->timeNs, 50000);
        QCOMPARE(roofline.rows.back().known(), false);
    }

    // aten::linear holds aten::addmm, which launches the kernel: one call of known work, not two.
    // An unknown outer op leaves its inner ops to be counted.
    void eachOpCountedOnce()
    {
        QTemporaryDir dir;
        const TestOp linear = kLinear;
        TestOp wrapper{"aten::my_wrapper", "[[128, 256]]", R"(["float"])", R"([""])", 0, {kAdd}};
        const auto loaded = loadText(dir, TraceWriter("NVIDIA A100-SXM4-80GB").json({linear, wrapper}));
        QVERIFY(loaded.index);
        const auto roofline = buildRoofline(*loaded.index);
        QVERIFY(!rowNamed(roofline, "aten::addmm"));
        const auto *row = rowNamed(roofline, "aten::linear");
        QVERIFY(row);
        QCOMPARE(row->calls, 1u);
        QCOMPARE(row->timeNs, 40000);
        QCOMPARE(row->flops, 2.0 * 128 * 256 * 512 + 128 * 512);
        QCOMPARE(row->bytes, (128.0 * 256 + 512 * 256 + 512 + 128 * 512) * 4);
        QCOMPARE(row->roof->precision, Precision::FP32); // a matmul: torch leaves TF32 off
        QVERIFY(rowNamed(roofline, "aten::add"));
        QVERIFY(!rowNamed(roofline, "aten::my_wrapper"));
        QCOMPARE(roofline.knownNs, 140000);

        // A float convolution on NVIDIA takes the TF32 roof (cuDNN's default under torch).
        const auto a100 = *findDevice("A100 80GB");
        QCOMPARE(roofFor(a100, "float", WorkUnit::Matrix, true).precision, Precision::TF32);
        QCOMPARE(roofFor(a100, "float", WorkUnit::Matrix, false).precision, Precision::FP32);
        QCOMPARE(roofFor(*findDevice("MI300X"), "float", WorkUnit::Matrix, true).precision, Precision::FP32);
    }

    // Under torch.autocast an fp32 aten::linear casts its operands and runs a bf16 aten::linear,
    // whose aten::addmm launches the GEMM: the row has the product's dtype, bytes and roof, over the
    // GEMM's time; the casts' kernels are time of their own.
    void autocastProductCountsWhatRan()
    {
        QTemporaryDir dir;
        const std::string dims = "[[4096, 4096], [4096, 4096], [4096]]";
        const TestOp addmm{"aten::addmm", "[[4096], [4096, 4096], [4096, 4096], [], []]",
                           R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"])",
                           R"(["", "", "", "1", "1"])", 200};
        const TestOp cast{"aten::to", "[[4096, 4096], [], [], [], []]",
                          R"(["float", "ScalarType", "Bool", "Bool", ""])", R"(["", "15", "False", "False", ""])", 30};
        const TestOp inner{"aten::linear",    dims, R"(["c10::BFloat16", "c10::BFloat16", "c10::BFloat16"])",
                           R"(["", "", ""])", 0,    {addmm}};
        const TestOp outer{"aten::linear", dims, R"(["float", "float", "float"])", R"(["", "", ""])", 0, {cast, inner}};
        const auto loaded = loadText(dir, TraceWriter("NVIDIA H100 80GB HBM3").json({outer}));
        QVERIFY(loaded.index);
        const auto roofline = buildRoofline(*loaded.index);
        const auto *row = rowNamed(roofline, "aten::linear");
        QVERIFY(row);
        const double n = 4096;
        QCOMPARE(row->dtype, std::string("c10::BFloat16"));
        QCOMPARE(row->calls, 1u);
        QCOMPARE(row->timeNs, 200000); // the GEMM, not the cast
        QCOMPARE(row->flops, 2 * n * n * n + n * n);
        QCOMPARE(row->bytes, (n + 3 * n * n) * 2); // bias, both operands and the output at 2 bytes
        // 1.37e11 FLOP over 1.01e8 bytes: 1365 FLOP/byte, above the H100's BF16 ridge of 295.
        QCOMPARE(row->intensity, (2 * n * n * n + n * n) / ((n + 3 * n * n) * 2));
        QVERIFY(row->roof);
        QCOMPARE(row->roof->precision, Precision::BF16);
        QCOMPARE(row->bound, Bound::Compute);
        // 687.3 TFLOP/s of 989.4: within the roof (counted at 4 bytes and FP32's 67 TFLOP/s it read
        // as 1026% of the roof).
        QVERIFY(std::abs(row->percentOfRoof - 100 * ((2 * n * n * n + n * n) / 200e-6) / 989.4e12) < 1e-9);
        QVERIFY(row->percentOfRoof <= 100);
        const auto *casts = rowNamed(roofline, "aten::to");
        QVERIFY(casts);
        QCOMPARE(casts->timeNs, 30000);
        QCOMPARE(roofline.totalNs, 230000);
        QCOMPARE(roofline.knownNs, 200000);

        // The same op in two dtypes: two rows. fp16 on a V100 meets its FP16 roof (no BF16 units).
        TestOp half = kGemm;
        half.types = R"(["c10::Half", "c10::Half"])";
        TestOp single = kGemm;
        single.types = R"(["float", "float"])";
        const auto v100 = loadText(dir, TraceWriter("Tesla V100-SXM2-32GB").json({half, single}));
        const auto both = buildRoofline(*v100.index);
        std::map<std::string, const RooflineRow *> byDtype;
        for (const auto &r : both.rows)
            if (r.name == "aten::mm")
                byDtype[r.dtype] = &r;
        QCOMPARE(byDtype.size(), std::size_t(2));
        QCOMPARE(byDtype["c10::Half"]->roof->precision, Precision::FP16);
        QCOMPARE(byDtype["c10::Half"]->roof->peakFlops, 125e12);
        QCOMPARE(byDtype["c10::Half"]->bytes, 3 * n * n * 2);
        QCOMPARE(byDtype["float"]->roof->precision, Precision::FP32);
        QCOMPARE(byDtype["float"]->bytes, 3 * n * n * 4);
    }

    // A call that launched a GEMM and a small reduction (split-K): the GEMM, 90% of the call's
    // device time, is given the call's work and says so; the reduction stays unknown.
    void kernelTakesItsLaunchersWork()
    {
        QTemporaryDir dir;
        TestOp linear = kLinear;
        linear.children.front().kernelUs = 90;
        linear.children.front().moreKernelsUs = {10};
        const auto loaded = loadText(dir, TraceWriter("NVIDIA A100-SXM4-80GB").json({linear}));
        RooflineOptions options;
        options.byKernel = true;
        const auto roofline = buildRoofline(*loaded.index, options);
        QCOMPARE(roofline.rows.size(), std::size_t(2));
        const auto &gemm = roofline.rows.front();
        QCOMPARE(gemm.name, std::string("kernel_1"));
        QVERIFY(gemm.known());
        QVERIFY(gemm.workOfLauncher);
        QCOMPARE(gemm.flops, 2.0 * 128 * 256 * 512 + 128 * 512);
        QCOMPARE(gemm.timeNs, 90000);
        QCOMPARE(gemm.launcher, std::string("aten::linear"));
        const auto &reduce = roofline.rows.back();
        QCOMPARE(reduce.name, std::string("kernel_2"));
        QVERIFY(!reduce.known());
        QCOMPARE(roofline.knownNs, 90000);

        // Kernels of like size share a call's work in ways a trace does not record: unknown.
        linear.children.front().moreKernelsUs = {60};
        const auto even =
            buildRoofline(*loadText(dir, TraceWriter("NVIDIA A100-SXM4-80GB").json({linear})).index, options);
        for (const auto &row : even.rows)
            QVERIFY(!row.known() && !row.workOfLauncher);
    }

    // Data that stays in the cache beats main memory's roof: a row above it is measured against
    // the cache's bandwidth where the device has one, never shown at 1200% of the roof.
    void cacheResidentDataMeetsTheCacheRoof()
    {
        RooflineRow row;
        row.name = "aten::relu";
        row.dtype = "float";
        row.flops = 1e9;
        row.bytes = 12e9; // 1/12 FLOP/byte
        row.timeNs = 1'000'000;
        auto device = customDevice("cpu", 100e12, 1e12);
        placeUnderRoof(row, device);
        QVERIFY(!row.cacheRoof);
        QCOMPARE(row.percentOfRoof, 1200.0); // 1e12 FLOP/s against 1e12 / 12
        device.cacheBandwidth = 20e12;
        device.cacheName = "cache";
        row.percentOfRoof = OpWork::kUnknown;
        placeUnderRoof(row, device);
        QVERIFY(row.cacheRoof);
        QCOMPARE(row.bound, Bound::Memory);
        QCOMPARE(row.percentOfRoof, 100 * 1e12 / (20e12 / 12)); // 60%
        // Below main memory's roof the cache is not needed to explain it.
        row.timeNs = 100'000'000;
        row.cacheRoof = false;
        placeUnderRoof(row, device);
        QVERIFY(!row.cacheRoof);
        QCOMPARE(row.percentOfRoof, 12.0);
    }

    // On the H100 fixture every op of known work has a roof and a bound, and the findings name
    // ops of the table.
    void bertOnH100()
    {
        const auto loaded = loadFixture("h100_bert");
        QVERIFY(loaded.index);
        const auto roofline = buildRoofline(*loaded.index);
        QVERIFY(roofline.device);
        QCOMPARE(roofline.device->name, std::string("NVIDIA H100 SXM5 80GB"));
        QVERIFY(roofline.knownNs > 0 && roofline.knownNs <= roofline.totalNs);
        std::int64_t known = 0;
        for (const auto &row : roofline.rows) {
            if (!row.known())
                continue;
            known += row.timeNs;
            QVERIFY(row.roof);
            QVERIFY(row.bound != Bound::Unknown);
            QVERIFY2(row.percentOfRoof > 0 && row.percentOfRoof < 100, row.name.c_str());
        }
        QCOMPARE(known, roofline.knownNs);
        QVERIFY(rowNamed(roofline, "aten::linear"));
        QVERIFY(rowNamed(roofline, "aten::scaled_dot_product_attention"));
        for (const auto &finding : rooflineFindings(roofline)) {
            if (finding.kind != RooflineFinding::Kind::FuseChain) {
                QVERIFY(rowNamed(roofline, finding.op));
                continue;
            }
            const auto chain = std::find_if(roofline.chains.begin(), roofline.chains.end(),
                                            [&](const auto &c) { return chainName(c) == finding.op; });
            QVERIFY(chain != roofline.chains.end());
            for (const auto &op : chain->ops)
                QVERIFY2(rowNamed(roofline, op), op.c_str());
        }
        // Every op of known work launched one kernel here: by kernel, the same work over the same
        // time, each GEMM kernel launched by aten::linear.
        RooflineOptions byKernel;
        byKernel.byKernel = true;
        const auto kernels = buildRoofline(*loaded.index, byKernel);
        QCOMPARE(kernels.totalNs, roofline.totalNs);
        QCOMPARE(kernels.knownNs, roofline.knownNs);
        double opFlops = 0, kernelFlops = 0;
        for (const auto &row : roofline.rows)
            opFlops += std::max(0.0, row.flops);
        for (const auto &row : kernels.rows) {
            kernelFlops += std::max(0.0, row.flops);
            QVERIFY(row.device >= 0 && row.stream >= 0);
            QVERIFY(!row.launcher.empty());
        }
        QCOMPARE(kernelFlops, opFlops);
    }

    // By kernel: a kernel has the work of the call that launched it alone; the kernels of a call
    // that launched two are unknown. Each row names its launching op, device and stream.
    void kernelRows()
    {
        QTemporaryDir dir;
        const TestOp linear = kLinear;
        TestOp twoKernels = kAdd;
        twoKernels.kernels = 2;
        twoKernels.kernelUs = 30;
        const auto loaded = loadText(dir, TraceWriter("NVIDIA H100 80GB HBM3").json({kGemm, linear, twoKernels}));
        QVERIFY(loaded.index);
        RooflineOptions options;
        options.byKernel = true;
        const auto roofline = buildRoofline(*loaded.index, options);
        QCOMPARE(roofline.rows.size(), std::size_t(4));
        QCOMPARE(roofline.totalNs, 200000 + 40000 + 2 * 30000);
        QCOMPARE(roofline.knownNs, 240000);
        const auto *gemm = rowNamed(roofline, "kernel_1");
        QVERIFY(gemm);
        QCOMPARE(gemm->flops, 2.0 * 4096 * 4096 * 4096);
        QCOMPARE(gemm->launcher, std::string("aten::mm"));
        QCOMPARE(gemm->device, 0);
        QCOMPARE(gemm->stream, 7);
        QCOMPARE(gemm->bound, Bound::Compute);
        const auto *addmmKernel = rowNamed(roofline, "kernel_2");
        QVERIFY(addmmKernel);
        QCOMPARE(addmmKernel->launcher, std::string("aten::linear"));
        QCOMPARE(addmmKernel->flops, 2.0 * 128 * 256 * 512 + 128 * 512);
        QCOMPARE(addmmKernel->timeNs, 40000);
        for (const auto *name : {"kernel_3", "kernel_4"}) {
            const auto *row = rowNamed(roofline, name);
            QVERIFY2(row, name);
            QVERIFY(!row->known());
            QCOMPARE(row->launcher, std::string("aten::add"));
            QCOMPARE(row->timeNs, 30000);
        }
        // Findings name a kernel short, with its launching op.
        QCOMPARE(shortKernelName("void at::native::vectorized_elementwise_kernel<4, float>(int, float*)", 80),
                 std::string("vectorized_elementwise_kernel<4, float>"));
        const std::string longName = "void cutlass::Kernel2<" + std::string(100, 'x') + ">(Params)";
        // 80 characters, the middle given way to one "…" (three bytes).
        QCOMPARE(shortKernelName(longName, 80), "Kernel2<" + std::string(32, 'x') + "…" + std::string(38, 'x') + ">");
        // A CPU trace has no kernels.
        const auto cpu = loadText(dir, R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1,
            "ts": 1, "dur": 5, "args": {"Input Dims": [[4], [4], []], "Input type": ["float", "float", "Scalar"]}}]})");
        QVERIFY(cpu.index);
        QVERIFY(buildRoofline(*cpu.index, options).rows.empty());
    }

    // Every op on its own: aten::addmm inside aten::linear has a row too, each over the device
    // time of what it launched.
    void everyOpRows()
    {
        QTemporaryDir dir;
        const TestOp linear = kLinear;
        const auto loaded = loadText(dir, TraceWriter("NVIDIA A100-SXM4-80GB").json({linear, linear}));
        QVERIFY(loaded.index);
        RooflineOptions options;
        options.everyOp = true;
        const auto roofline = buildRoofline(*loaded.index, options);
        QCOMPARE(roofline.rows.size(), std::size_t(2));
        for (const auto *name : {"aten::linear", "aten::addmm"}) {
            const auto *row = rowNamed(roofline, name);
            QVERIFY2(row, name);
            QCOMPARE(row->calls, 2u);
            QCOMPARE(row->timeNs, 80000);
            QCOMPARE(row->flops, 2 * (2.0 * 128 * 256 * 512 + 128 * 512));
            QVERIFY(row->roof);
        }
        QVERIFY(roofline.chains.empty());
    }

    // Memory-bound ops one after the other make a chain; a view between them does not break it,
    // a compute-bound op or an op of unknown work that ran on the device does.
    void memoryBoundChains()
    {
        QTemporaryDir dir;
        const TestOp gelu{"aten::gelu", "[[16777216]]", R"(["float"])", R"([""])", 50};
        const TestOp view{"aten::view", "[[16777216], []]", R"(["float", "IntList"])", R"(["", "[16777216]"])", 0};
        const TestOp scatter{"aten::scatter_add_", "[[1024], [], [1024], [1024]]", R"(["float", "Int", "long int", "float"])",
                             R"(["", "0", "", ""])", 20};
        // A product too small for the matrix units: memory-bound, yet it ends a chain.
        const TestOp smallMm{"aten::mm", "[[8, 64], [64, 64]]", R"(["c10::BFloat16", "c10::BFloat16"])", R"(["", ""])", 100};
        const auto loaded = loadText(dir, TraceWriter("NVIDIA H100 80GB HBM3")
                                              .json({kAdd, view, gelu, kGemm, kAdd, gelu, scatter, kAdd, kGemm, kAdd, smallMm,
                                                     gelu}));
        QVERIFY(loaded.index);
        const auto roofline = buildRoofline(*loaded.index);
        QCOMPARE(roofline.chains.size(), std::size_t(1));
        const auto &chain = roofline.chains.front();
        QCOMPARE(chain.ops, (std::vector<std::string>{"aten::add", "aten::gelu"}));
        QCOMPARE(chain.occurrences, 2u);
        QCOMPARE(chain.timeNs, 2 * (100000 + 50000));
        QCOMPARE(chain.bytes, 2 * (3.0 * 16777216 * 4 + 2.0 * 16777216 * 4));
        QCOMPARE(chainName(chain), std::string("aten::add → aten::gelu"));
        const auto findings = rooflineFindings(roofline);
        QVERIFY(!findings.empty());
        QCOMPARE(findings.front().kind, RooflineFinding::Kind::FuseChain);
        QCOMPARE(findings.front().op, std::string("aten::add → aten::gelu"));
        QVERIFY(findings.front().text.find("2 times") != std::string::npos);
        // The chained ops get no finding of their own; the small product gets the matrix advice.
        for (const auto &finding : findings)
            QVERIFY(finding.kind != RooflineFinding::Kind::FuseMemoryBound || (finding.op != "aten::add" && finding.op != "aten::gelu"));
        const auto *mm = rowNamed(roofline, "aten::mm");
        QVERIFY(mm);
        QCOMPARE(mm->calls, 3u);
        const auto matrix = std::find_if(findings.begin(), findings.end(), [](const auto &f) {
            return f.op == "aten::mm" && f.text.find("too small to reuse") != std::string::npos;
        });
        QVERIFY(matrix == findings.end()); // aten::mm's row holds the big GEMMs too: compute-bound
        RooflineOptions byShape;
        byShape.byShape = true;
        const auto shaped = rooflineFindings(buildRoofline(*loaded.index, byShape));
        QVERIFY(std::any_of(shaped.begin(), shaped.end(), [](const auto &f) {
            return f.op == "aten::mm" && f.text.find("too small to reuse") != std::string::npos;
        }));
        // Without a roof there is no bound, so no chain.
        const auto unknown = loadText(dir, TraceWriter("AMD Radeon Graphics").json({kAdd, gelu}));
        QVERIFY(unknown.index);
        QVERIFY(buildRoofline(*unknown.index).chains.empty());
        // A long chain's name elides its middle.
        RooflineChain longChain;
        longChain.ops = {"a", "b", "c", "d", "e", "f", "g", "h"};
        QCOMPARE(chainName(longChain), std::string("a → b → c → … (2 more) → f → g → h"));
    }

    // A compute-bound op far below its peak gets only the changes it has not made: no "try
    // BF16" to a BF16 product, channels_last only for convolutions.
    void belowTheRoofSuggestsWhatIsNotDone()
    {
        Roofline roofline;
        roofline.gpu = true;
        roofline.totalNs = 300;
        const auto row = [](std::string name, Precision precision) {
            RooflineRow r;
            r.name = std::move(name);
            r.calls = 1;
            r.timeNs = 100;
            r.flops = 1e9;
            r.bytes = 1e6;
            r.roof = Roof{precision, 1e15, 1e12};
            r.percentOfRoof = 10;
            r.bound = Bound::Compute;
            return r;
        };
        roofline.rows = {row("aten::mm", Precision::BF16), row("aten::conv2d", Precision::FP32),
                         row("aten::bmm", Precision::FP32)};
        std::map<std::string, std::string> texts;
        for (const auto &finding : rooflineFindings(roofline))
            if (finding.kind == RooflineFinding::Kind::BelowComputeRoof)
                texts[finding.op] = finding.text;
        QCOMPARE(texts.size(), std::size_t(3));
        QVERIFY2(texts["aten::mm"].find("BF16, TF32") == std::string::npos, texts["aten::mm"].c_str());
        QVERIFY2(texts["aten::mm"].find("channels_last") == std::string::npos, texts["aten::mm"].c_str());
        QVERIFY2(texts["aten::mm"].find("try shapes that are multiples of 8") != std::string::npos,
                 texts["aten::mm"].c_str());
        QVERIFY2(texts["aten::conv2d"].find("try a faster dtype (BF16, TF32), channels_last layout, or shapes") !=
                     std::string::npos,
                 texts["aten::conv2d"].c_str());
        QVERIFY2(texts["aten::bmm"].find("try a faster dtype (BF16, TF32), or shapes") != std::string::npos,
                 texts["aten::bmm"].c_str());
    }
};

QTEST_GUILESS_MAIN(TestRoofline)
#include "tst_roofline.moc"
