#include "load/driver.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "load/client_loop.h"
#include "load/start_gate.h"

namespace storh::load {
namespace {

constexpr int kPollMilliseconds = 10;
// The longest a coordinator of thread clients sleeps between checks without progress
// lines; the last client's wake normally ends the sleep first.
constexpr std::chrono::microseconds kIdleWait = std::chrono::seconds(1);

// Samples the live counters and reports every interval.
class ProgressMeter {
 public:
  ProgressMeter(SharedState& shared, double interval, const ProgressFn& on_progress)
      : shared_(shared), interval_(interval), on_progress_(on_progress) {}

  void tick(std::int64_t start_ns) {
    if (!(interval_ > 0) || !on_progress_) return;
    const double elapsed = static_cast<double>(now_ns() - start_ns) / 1e9;
    if (elapsed < next_) return;
    std::uint64_t done = 0, ok = 0, latency_ns = 0, latency_us2 = 0;
    for (std::uint32_t c = 0; c < shared_.clients(); ++c) {
      LiveCounters& live = shared_.counters(c);
      done += live.done.load(std::memory_order_relaxed);
      ok += live.ok.load(std::memory_order_relaxed);
      latency_ns += live.latency_ns.load(std::memory_order_relaxed);
      latency_us2 += live.latency_us2.load(std::memory_order_relaxed);
    }
    Progress p;
    p.elapsed_seconds = elapsed;
    const std::uint64_t n = ok - ok_;
    p.tps = static_cast<double>(n) / (elapsed - last_);
    p.failed = (done - done_) - n;
    if (n > 0) {
      const double mean_us =
          static_cast<double>(latency_ns - latency_ns_) / 1e3 / static_cast<double>(n);
      const double variance =
          static_cast<double>(latency_us2 - latency_us2_) / static_cast<double>(n) -
          mean_us * mean_us;
      p.latency_mean = mean_us / 1e6;
      p.latency_stddev = variance > 0 ? std::sqrt(variance) / 1e6 : 0;
    }
    done_ = done, ok_ = ok, latency_ns_ = latency_ns, latency_us2_ = latency_us2;
    last_ = elapsed;
    while (next_ <= elapsed) next_ += interval_;
    on_progress_(p);
  }

  // How long the coordinator may sleep before the next progress line is due: at most
  // `cap`, all of it without progress lines.
  std::chrono::microseconds until_next(std::int64_t start_ns, std::chrono::microseconds cap) const {
    if (!(interval_ > 0) || !on_progress_) return cap;
    const double elapsed = static_cast<double>(now_ns() - start_ns) / 1e9;
    const auto due = std::chrono::microseconds(std::llround(std::max(0.0, next_ - elapsed) * 1e6));
    return std::clamp(due, std::chrono::microseconds(1000), cap);
  }

 private:
  SharedState& shared_;
  double interval_;
  const ProgressFn& on_progress_;
  double next_ = interval_;
  double last_ = 0;
  std::uint64_t done_ = 0, ok_ = 0, latency_ns_ = 0, latency_us2_ = 0;
};

// Wakes the ready clients, which sleep on the gate until start_ns is set or abort.
void open_gate(SharedHeader& header) {
  header.gate.store(1);
  futex_wake_all(header.gate);
}

// Waits until every client is ready (or one gave up), starts them, and reports
// progress until all have finished. `alive` is polled in between; it returns false
// when a client died, which aborts the phase. Returns the start, or 0 if aborted.
std::int64_t coordinate(SharedState& shared, const LoadConfig& config,
                        const ProgressFn& on_progress, const std::function<bool()>& alive) {
  SharedHeader& header = shared.header();
  const std::uint32_t clients = shared.clients();
  while (header.ready.load() < clients && !header.abort.load()) {
    if (!alive()) header.abort.store(true);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (header.abort.load()) {
    open_gate(header);
    return 0;
  }
  const std::int64_t start = now_ns();
  header.start_ns.store(start);
  open_gate(header);
  ProgressMeter meter(shared, config.progress_seconds, on_progress);
  // Process clients can die without finishing, so they are polled; thread clients
  // cannot (the worker dies with them), so the coordinator sleeps until the last one
  // wakes it or a progress line is due: a run's CPU is its clients', not a poll's.
  const bool poll_clients = config.mode == ClientMode::processes;
  while (true) {
    const std::uint32_t finished = header.finished.load();
    if (finished >= clients) break;
    if (!alive()) {
      header.abort.store(true);
      return start;
    }
    meter.tick(start);
    if (poll_clients) {
      std::this_thread::sleep_for(std::chrono::milliseconds(kPollMilliseconds));
    } else {
      futex_wait(header.finished, finished, meter.until_next(start, kIdleWait));
    }
  }
  return start;
}

ClientJob job_for(Transactions& transactions, const RunContext& ctx, std::size_t type,
                  const LoadConfig& config, SharedState& shared, std::uint32_t index,
                  const PhaseShape& shape) {
  ClientJob job;
  if (shape.total_transactions) {
    const std::uint64_t total = *shape.total_transactions;
    job.own_transactions = total / config.clients + (index < total % config.clients ? 1 : 0);
  }
  job.kinds = shape.kinds;
  job.reported = shape.reported;
  job.parts = shape.parts;
  job.transactions = &transactions;
  job.ctx = &ctx;
  job.info = {index, config.clients, config.mode == ClientMode::processes};
  job.type = type;
  job.config = config;
  job.shared = &shared;
  return job;
}

Expected<std::vector<ClientOutcome>> run_threads(Transactions& transactions, const RunContext& ctx,
                                                 std::size_t type, const LoadConfig& config,
                                                 SharedState& shared, const ProgressFn& on_progress,
                                                 const PhaseShape& shape, std::int64_t& start) {
  std::vector<ClientOutcome> outcomes(config.clients);
  std::vector<ClientJob> jobs;
  for (std::uint32_t c = 0; c < config.clients; ++c) {
    jobs.push_back(job_for(transactions, ctx, type, config, shared, c, shape));
  }
  std::vector<std::thread> threads;
  std::string error;
  try {
    for (std::uint32_t c = 0; c < config.clients; ++c) {
      threads.emplace_back([&outcomes, &jobs, c] { outcomes[c] = run_client(jobs[c]); });
    }
  } catch (const std::exception& e) {
    error = fmt::format("cannot start client thread {}: {}", threads.size(), e.what());
    shared.header().abort.store(true);
  }
  if (error.empty()) start = coordinate(shared, config, on_progress, [] { return true; });
  for (std::thread& thread : threads) thread.join();
  if (!error.empty()) return Error{error};
  return outcomes;
}

// A forked client: its pid and the pipe its outcome arrives on.
struct ChildClient {
  pid_t pid = -1;
  int fd = -1;
  std::string text;
  std::optional<int> status;  // from waitpid, once reaped
};

[[noreturn]] void child_main(const ClientJob& job, int fd) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the worker
  std::string text;
  try {
    text = to_json(run_client(job)).dump();
  } catch (...) {
    ::_exit(3);
  }
  std::string_view rest = text;
  while (!rest.empty()) {
    const ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) ::_exit(4);
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  ::_exit(0);
}

// Reads what is available on the children's pipes; reaps those that exited.
// Returns false when a client exited without a complete outcome (it died).
bool pump(std::vector<ChildClient>& children, int timeout_ms) {
  std::vector<pollfd> fds;
  std::vector<ChildClient*> owners;
  for (ChildClient& child : children) {
    if (child.fd < 0) continue;
    fds.push_back({child.fd, POLLIN, 0});
    owners.push_back(&child);
  }
  if (!fds.empty() && ::poll(fds.data(), fds.size(), timeout_ms) > 0) {
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      ChildClient& child = *owners[i];
      char buffer[65536];
      const ssize_t n = ::read(child.fd, buffer, sizeof buffer);
      if (n > 0) {
        child.text.append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(child.fd);
        child.fd = -1;
      }
    }
  } else if (fds.empty() && timeout_ms > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
  }
  bool healthy = true;
  for (ChildClient& child : children) {
    if (!child.status) {
      int status = 0;
      if (::waitpid(child.pid, &status, WNOHANG) == child.pid) child.status = status;
    }
    if (child.status && !(WIFEXITED(*child.status) && WEXITSTATUS(*child.status) == 0)) {
      healthy = false;
    }
  }
  return healthy;
}

std::string death_of(std::uint32_t index, const ChildClient& child) {
  if (child.status && WIFSIGNALED(*child.status)) {
    const int signal = WTERMSIG(*child.status);
    return fmt::format("client {} (process {}) was killed by signal {} ({})", index, child.pid,
                       signal, ::strsignal(signal));
  }
  return fmt::format("client {} (process {}) exited with code {} before reporting", index,
                     child.pid,
                     child.status && WIFEXITED(*child.status) ? WEXITSTATUS(*child.status) : -1);
}

Expected<std::vector<ClientOutcome>> run_processes(Transactions& transactions,
                                                   const RunContext& ctx, std::size_t type,
                                                   const LoadConfig& config, SharedState& shared,
                                                   const ProgressFn& on_progress,
                                                   const PhaseShape& shape, std::int64_t& start) {
  std::vector<ChildClient> children;
  std::string error;
  for (std::uint32_t c = 0; c < config.clients; ++c) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      error = fmt::format("cannot make a pipe for client {}: {}", c, std::strerror(errno));
      break;
    }
    const ClientJob job = job_for(transactions, ctx, type, config, shared, c, shape);
    const pid_t pid = ::fork();
    if (pid < 0) {
      error = fmt::format("cannot fork client {}: {}", c, std::strerror(errno));
      ::close(fds[0]);
      ::close(fds[1]);
      break;
    }
    if (pid == 0) {
      ::close(fds[0]);
      child_main(job, fds[1]);
    }
    ::close(fds[1]);
    children.push_back({pid, fds[0], {}, std::nullopt});
  }
  if (!error.empty()) shared.header().abort.store(true);
  if (error.empty()) {
    start = coordinate(shared, config, on_progress, [&] { return pump(children, 0); });
  }
  // Collect every outcome and reap every child, whatever happened above.
  const auto open = [&] {
    return std::any_of(children.begin(), children.end(),
                       [](const ChildClient& c) { return c.fd >= 0 || !c.status; });
  };
  while (open()) {
    if (!pump(children, kPollMilliseconds)) shared.header().abort.store(true);
    for (ChildClient& child : children) {
      if (child.fd < 0 && !child.status) {
        int status = 0;
        if (::waitpid(child.pid, &status, 0) == child.pid)
          child.status = status;
        else
          child.status = -1;
      }
    }
  }
  if (!error.empty()) return Error{error};
  std::vector<ClientOutcome> outcomes;
  for (std::uint32_t c = 0; c < children.size(); ++c) {
    const ChildClient& child = children[c];
    if (!(child.status && WIFEXITED(*child.status) && WEXITSTATUS(*child.status) == 0)) {
      return Error{death_of(c, child)};
    }
    const nlohmann::json parsed = nlohmann::json::parse(child.text, nullptr, false);
    if (parsed.is_discarded()) return Error{death_of(c, child)};
    Expected<ClientOutcome> outcome = client_outcome_from_json(parsed);
    if (!outcome) return Error{fmt::format("client {}: {}", c, outcome.error())};
    outcomes.push_back(std::move(*outcome));
  }
  return outcomes;
}

}  // namespace

std::string progress_line(const Progress& p) {
  std::string line =
      fmt::format("progress: {:.1f} s, {:.1f} tps, lat {:.3f} ms stddev {:.3f}", p.elapsed_seconds,
                  p.tps, p.latency_mean * 1e3, p.latency_stddev * 1e3);
  if (p.failed > 0) line += fmt::format(", {} failed", p.failed);
  return line;
}

Expected<LoadOutcome> run_phase(Transactions& transactions, const RunContext& ctx, std::size_t type,
                                const LoadConfig& config, const ProgressFn& on_progress,
                                const PhaseShape& shape) {
  SharedState shared(config.clients);
  if (!shared.ok()) {
    return Error{fmt::format("cannot map shared memory for {} clients: {}", config.clients,
                             std::strerror(errno))};
  }
  std::int64_t start = 0;
  Expected<std::vector<ClientOutcome>> outcomes =
      config.mode == ClientMode::processes
          ? run_processes(transactions, ctx, type, config, shared, on_progress, shape, start)
          : run_threads(transactions, ctx, type, config, shared, on_progress, shape, start);
  if (!outcomes) return Error{outcomes.error()};

  LoadOutcome total;
  total.clients = config.clients;
  IntervalSeries series(std::llround(config.interval_seconds * 1e9));
  std::uint64_t lag_count = 0, lag_sum_ns = 0, lag_max_ns = 0;
  std::int64_t end = start;
  std::uint64_t intended = 0;
  for (std::uint32_t c = 0; c < outcomes->size(); ++c) {
    const ClientOutcome& o = (*outcomes)[c];
    if (!o.open_error.empty()) {
      return Error{fmt::format("client {}: open_client failed: {}", c, o.open_error)};
    }
    total.processed += o.processed;
    total.failed += o.failed;
    total.warmup += o.warmup;
    intended += o.intended;
    if (total.first_error.empty() && !o.first_error.empty()) {
      total.first_error = fmt::format("client {}: {}", c, o.first_error);
    }
    total.setup_seconds = std::max(total.setup_seconds, o.open_seconds);
    end = std::max(end, o.end_ns);
    total.latency.merge(o.latency);
    total.tries.merge(o.tries);
    if (total.kinds.size() < o.kinds.size()) total.kinds.resize(o.kinds.size());
    for (std::size_t k = 0; k < o.kinds.size(); ++k) total.kinds[k].merge(o.kinds[k]);
    series.merge(o.intervals);
    lag_count += o.lag_count;
    lag_sum_ns += o.lag_sum_ns;
    lag_max_ns = std::max(lag_max_ns, o.lag_max_ns);
    total.late += o.late;
    total.skipped += o.skipped;
  }
  total.intervals = series.columns(config.rate.has_value());
  if (config.rate && lag_count > 0) {
    total.lag =
        result::LoadLag{static_cast<double>(lag_sum_ns) / static_cast<double>(lag_count) / 1e9,
                        static_cast<double>(lag_max_ns) / 1e9};
  }
  if (start == 0) return Error{"the clients never started (aborted)"};
  total.run_seconds = static_cast<double>(end - start) / 1e9;
  if (shape.total_transactions) {
    total.intended = *shape.total_transactions;
  } else if (config.transactions) {
    total.intended = std::uint64_t{config.clients} * *config.transactions;
  } else if (config.rate) {
    total.intended = intended;
  }
  return total;
}

}  // namespace storh::load
