#include "core/util/heap.h"

#include <cstdint>
#include <cstdlib> // defines __GLIBC__ where the C library is glibc
#include <new>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(__linux__)
#include <sys/mman.h>
#endif

// Sanitizers bring their own operator new, which must stay in charge.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PYROMETER_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define PYROMETER_SANITIZED 1
#endif
#endif

#if defined(__linux__) && defined(MADV_HUGEPAGE) && !defined(PYROMETER_SANITIZED)
#define PYROMETER_HUGE_PAGES 1
#endif

namespace pyrometer {

void releaseFreedMemory()
{
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

namespace {

#if defined(PYROMETER_HUGE_PAGES)
class HugePageResource final : public std::pmr::memory_resource {
    static constexpr std::size_t kHugePage = std::size_t(2) << 20;
    // Whole huge pages, so that the last one's tail is no other block's.
    static std::size_t mapped(std::size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }

    void *do_allocate(std::size_t bytes, std::size_t alignment) override
    {
        if (alignment > kHugePage)
            throw std::bad_alloc();
        // Mapped with a huge page's slack, then cut to start at a huge page's boundary.
        const auto size = mapped(bytes);
        void *raw = ::mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED)
            throw std::bad_alloc();
        const auto address = reinterpret_cast<std::uintptr_t>(raw);
        const auto aligned = (address + kHugePage - 1) & ~(kHugePage - 1);
        if (aligned > address)
            ::munmap(raw, aligned - address);
        if (const auto tail = address + size + kHugePage - (aligned + size))
            ::munmap(reinterpret_cast<void *>(aligned + size), tail);
        ::madvise(reinterpret_cast<void *>(aligned), size, MADV_HUGEPAGE);
        return reinterpret_cast<void *>(aligned);
    }
    void do_deallocate(void *block, std::size_t bytes, std::size_t) override { ::munmap(block, mapped(bytes)); }
    bool do_is_equal(const std::pmr::memory_resource &other) const noexcept override { return this == &other; }
};
#endif

} // namespace

std::pmr::memory_resource *hugePageResource()
{
#if defined(PYROMETER_HUGE_PAGES)
    static HugePageResource *const resource = new HugePageResource;
    return resource;
#else
    return std::pmr::new_delete_resource();
#endif
}

} // namespace pyrometer

#if defined(PYROMETER_HUGE_PAGES)
// Every operator new of the program (new[], nothrow and std::allocator go through this one):
// a block that spans whole huge pages asks for them before its first byte is written. Columns
// of millions of events are written once, front to back, right after they are allocated; in
// 4 KiB pages each page costs a fault, which on a virtual machine is most of the cost of the
// write (loading a 630 MB trace: 0.65x the time with huge pages).
namespace {

constexpr std::size_t kHugePage = std::size_t(2) << 20;

// Asks for huge pages for the whole 2 MiB pages inside [block, block + size).
void adviseHugePages(void *block, std::size_t size)
{
    const auto address = reinterpret_cast<std::uintptr_t>(block);
    const auto begin = (address + kHugePage - 1) & ~(kHugePage - 1);
    const auto end = (address + size) & ~(kHugePage - 1);
    if (end > begin)
        ::madvise(reinterpret_cast<void *>(begin), end - begin, MADV_HUGEPAGE);
}

} // namespace

void *operator new(std::size_t size)
{
    for (;;) {
        if (void *block = std::malloc(size ? size : 1)) {
            if (size >= kHugePage)
                adviseHugePages(block, size);
            return block;
        }
        const auto handler = std::get_new_handler();
        if (!handler)
            throw std::bad_alloc();
        handler();
    }
}
#endif
