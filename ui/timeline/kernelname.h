#pragma once

#include <string>
#include <string_view>

namespace pyrometer::ui::timeline {

// What a kernel's box is labelled with, before eliding to the box's width. CUDA and HIP
// kernels are recorded by their demangled signatures, hundreds of characters that begin with
// the same "void at::native::", so the label is the function's own name, as Nsight Systems'
// short names are: no return type, namespaces ("(anonymous namespace)" included), template
// arguments or parameters.
//   void at::native::vectorized_elementwise_kernel<4, …>(int, …)  ->  vectorized_elementwise_kernel
// A generic launcher's name says nothing of the kernel (cutlass::Kernel, Kernel2,
// device_kernel): its first template argument, shortened the same way, names it instead.
//   void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_…>(…::Params)
//                                                 ->  cutlass_80_wmma_tensorop_bf16_s161616gemm_…
// Names that are no C++ signature (sm90_xmma_gemm_…, triton_poi_fused_…) are kept whole.
std::string kernelLabel(std::string_view name);

} // namespace pyrometer::ui::timeline
