#pragma once

namespace pyrometer {

// Whether this CPU computes in bfloat16 natively (AVX512-BF16 or AMX-BF16). Without either,
// libtorch's bfloat16 kernels convert to float32 and back around every operation, so a bf16
// model runs slower than the float32 one: true, but a fact of the CPU, not of bf16.
bool cpuHasNativeBFloat16();

} // namespace pyrometer
