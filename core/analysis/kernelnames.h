#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pyrometer::analysis {

// Kernel names as people read them. CUPTI writes most kernels demangled ("void at::native::
// vectorized_elementwise_kernel<4, ...>(...)") but some mangled ("_ZN7cutlass13device_kernel..."),
// and either can run to a thousand characters of template arguments.

// The demangled name (abi::__cxa_demangle) of an Itanium-mangled name; any other name as it is.
std::string demangledKernelName(std::string_view name);

// A short name for tables, timeline labels and plots: demangled, without the return type and
// the parameter list, namespaces dropped, template arguments kept one level deep (deeper ones
// collapsed to <…>), so that kernels of one family (one template) still read apart; past
// maxLength characters the middle gives way to "…". The full name belongs in tooltips and details.
std::string shortKernelName(std::string_view name, std::size_t maxLength = 96);

} // namespace pyrometer::analysis
