// change_bell.h: tells, without a system call, whether an inotify descriptor has queued
// an event since it was last found empty, so a NOTIFY call that finds nothing changed
// skips its drain `read`. Internal to ChangeWatch.
//
// How: an io_uring ring (IORING_SETUP_SINGLE_ISSUER | DEFER_TASKRUN | TASKRUN_FLAG)
// holds one one-shot poll of the descriptor. The kernel queues an inotify event inside
// the call that causes it (the rename, write or unlink), and in that same call wakes the
// descriptor's waiters; the poll's wake-up queues task work on the ring and, the ring's
// work list being empty, sets IORING_SQ_TASKRUN in the flags the ring shares with this
// process. DEFER_TASKRUN runs that work only when the owner asks (io_uring_get_events),
// so from the event until the owner collects, the flag is set or the poll's completion
// is in the completion queue. quiet() reads both from memory: an event queued before
// another process's call returned is seen by the first quiet() that starts after it.
// (Without DEFER_TASKRUN the work would run on the next interrupt or kernel exit, and a
// second request on the task's work list could keep the flag from being set: that is
// why a plain poll completion would not order a read after a change.)
//
// Contract: single-threaded like ChangeWatch. The thread that constructed the bell owns
// the ring; on any other thread (or in a child after fork) quiet() is false and
// collect()/arm() do nothing, so the caller drains with `read` every time, as without a
// bell. Where io_uring cannot be set up (an older kernel, a seccomp filter, the
// kernel.io_uring_disabled sysctl), where the kernel does not raise the flag inside the
// waking call (checked once per process by polling an eventfd and writing to it), where
// the environment sets STORH_NOTIFY_BELL=off (for sandboxes that kill a process on an
// io_uring call instead of failing it), or after a ring call fails, usable() is false
// and quiet() is false for the rest of the bell's life. The descriptor must outlive the
// bell; destroying the bell releases its hold on the descriptor's file at once.
#pragma once

#include <cstdint>
#include <memory>

struct io_uring;

namespace storh::engines::doc {

class ChangeBell {
 public:
  // Sets up the ring for `fd` (an inotify descriptor). Not armed yet: arm() after a
  // drain that found the descriptor empty.
  explicit ChangeBell(int fd);
  ~ChangeBell();
  ChangeBell(const ChangeBell&) = delete;
  ChangeBell& operator=(const ChangeBell&) = delete;

  bool usable() const noexcept { return ring_ != nullptr; }

  // True only when the poll is armed and neither its wake-up flag nor a completion has
  // appeared: nothing was queued on the descriptor since arm(). False answers may be
  // spurious (the caller then drains and finds nothing); true answers never are.
  bool quiet() const noexcept;

  // Before a drain: runs the poll's pending work and consumes its completion, after
  // which the poll is no longer armed if it fired.
  void collect() noexcept;
  // After a drain that read nothing: arms the poll (a no-op while it is armed). If the
  // descriptor is readable by then, the poll completes at once and quiet() stays false.
  void arm() noexcept;

 private:
  bool owned_here() const noexcept;
  // Consumes every completion: whether one was the poll's (it is no longer armed).
  // A failed poll gives up.
  bool reap() noexcept;
  // Closes the ring (a ring call failed, or the bell is destroyed): quiet() is false and
  // the caller drains with `read` from now on.
  void give_up() noexcept;
  // Removes the armed poll and waits for it, so the inotify file is released now.
  void cancel_poll() noexcept;

  int fd_;
  std::unique_ptr<io_uring> ring_;
  std::uint64_t owner_ = 0;  // the constructing thread's token (change_bell.cpp)
  bool armed_ = false;
};

// Test seam: while true, new bells are not usable (as where io_uring is unavailable), so
// the tests run NOTIFY's drain-every-call path too.
void set_change_bell_disabled(bool disabled) noexcept;

}  // namespace storh::engines::doc
