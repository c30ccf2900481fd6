#include "load/start_gate.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <ctime>

namespace storh::load {
namespace {

// The kernel reads the atomic's object representation: a lock-free 32-bit atomic is
// exactly its value.
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);
static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));

std::uint32_t* address_of(std::atomic<std::uint32_t>& word) {
  return reinterpret_cast<std::uint32_t*>(&word);
}

}  // namespace

void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t seen,
                std::chrono::microseconds timeout) {
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
  timespec relative{};
  relative.tv_sec = static_cast<time_t>(seconds.count());
  relative.tv_nsec = static_cast<long>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(timeout - seconds).count());
  // EAGAIN (the word already changed), EINTR and ETIMEDOUT all mean: look again.
  ::syscall(SYS_futex, address_of(word), FUTEX_WAIT, seen, &relative, nullptr, 0);
}

void futex_wake_all(std::atomic<std::uint32_t>& word) {
  ::syscall(SYS_futex, address_of(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

}  // namespace storh::load
