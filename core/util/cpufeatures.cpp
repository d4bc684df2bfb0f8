#include "core/util/cpufeatures.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace pyrometer {

bool cpuHasNativeBFloat16()
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_max(0, nullptr) < 7)
        return false;
    // The instructions count only where the operating system saves their registers (XCR0):
    // ZMM state (bits 5-7) for AVX-512, tile state (bits 17-18) for AMX.
    __cpuid(1, eax, ebx, ecx, edx);
    if (!((ecx >> 27) & 1u)) // OSXSAVE
        return false;
    unsigned xcr0Low = 0, xcr0High = 0;
    __asm__ volatile("xgetbv" : "=a"(xcr0Low), "=d"(xcr0High) : "c"(0));
    const bool zmmState = (xcr0Low & 0xE6u) == 0xE6u;
    const bool tileState = (xcr0Low & 0x60000u) == 0x60000u;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    const bool amxBf16 = tileState && ((edx >> 22) & 1u); // leaf 7.0 EDX bit 22
    const unsigned subleaves = eax;
    bool avx512Bf16 = false;
    if (zmmState && subleaves >= 1) {
        __cpuid_count(7, 1, eax, ebx, ecx, edx);
        avx512Bf16 = (eax >> 5) & 1u; // leaf 7.1 EAX bit 5
    }
    return avx512Bf16 || amxBf16;
#else
    return false;
#endif
}

} // namespace pyrometer
