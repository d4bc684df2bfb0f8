// What work a trace holds, beyond CUDA's and NCCL's names: runtime calls by what they do,
// communication kernels of expert-parallel and custom collectives, other accelerators' device
// work (MTIA on the real trace; an unknown accelerator's category found through its launch
// flows), and categories no analysis reads. Expected figures of the MTIA trace were summed by
// a script over its JSON (per-name counts and durations of mtia_ccp_events).
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/distributed.h"
#include "core/analysis/kerneltable.h"
#include "core/analysis/kerneltypes.h"
#include "core/analysis/workclass.h"
#endif

#include <QObject>
#include <QTemporaryDir>

#include <map>

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

namespace {

Loaded loadText(const std::string &text)
{
    QTemporaryDir dir;
    const auto path = std::filesystem::path(dir.path().toStdString()) / "trace.json";
    std::ofstream(path) << text;
    return loadTracePath(path);
}

// A GEMM on stream 7 and DeepEP's dispatch on stream 9 (outside moc's view: its tokenizer
// does not read raw strings).
#ifndef Q_MOC_RUN
std::string expertParallelTrace()
{
    return R"({"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":500},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":1}},
{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":20,"dur":5,"args":{"correlation":2}},
{"ph":"X","cat":"kernel","name":"sm90_xmma_gemm_bf16bf16_bf16f32","pid":0,"tid":7,"ts":100,"dur":200,
 "args":{"device":0,"stream":7,"correlation":1}},
{"ph":"X","cat":"kernel","name":"void deep_ep::intranode::dispatch<8, 768, 8192>","pid":0,"tid":9,"ts":200,
 "dur":200,"args":{"device":0,"stream":9,"correlation":2}}]})";
}
#endif

} // namespace

class TestWorkClass : public QObject {
    Q_OBJECT

private slots:
    void runtimeCalls_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("call");
        const auto row = [](const char *name, RuntimeCall call) { QTest::newRow(name) << name << int(call); };
        row("cudaDeviceSynchronize", RuntimeCall::Synchronize);
        row("hipStreamSynchronize", RuntimeCall::Synchronize);
        row("synchronizeStream", RuntimeCall::Synchronize); // MTIA
        row("cudaMemcpy", RuntimeCall::BlockingCopy);
        row("hipMemcpyWithStream", RuntimeCall::BlockingCopy);
        row("cudaMemcpyAsync", RuntimeCall::Other);
        row("enqueueCommand memcpyDtoHAsync", RuntimeCall::Other);
        row("hipMalloc", RuntimeCall::Allocate);
        row("hipHostMalloc", RuntimeCall::Allocate);
        row("cudaMallocAsync", RuntimeCall::Allocate);
        row("cuMemCreate", RuntimeCall::Allocate);
        row("hipFree", RuntimeCall::Free);
        row("cudaFreeHost", RuntimeCall::Free);
        row("cuMemRelease", RuntimeCall::Free);
        row("cudaGraphLaunch", RuntimeCall::GraphLaunch);
        row("cudaEventRecord", RuntimeCall::EventRecord);
        row("recordEvent", RuntimeCall::EventRecord);
        row("cudaStreamWaitEvent", RuntimeCall::StreamWait);
        row("enqueueCommand waitOnEvent", RuntimeCall::StreamWait);
        row("cudaLaunchKernel", RuntimeCall::Other);
        row("hipGetDevicePropertiesR0600", RuntimeCall::Other);
    }

    void runtimeCalls()
    {
        QFETCH(QString, name);
        QFETCH(int, call);
        QCOMPARE(int(runtimeCallOf(name.toStdString())), call);
    }

    void communicationKernels_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("communicates");
        QTest::newRow("nccl") << "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)" << true;
        QTest::newRow("deepep dispatch") << "void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*)" << true;
        QTest::newRow("deepep combine") << "void deep_ep::internode_ll::combine<false, 7168>(void*, int)" << true;
        QTest::newRow("deepep notify") << "void deep_ep::intranode::notify_dispatch<8>(int const*, int*)" << true;
        QTest::newRow("vllm custom all-reduce")
            << "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals)" << true;
        QTest::newRow("symmetric memory")
            << "void c10d::symmetric_memory::one_shot_all_reduce_kernel<float, 16>()" << true;
        QTest::newRow("nvshmem") << "nvshmemi_transfer_rma_kernel" << true;
        QTest::newRow("mscclpp") << "void mscclpp::allreduce8<__half>(__half*, __half*)" << true;
        QTest::newRow("gemm") << "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn" << false;
        QTest::newRow("flash split-kv combine")
            << "void flash_fwd_splitkv_combine_kernel<Flash_fwd_kernel_traits>()" << false;
        QTest::newRow("cub reduce") << "void cub::DeviceReduceKernel<cub::DeviceReducePolicy<float>>()" << false;
    }

    // One classifier: the kernel types breakdown and the job's communication figures agree.
    void communicationKernels()
    {
        QFETCH(QString, name);
        QFETCH(bool, communicates);
        QCOMPARE(isCommunicationKernelName(name.toStdString()), communicates);
        QCOMPARE(classifyKernel(EventKind::Kernel, name.toStdString()) == KernelType::Communication, communicates);
    }

    // A job's communication figures count expert-parallel kernels: DeepEP's dispatch (200-400
    // µs) beside a GEMM (100-300 µs) is 200 µs of communication, half of it overlapped.
    void expertParallelCommunicationInRankFigures()
    {
        const auto loaded = loadText(expertParallelTrace());
        QVERIFY(loaded.index);
        const auto figures = rankFigures(*loaded.index);
        constexpr std::int64_t us = 1000;
        QCOMPARE(figures.communicationNs, 200 * us);
        QCOMPARE(figures.computeNs, 200 * us);
        QCOMPARE(figures.overlapNs, 100 * us);
        QCOMPARE(figures.overlapPct, 50.0);
        QCOMPARE(figures.steps.size(), std::size_t(1));
        QCOMPARE(figures.steps[0].communicationNs, 200 * us);
    }

    // Newer torch names the collective in the kernel's args: a kernel of any name is then
    // communication.
    void collectiveArgsMakeCommunication()
    {
        const auto loaded = loadText(R"({"traceEvents":[
{"ph":"X","cat":"kernel","name":"my_fused_moe_exchange","pid":0,"tid":7,"ts":10,"dur":5,
 "args":{"device":0,"stream":7,"correlation":1,"Collective name":"all_to_all","Group size":8}},
{"ph":"X","cat":"kernel","name":"my_fused_moe_gemm","pid":0,"tid":7,"ts":20,"dur":5,
 "args":{"device":0,"stream":7,"correlation":2}}]})");
        QVERIFY(loaded.index);
        const auto &trace = *loaded.trace;
        QCOMPARE(trace.tracks.size(), std::size_t(1));
        QVERIFY(isCommunicationEvent(trace, trace::TrackId(0), 0));
        QVERIFY(!isCommunicationEvent(trace, trace::TrackId(0), 1));
    }

    // MTIA's device work is kernels, DMA transfers and stream waits in one category; its
    // launches are mtia_runtime calls tied by correlation ids.
    void mtiaDeviceWork()
    {
        const auto loaded = loadTracePath(fixture2026("mtia_inference_rank_0.json.gz"));
        QVERIFY(loaded.index);
        const auto &index = *loaded.index;
        QVERIFY(index.hasDevice);
        QCOMPARE(acceleratorName(index), std::string("MTIA"));
        std::map<EventKind, std::uint64_t> kinds;
        for (std::uint32_t t = 0; t < loaded.trace->tracks.size(); ++t)
            for (const auto kind : index.tracks[t].kind)
                ++kinds[kind];
        QCOMPARE(kinds[EventKind::Kernel], std::uint64_t(36 + 37 + 24)); // merge, remote, pe_exe
        QCOMPARE(kinds[EventKind::Memcpy], std::uint64_t(877));          // dma_request
        QCOMPARE(kinds[EventKind::Sync], std::uint64_t(48 + 291));       // event_wait, event_record: not work
        QCOMPARE(kinds[EventKind::Runtime], std::uint64_t(823));         // mtia_runtime
        QVERIFY(unreadCategories(index).empty());

        const auto table = buildKernelTable(index);
        std::map<std::string, std::pair<std::uint64_t, std::int64_t>> rows;
        for (const auto &row : table.rows) {
            rows[row.name] = {row.count, row.totalNs};
            // Launched by the runtime's executor, not by an op, and not a graph replay.
            QCOMPARE(row.launchOp, std::string());
        }
        QCOMPARE(rows.size(), std::size_t(4));
        const auto near = [](std::int64_t ns, double us) { return std::abs(double(ns) / 1000.0 - us) < 0.01; };
        QCOMPARE(rows["merge"].first, std::uint64_t(36));
        QVERIFY(near(rows["merge"].second, 257869.75));
        QCOMPARE(rows["remote"].first, std::uint64_t(37));
        QVERIFY(near(rows["remote"].second, 48529.645));
        QCOMPARE(rows["pe_exe"].first, std::uint64_t(24));
        QVERIFY(near(rows["pe_exe"].second, 107685.728));
        QCOMPARE(rows["dma_request"].first, std::uint64_t(877));
        QVERIFY(near(rows["dma_request"].second, 45371.19));
    }

    // An accelerator no table knows: its category ends launch flows, so it is device work and
    // the flows' start category its runtime. A category that nothing explains is named.
    void unknownAcceleratorByFlows()
    {
        const auto loaded = loadText(R"({"traceEvents":[
{"ph":"M","name":"process_labels","pid":5,"tid":0,"args":{"labels":"NPU 5"}},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":50},
{"ph":"X","cat":"npu_driver","name":"aclLaunch","pid":1,"tid":1,"ts":10,"dur":5,"args":{"correlation":3}},
{"ph":"s","cat":"ac2g","name":"ac2g","id":3,"pid":1,"tid":1,"ts":10},
{"ph":"X","cat":"npu_task","name":"MatMul_kernel","pid":5,"tid":2,"ts":20,"dur":30,"args":{"correlation":3}},
{"ph":"f","cat":"ac2g","name":"ac2g","id":3,"pid":5,"tid":2,"ts":20,"bp":"e"},
{"ph":"X","cat":"npu_stats","name":"counters","pid":1,"tid":9,"ts":0,"dur":60},
{"ph":"X","cat":"npu_stats","name":"counters","pid":1,"tid":9,"ts":60,"dur":60}]})");
        QVERIFY(loaded.index);
        const auto &index = *loaded.index;
        QVERIFY(index.hasDevice);
        QCOMPARE(acceleratorName(index), std::string("NPU"));
        const auto table = buildKernelTable(index);
        QCOMPARE(table.rows.size(), std::size_t(1));
        QCOMPARE(table.rows[0].name, std::string("MatMul_kernel"));
        QCOMPARE(table.rows[0].launchOp, std::string("aten::mm"));
        QCOMPARE(unreadCategories(index), (std::vector<CategoryCount>{{"npu_stats", 2}}));
    }

    // A trace with no device work says why, naming what it could not read.
    void noDeviceWorkSaysWhy()
    {
        const auto cpu = loadText(R"({"traceEvents":[
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":50}]})");
        QVERIFY(cpu.index);
        QVERIFY(!cpu.index->hasDevice);
        QVERIFY(noDeviceWorkText(*cpu.index).find("no kernels") != std::string::npos);
        const auto odd = loadText(R"({"traceEvents":[
{"ph":"X","cat":"tpu_thing","name":"fusion.1","pid":3,"tid":1,"ts":0,"dur":50},
{"ph":"X","cat":"overhead","name":"Buffer flush","pid":-1,"tid":0,"ts":0,"dur":5}]})");
        QVERIFY(odd.index);
        const auto text = noDeviceWorkText(*odd.index);
        QVERIFY2(text.find("tpu_thing (1)") != std::string::npos, text.c_str());
        QVERIFY2(text.find("overhead") == std::string::npos, text.c_str()); // bookkeeping, not work
    }

    // Annotations and compiled regions are not operators.
    void annotationsAndCompiledRegions()
    {
        const auto loaded = loadTracePath(fixture2026("xdit_sd35_mi300x_compile.json.gz"));
        QVERIFY(loaded.index);
        const auto names = annotationNames(*loaded.index);
        QVERIFY(names.count("## Call CompiledFxGraph fp5r5pk7bndvtfxhvsvzndl5pa42kyv4kgpya5imdcl36x5bf6lh ##"));
        QVERIFY(names.count("ProfilerStep#3"));
        QVERIFY(!names.count("aten::mm"));
        QVERIFY(isCompiledRegionName("Torch-Compiled Region: 0/0"));
        QVERIFY(isCompiledRegionName("CompiledFunctionBackward"));
        QVERIFY(!isCompiledRegionName("aten::addmm"));
    }
};

QTEST_GUILESS_MAIN(TestWorkClass)
#include "tst_workclass.moc"
