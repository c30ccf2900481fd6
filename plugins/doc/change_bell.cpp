#include "doc/change_bell.h"

#include <liburing.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace storh::engines::doc {
namespace {

constexpr std::uint64_t kPollTag = 1;  // the poll's user_data; nothing else is submitted
// Work the owner has not run yet, or completions the kernel could not post: not quiet.
constexpr unsigned kBusyFlags = IORING_SQ_TASKRUN | IORING_SQ_CQ_OVERFLOW;
constexpr unsigned kRingFlags =
    IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_TASKRUN_FLAG;

bool g_disabled = false;
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

// Sets up `ring` with kRingFlags; false where the kernel refuses.
bool set_up(io_uring& ring) {
  io_uring_params params{};
  params.flags = kRingFlags;
  // Two entries: one poll is ever in flight.
  return io_uring_queue_init_params(2, &ring, &params) == 0;
}

// Whether this kernel raises the ring's flag inside the call that wakes a polled file,
// as change_bell.h relies on: an eventfd is polled, written to, and the flag (or the
// completion) must be there before anything enters the ring again. A kernel that sets
// up the ring but defers the flag would make quiet() wrong, so the bell is not used
// there. Asked once per process (a few system calls).
bool kernel_raises_flag() {
  io_uring ring{};
  if (!set_up(ring)) return false;
  bool raised = false;
  const int event = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (event >= 0) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring);
    io_uring_prep_poll_add(sqe, event, POLLIN);
    if (io_uring_submit(&ring) == 1 && io_uring_cq_ready(&ring) == 0 &&
        ::eventfd_write(event, 1) == 0) {
      raised = (__atomic_load_n(ring.sq.kflags, __ATOMIC_ACQUIRE) & IORING_SQ_TASKRUN) != 0 ||
               io_uring_cq_ready(&ring) != 0;
    }
    ::close(event);
  }
  io_uring_queue_exit(&ring);
  return raised;
}

}  // namespace

void set_change_bell_disabled(bool disabled) noexcept {
  g_disabled = disabled;
}

ChangeBell::ChangeBell(int fd) : fd_(fd) {
  if (g_disabled) return;
  static const bool kernel_ok = [] {
    ::pthread_atfork(nullptr, nullptr, forget_token_in_child);
    return kernel_raises_flag();
  }();
  if (!kernel_ok) return;
  auto ring = std::make_unique<io_uring>();
  if (!set_up(*ring)) return;
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
  int rc = 0;
  do {
    rc = io_uring_get_events(ring_.get());  // runs the deferred work: posts the completion
  } while (rc == -EINTR);
  if (rc < 0) {
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
  int rc = 0;
  do {
    rc = io_uring_submit(ring_.get());
  } while (rc == -EINTR);
  if (rc != 1) {
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
  armed_ = false;
  if (!ring_) return;
  io_uring_queue_exit(ring_.get());  // closes the ring, which cancels the poll
  ring_.reset();
}

}  // namespace storh::engines::doc
