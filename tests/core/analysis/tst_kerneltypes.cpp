// Kernel types: the name rules on real kernel names, and the breakdown against goldens that
// scripts/make-kerneltype-fixtures.py computed from the raw JSON with its own copy of the rules.
#include "analysistestutil.h"

#ifndef Q_MOC_RUN
#include "core/analysis/kerneltable.h"
#include "core/analysis/kerneltypes.h"
#include "core/analysis/steps.h"
#endif

#include <QObject>

#include <optional>
#include <set>

using namespace pyrometer;
using namespace pyrometer::analysis;
using namespace pyrometer::analysis::testing;

namespace {

const std::vector<std::string> &breakdownFixtures()
{
    static const std::vector<std::string> names{"h100_bert", "a100_alexnet", "mi250_rocm", "v100_resnet50"};
    return names;
}

std::optional<KernelType> typeNamed(const std::string &name)
{
    for (std::size_t t = 0; t < kKernelTypeCount; ++t) {
        if (kernelTypeName(static_cast<KernelType>(t)) == name)
            return static_cast<KernelType>(t);
    }
    return std::nullopt;
}

// Compares golden rows (type, calls, total_ns from column `first` on) with a breakdown, in order.
void compareRows(const KernelTypeBreakdown &breakdown, const std::vector<std::vector<std::string>> &golden,
                 std::size_t first)
{
    QVERIFY(golden.size() > 1);
    QCOMPARE(breakdown.rows.size(), golden.size() - 1);
    std::int64_t total = 0;
    for (std::size_t r = 1; r < golden.size(); ++r) {
        const auto &expected = golden[r];
        const auto &row = breakdown.rows[r - 1];
        QCOMPARE(std::string(kernelTypeName(row.type)), expected[first]);
        QCOMPARE(row.calls, std::stoull(expected[first + 1]));
        QCOMPARE(row.totalNs, std::stoll(expected[first + 2]));
        total += row.totalNs;
    }
    QCOMPARE(breakdown.totalNs, total);
}

} // namespace

class TestKernelTypes : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { verifyFixtures(); }

    void names()
    {
        const std::vector<std::pair<std::string, std::string>> expected{{"communication", "Communication"},
                                                                        {"memory", "Memory"},
                                                                        {"gemm", "GEMM"},
                                                                        {"convolution", "Convolution"},
                                                                        {"attention", "Attention"},
                                                                        {"normalization", "Normalization"},
                                                                        {"reduction", "Reduction"},
                                                                        {"elementwise", "Elementwise"},
                                                                        {"triton", "Triton"},
                                                                        {"other", "Other"}};
        QCOMPARE(expected.size(), kKernelTypeCount);
        for (std::size_t t = 0; t < kKernelTypeCount; ++t) {
            const auto type = static_cast<KernelType>(t);
            QCOMPARE(std::string(kernelTypeName(type)), expected[t].first);
            QCOMPARE(std::string(kernelTypeLabel(type)), expected[t].second);
        }
    }

    void classify_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("type");
        const std::vector<std::pair<const char *, const char *>> rows{
            // Real names from the fixtures (tests/fixtures/traces).
            {"ampere_sgemm_32x32_sliced1x4_tn", "gemm"},
            {"ampere_gcgemm_64x64_nt", "gemm"},
            {"volta_sgemm_64x64_nt", "gemm"},
            {"volta_sgemm", "gemm"},
            {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_execute_segment_k_off_"
             "kernel__5x_cublas",
             "gemm"},
            {"void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>(cutlass_80_"
             "wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)",
             "gemm"},
            {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align1>(cutlass_80_tensorop_"
             "s1688gemm_128x128_32x3_nn_align1::Params)",
             "gemm"},
            {"Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1",
             "gemm"},
            {"void epilogue::impl::globalKernel<float, float, float, true, true>(int, int, long, float*, "
             "cublasLtEpilogue_t, int, float*, long, void*, long, long, long, float*, long, int*)",
             "gemm"},
            {"void gemvNSP_kernel<float, float, float, float, 1, 16, 4, 1024, cublasGemvParams<"
             "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, "
             "cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParams<cublasGemvTensorStridedBatched<float "
             "const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>)",
             "gemm"},
            {"void splitKreduce_kernel<float, float, float, float>(cublasSplitKParams<float>, float const*, float "
             "const*, float*, float const*, float const*, float const*)",
             "gemm"},
            {"void sgemm_largek_lds64<true, true, 6, 3, 4, 5, 2, 66>(float*, float const*, float const*, int, int, "
             "int, int, int, int, float const*, float const*, float, float, int, int, int*, int*)",
             "gemm"},
            {"sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_stage4_"
             "warpsize2x2x1_g1_tensor16x8x8_alignc4_execute_kernel_cudnn",
             "convolution"},
            {"cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1", "convolution"},
            {"volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", "convolution"},
            {"void implicit_convolve_sgemm<float, float, 1024, 6, 7, 3, 3, 5, 1, false, true, true>(int, int, int, "
             "float const*, int, float*, float const*, kernel_conv_params, unsigned long long, int, float, float, "
             "int, float const*, float const*, bool, int, int)",
             "convolution"},
            {"void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, float const*, int, "
             "float const*, int, float*, kernel_grad_params, unsigned long long, int, unsigned long long, int, "
             "float, int, int, int)",
             "convolution"},
            {"void cudnn::cnn::wgrad_alg0_engine<float, 128, 5, 5, 3, 3, 3, false, 512>(int, int, int, float const*, "
             "int, float*, float const*, kernel_grad_params, unsigned long long, int, float, int, int, int, int)",
             "convolution"},
            {"void fft2d_r2c_32x32<float, false, 0u, false>(float2*, float const*, int, int, int, int, int, int, int, "
             "int, int, cudnn::reduced_divisor, bool, int2, int, int)",
             "convolution"},
            {"void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_nonfused::"
             "WinogradDataParams<float, float>)",
             "convolution"},
            {"cask_cudnn::computeOffsetsKernel(cask_cudnn::ComputeOffsetsParams)", "convolution"},
            {"void cudnn::cnn::im2col4d_kernel<float, long>(cudnn::cnn::im2col4d_params, cudnnConvolutionStruct, "
             "cudnnTensor4dStruct, float const*, float*)",
             "convolution"},
            {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, "
             "false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> "
             ">, false, false, false, false, false, true, false>(pytorch_flash::Flash_fwd_params)",
             "attention"},
            {"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "communication"},
            {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", "communication"},
            {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, "
             "c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)",
             "normalization"},
            {"void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long, long, float "
             "const*, float const*, float const*, float const*, float*, float*)",
             "normalization"},
            {"void at::native::(anonymous namespace)::RowwiseMomentsCUDAKernel<float, float>(long, float, float "
             "const*, float*, float*)",
             "normalization"},
            {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, 512, true, 1>(cudnnTensorStruct, float const*, "
             "cudnnTensorStruct, float*, float const*, float const*, float, float, float*, float*, float*, float*, "
             "float, float)",
             "normalization"},
            {"void cudnn::bn_bw_1C11_singleread<float, 512, true, 1, 2, 0>(float, float, float, float, "
             "cudnnTensorStruct, float const*, cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float "
             "const*, float*, float*, float const*, float const*, float, cudnn::reduced_divisor, int, "
             "cudnn::reduced_divisor, int, cudnn::reduced_divisor)",
             "normalization"},
            {"void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true>(float*, float const*, "
             "int, int, int)",
             "normalization"},
            {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float>, "
             "unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float>, unsigned int, "
             "float, 4>)",
             "reduction"},
            {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::NormTwoOps<float, float, "
             "float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::NormTwoOps<float, float, "
             "float>, unsigned int, float, 4>)",
             "reduction"},
            {"void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>(int, float const*, long, "
             "long, long, int, int, int, int, int, int, int, int, int, int, float*, long*)",
             "reduction"},
            {"void at::native::(anonymous namespace)::adaptive_average_pool<float>(float const*, float*, int, int, "
             "int, int, long, long, long)",
             "reduction"},
            {"void cub::DeviceScanKernel<cub::AgentScanPolicy<128, 15, int, (cub::BlockLoadAlgorithm)3, "
             "(cub::CacheLoadModifier)0, (cub::BlockStoreAlgorithm)3, (cub::BlockScanAlgorithm)2, "
             "cub::MemBoundScaling<128, 15, int> >, int*, int*, cub::ScanTileState<int, true>, std::plus<int>, "
             "cub::NullType, int>(int*, int*, cub::ScanTileState<int, true>, int, std::plus<int>, cub::NullType, int)",
             "reduction"},
            {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
             "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)",
             "elementwise"},
            {"void at::native::unrolled_elementwise_kernel<at::native::MulScalarFunctor<float, float>, "
             "at::detail::Array<char*, 2>, OffsetCalculator<1, unsigned int>, OffsetCalculator<1, unsigned int>, "
             "at::native::memory::LoadWithoutCast, at::native::memory::StoreWithoutCast>(int, "
             "at::native::MulScalarFunctor<float, float>, at::detail::Array<char*, 2>, OffsetCalculator<1, unsigned "
             "int>, OffsetCalculator<1, unsigned int>, at::native::memory::LoadWithoutCast, "
             "at::native::memory::StoreWithoutCast)",
             "elementwise"},
            {"void at::native::(anonymous namespace)::fused_dropout_kernel_vec<float, float, unsigned int, 1, 4, "
             "bool>(at::cuda::detail::TensorInfo<float, unsigned int>, at::cuda::detail::TensorInfo<float, unsigned "
             "int>, at::cuda::detail::TensorInfo<bool, unsigned int>, unsigned int, float, at::PhiloxCudaState)",
             "elementwise"},
            {"void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 2, 128, 1>(float*, "
             "at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, 128, 1>, "
             "at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
             "elementwise"},
            {"void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)2>(cudnn::"
             "ops::nchw2nhwc_params_t<float>, float const*, float*)",
             "elementwise"},
            {"void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, "
             "-2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned int>, at::cuda::detail::TensorInfo<"
             "c10::BFloat16 const, unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, "
             "unsigned int, unsigned int, long)",
             "elementwise"},
            {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
             "TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, "
             "std::plus<float>, float>(at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::"
             "(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, float)",
             "elementwise"},
            {"triton_poi_fused_add_cos_sin_0", "triton"},
            {"void cunn_ClassNLLCriterion_updateOutput_kernel<float, float>(float*, float*, float*, long*, float*, "
             "int, int, int, int, long)",
             "other"},
            {"void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<long, int, int>::Policy800, false, "
             "long, int, int, int>(int*, int*, int*, int const*, long*, long const*, int*, int const*, int, int, "
             "int, cub::detail::identity_decomposer_t)",
             "other"},
            // fbgemm is an embedding library, not a GEMM.
            {"void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int, int const*, int const*, int*)", "other"},
            // Edge cases: case, order between rules, words inside other words.
            {"TRITON_POI_FUSED_ADD_0", "triton"},
            {"triton_tem_fused_addmm_gemm_0", "triton"},
            {"triton_red_fused_native_layer_norm_0", "triton"},
            {"triton_per_fused__softmax_convolution_backward_0", "triton"},
            {"VOLTA_SGEMM_128X64_NN", "gemm"},
            {"Ampere_FP16_S16816GEMM_fp16_128x128_ldg8_f2f_stages_32x5_nn", "gemm"},
            {"nvjet_tst_128x256_64x4_1x2_h_bz_coopA_TNT", "gemm"},
            {"void cutlass::Kernel<cutlass_tensorop_s1688fprop_optimized_128x128_32x3_nhwc_align4>(Params)",
             "convolution"},
            {"void cutlass::Kernel<cutlass_tensorop_s1688dgrad_optimized_128x128_32x3_nhwc_align4>(Params)",
             "convolution"},
            {"sm86_xmma_wgrad_implicit_gemm_indexed_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize64x64x64", "convolution"},
            {"igemm_fwd_gtcx_nhwc_fp16_bx0_ex1_bt128x128x32_wt32x32x8_ws1x1_wr2x2_ta1x8x2x1_1x4x1x64", "convolution"},
            {"MIOpenConvUni", "convolution"},
            {"void at::native::(anonymous namespace)::conv_depthwise2d_forward_kernel<1, float, int>(Params)",
             "convolution"},
            {"fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float, "
             "cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
             "attention"},
            {"_attn_fwd", "attention"},
            {"void my::launcher_ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "communication"},
            {"rcclGenericKernel<1, false>", "communication"},
            {"void cunn_SoftMaxForward<4, float, float, float, LogSoftMaxForwardEpilogue>(float*, float const*, int)",
             "normalization"},
            {"void vector_fft<64u, 8u, 8u, (padding_t)0, (twiddle_t)0>(kernel_arguments_t<unsigned int>)", "other"},
            {"convert_fp32_to_bf16_kernel", "other"},
            {"", "other"},
        };
        for (std::size_t r = 0; r < rows.size(); ++r) {
            const auto &[name, type] = rows[r];
            QTest::addRow("%02zu %s", r, std::string(name).substr(0, 50).c_str()) << QString(name) << QString(type);
        }
    }

    void classify()
    {
        QFETCH(QString, name);
        QFETCH(QString, type);
        const auto expected = typeNamed(type.toStdString());
        QVERIFY(expected.has_value());
        QCOMPARE(kernelTypeName(classifyKernel(EventKind::Kernel, name.toStdString())), kernelTypeName(*expected));
    }

    // Memcpy and memset are memory whatever their name says.
    void memoryKinds()
    {
        QCOMPARE(classifyKernel(EventKind::Memcpy, "Memcpy HtoD (Pageable -> Device)"), KernelType::Memory);
        QCOMPARE(classifyKernel(EventKind::Memset, "Memset (Device)"), KernelType::Memory);
        QCOMPARE(classifyKernel(EventKind::Memcpy, "volta_sgemm_128x64_nn"), KernelType::Memory);
        QCOMPARE(classifyKernel(EventKind::Kernel, "Memset (Device)"), KernelType::Other);
    }

    void golden_data()
    {
        QTest::addColumn<QString>("fixture");
        for (const auto &name : breakdownFixtures())
            QTest::addRow("%s", name.c_str()) << QString::fromStdString(name);
    }

    void golden()
    {
        QFETCH(QString, fixture);
        const auto name = fixture.toStdString();
        const auto loaded = loadFixture(name);
        QVERIFY(loaded.index);
        const auto breakdown = buildKernelTypeBreakdown(*loaded.index);
        compareRows(breakdown, readCsv(goldenPath(name, ".kerneltypes.csv")), 0);
        // Every device event is counted once: the kernel table's total over the same range.
        QCOMPARE(breakdown.totalNs, buildKernelTable(*loaded.index).totalNs);
        double percent = 0;
        for (const auto &row : breakdown.rows) {
            QVERIFY(row.calls > 0);
            percent += row.percent;
        }
        QVERIFY(std::abs(percent - 100.0) < 1e-9);
        std::set<KernelType> seen;
        for (const auto &row : breakdown.rows)
            QVERIFY(seen.insert(row.type).second);
    }

    // A step's kernels are those it launched (stepspans.h), as the script counted them.
    void oneStep_data()
    {
        QTest::addColumn<QString>("fixture");
        for (const auto *name : {"h100_bert", "mi250_rocm", "v100_resnet50"}) // a100_alexnet has no steps
            QTest::addRow("%s", name) << QString(name);
    }

    void oneStep()
    {
        QFETCH(QString, fixture);
        const auto name = fixture.toStdString();
        const auto golden = readCsv(goldenPath(name, ".kerneltypes-step.csv"));
        QVERIFY(golden.size() > 1);
        const auto loaded = loadFixture(name);
        QVERIFY(loaded.index);
        const auto spans = buildStepSpans(*loaded.index);
        const auto it = std::find_if(spans.steps.begin(), spans.steps.end(),
                                     [&](const StepSpan &s) { return s.name == golden[1][0]; });
        QVERIFY(it != spans.steps.end());
        const auto breakdown =
            buildKernelTypeBreakdown(*loaded.index, spans, static_cast<std::size_t>(it - spans.steps.begin()));
        compareRows(breakdown, golden, 1);
        QVERIFY(breakdown.totalNs <= buildKernelTypeBreakdown(*loaded.index).totalNs);
    }

    // Adjacent ranges add up to their union, and an empty range has no rows.
    void ranges()
    {
        const auto loaded = loadFixture("v100_resnet50");
        QVERIFY(loaded.index);
        const auto whole = buildKernelTypeBreakdown(*loaded.index);
        const auto steps = buildStepBreakdown(*loaded.index);
        QVERIFY(steps.steps.size() > 1);
        const auto cut = steps.steps[1].startNs;
        const auto before = buildKernelTypeBreakdown(*loaded.index, TimeRange{TimeRange::all().start, cut});
        const auto after = buildKernelTypeBreakdown(*loaded.index, TimeRange{cut, TimeRange::all().end});
        QVERIFY(before.totalNs > 0);
        QVERIFY(after.totalNs > 0);
        QCOMPARE(before.totalNs + after.totalNs, whole.totalNs);
        for (const auto &row : whole.rows) {
            std::uint64_t calls = 0;
            for (const auto *part : {&before, &after}) {
                for (const auto &r : part->rows) {
                    if (r.type == row.type)
                        calls += r.calls;
                }
            }
            QCOMPARE(calls, row.calls);
        }
        const auto none = buildKernelTypeBreakdown(*loaded.index, TimeRange{0, 1});
        QVERIFY(none.rows.empty());
        QCOMPARE(none.totalNs, std::int64_t(0));
    }

    // A CPU-only trace has no device time at all.
    void cpuOnly()
    {
        const auto loaded = loadFixture("cpu_gloo");
        QVERIFY(loaded.index);
        const auto breakdown = buildKernelTypeBreakdown(*loaded.index);
        QVERIFY(breakdown.rows.empty());
        QCOMPARE(breakdown.totalNs, std::int64_t(0));
    }
};

QTEST_GUILESS_MAIN(TestKernelTypes)
#include "tst_kerneltypes.moc"
