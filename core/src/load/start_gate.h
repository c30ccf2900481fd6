// load/start_gate.h: waiting for a 32-bit word of shared memory to change, on a Linux
// futex, for ready clients that wait for the common start.
//
// The futex is not process-private (no FUTEX_PRIVATE_FLAG), so it works on a
// MAP_SHARED mapping across forked processes as well as between threads. Waiting
// sleeps in the kernel instead of polling, so a ready client costs no CPU until the
// coordinator wakes it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace storh::load {

// Sleeps while `word` holds `seen`, at most `timeout`; returns at once if it already
// differs. May return early (a signal, a spurious wake): callers re-check their
// condition and wait again.
void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t seen,
                std::chrono::microseconds timeout);

// Wakes every waiter on `word`. Call after storing its new value.
void futex_wake_all(std::atomic<std::uint32_t>& word);

}  // namespace storh::load
