#pragma once

#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>

namespace pyrometer {

// Runs fn(0) .. fn(count - 1): the odd ones on a second thread when `two` and count > 1, the
// even ones on this thread (all of them here where no thread can be had). Returns once all
// are done; an exception thrown on either thread reaches the caller.
template <typename Fn>
void inTwoThreads(std::size_t count, bool two, Fn fn)
{
    auto run = [&](std::size_t first, std::size_t stride) {
        for (std::size_t i = first; i < count; i += stride)
            fn(i);
    };
    if (!two || count < 2) {
        run(0, 1);
        return;
    }
    std::exception_ptr failure;
    {
        std::jthread helper;
        try {
            helper = std::jthread([&] {
                try {
                    run(1, 2);
                } catch (...) {
                    failure = std::current_exception();
                }
            });
        } catch (const std::system_error &) {
            run(1, 2);
        }
        run(0, 2);
    } // joined
    if (failure)
        std::rethrow_exception(failure);
}

} // namespace pyrometer
