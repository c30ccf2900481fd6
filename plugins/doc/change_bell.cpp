#include "doc/change_bell.h"

#include <liburing.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <string_view>

namespace storh::engines::doc {
namespace {

constexpr std::uint64_t kPollTag = 1;    // the poll's user_data
constexpr std::uint64_t kRemoveTag = 2;  // a poll remove's, when the bell is given up
// Work the owner has not run yet, or completions the kernel could not post: not quiet.
constexpr unsigned kBusyFlags = IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW;
constexpr unsigned kRingFlags =
    IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_TASKRUN_FLAG;

std::atomic<bool> g_disabled{false};
std::atomic<std::uint64_t> g_next_token{0};
thread_local std::uint64_t t_token = 0;  // 0: not handed out yet

// A number no other thread of this process has had. Thread ids are reused after a
// thread exits; these are not. A forked child's thread is handed a new one (below), so
// it never takes its parent's ring for its own: SINGLE_ISSUER would refuse its calls.
std::uint64_t thread_token() noexcept {
  if (t_token == 0) t_token = g_next_token.fetch_add(1, std::memory_order_relaxed) + 1;
  return t_token;
}

void forget_token_in_child() noexcept {
  t_token = 0;
}

// Calls `ring_call` (a liburing call returning a negative errno) again while a signal
// interrupts it.
template <class RingCall>
int without_eintr(RingCall&& ring_call) {
  int rc = 0;
  do {
    rc = ring_call();
  } while (rc == -EINTR);
  return rc;
}

// Sets up `ring` with kRingFlags: 0, or the negative errno the kernel refused it with.
int set_up(io_uring& ring) {
  io_uring_params params{};
  params.flags = kRingFlags;
  // Two entries: one poll is ever in flight (and a remove when the bell is given up).
  return io_uring_queue_init_params(2, &ring, &params);
}

// Out of descriptors or memory for now: worth asking again later.
bool passing(int error_number) {
  return error_number == EMFILE || error_number == ENFILE || error_number == ENOMEM ||
         error_number == EAGAIN;
}

enum class KernelCheck { unknown, works, cannot };

// Whether this kernel raises the ring's flag inside the call that wakes a polled file,
// as change_bell.h relies on: an eventfd is polled, written to, and the flag (or the
// completion) must be there before anything enters the ring again. A smoke test, not a
// proof (the wake here comes from this thread and from an eventfd): it keeps the bell
// off kernels that set up the ring but defer the flag. Unknown when descriptors or
// memory ran out, so the next bell asks again.
KernelCheck check_kernel() {
  io_uring ring{};
  if (const int rc = set_up(ring); rc < 0) {
    return passing(-rc) ? KernelCheck::unknown : KernelCheck::cannot;
  }
  KernelCheck result = KernelCheck::unknown;
  const int event = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (event >= 0) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring);
    io_uring_prep_poll_add(sqe, event, POLLIN);
    if (io_uring_submit(&ring) == 1 && io_uring_cq_ready(&ring) == 0 &&
        ::eventfd_write(event, 1) == 0) {
      const bool raised =
          (__atomic_load_n(ring.sq.kflags, __ATOMIC_ACQUIRE) & IORING_SQ_TASKRUN) != 0 ||
          io_uring_cq_ready(&ring) != 0;
      result = raised ? KernelCheck::works : KernelCheck::cannot;
    }
    ::close(event);
  }
  io_uring_queue_exit(&ring);
  return result;
}

std::atomic<KernelCheck> g_kernel{KernelCheck::unknown};

// Whether bells may be made: once per process, the STORH_NOTIFY_BELL=off opt-out and the
// kernel check (retried while it is unknown).
bool bells_allowed() {
  static std::once_flag once;
  std::call_once(once, [] {
    ::pthread_atfork(nullptr, nullptr, forget_token_in_child);
    const char* setting = std::getenv("STORH_NOTIFY_BELL");
    if (setting != nullptr && std::string_view(setting) == "off") {
      g_kernel.store(KernelCheck::cannot);
    }
  });
  KernelCheck known = g_kernel.load();
  if (known == KernelCheck::unknown) {
    known = check_kernel();
    if (known != KernelCheck::unknown) g_kernel.store(known);
  }
  return known == KernelCheck::works;
}

}  // namespace

void set_change_bell_disabled(bool disabled) noexcept {
  g_disabled.store(disabled);
}

ChangeBell::ChangeBell(int fd) : fd_(fd) {
  if (g_disabled.load() || !bells_allowed()) return;
  auto ring = std::make_unique<io_uring>();
  if (set_up(*ring) < 0) return;
  owner_ = thread_token();
  ring_ = std::move(ring);
}

ChangeBell::~ChangeBell() {
  give_up();
}

bool ChangeBell::owned_here() const noexcept {
  return thread_token() == owner_;
}

bool ChangeBell::quiet() const noexcept {
  if (!armed_ || !owned_here()) return false;
  if ((__atomic_load_n(ring_->sq.kflags, __ATOMIC_ACQUIRE) & kBusyFlags) != 0) return false;
  return io_uring_cq_ready(ring_.get()) == 0;
}

void ChangeBell::collect() noexcept {
  if (!ring_ || !armed_ || !owned_here()) return;
  // Runs the deferred work, which posts the poll's completion if it fired.
  if (without_eintr([&] { return io_uring_get_events(ring_.get()); }) < 0) {
    give_up();
    return;
  }
  if (reap()) armed_ = false;
}

void ChangeBell::arm() noexcept {
  if (!ring_ || armed_ || !owned_here()) return;
  io_uring_sqe* sqe = io_uring_get_sqe(ring_.get());
  if (sqe == nullptr) {
    give_up();
    return;
  }
  io_uring_prep_poll_add(sqe, fd_, POLLIN);  // one-shot: completes once, then re-armed here
  sqe->user_data = kPollTag;
  if (without_eintr([&] { return io_uring_submit(ring_.get()); }) != 1) {
    give_up();
    return;
  }
  // Readable already (an event since the drain): it completed at once, stay unarmed.
  armed_ = !reap() && ring_ != nullptr;
}

bool ChangeBell::reap() noexcept {
  bool fired = false;
  bool failed = false;
  io_uring_cqe* cqe = nullptr;
  while (io_uring_peek_cqe(ring_.get(), &cqe) == 0) {
    if (cqe->user_data == kPollTag) {
      fired = true;
      failed = failed || cqe->res < 0;
    }
    io_uring_cqe_seen(ring_.get(), cqe);
  }
  // A poll that fails would fail again on every arm: two ring calls a drain for nothing.
  if (failed) give_up();
  return fired;
}

void ChangeBell::give_up() noexcept {
  if (!ring_) {
    armed_ = false;
    return;
  }
  if (armed_ && owned_here()) cancel_poll();
  armed_ = false;
  io_uring_queue_exit(ring_.get());
  ring_.reset();
}

void ChangeBell::cancel_poll() noexcept {
  // Closing the ring alone leaves cancelling the poll to a kernel worker, and until then
  // the poll holds the inotify file: the old instance and its watches would count
  // against the user's inotify limits while the store arms a new one.
  io_uring_sqe* sqe = io_uring_get_sqe(ring_.get());
  if (sqe == nullptr) return;
  io_uring_prep_poll_remove(sqe, kPollTag);
  sqe->user_data = kRemoveTag;
  // The remove's completion and the poll's (cancelled, or fired before), 100 ms at most.
  __kernel_timespec timeout{};
  timeout.tv_nsec = 100'000'000;
  io_uring_cqe* cqe = nullptr;
  io_uring_submit_and_wait_timeout(ring_.get(), &cqe, 2, &timeout, nullptr);
}

}  // namespace storh::engines::doc
