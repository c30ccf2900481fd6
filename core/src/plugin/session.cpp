#include "plugin/session.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>

#include <fmt/format.h>

#include "plugin/check_description.h"
#include "process/child_process.h"
#include "util/files.h"
#include "worker/fork_worker.h"
#include "worker/worker_main.h"

namespace storh::plugin {

// The child's stdout lines go one way, the requests the other. The watching thread
// waits in ProcessOptions::on_stdout_line for the next request, so the child is
// answered exactly when the host asks.
struct Session::Channel {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::string> lines;                       // from the child, oldest first
  std::deque<std::optional<process::Reply>> requests;  // nullopt: close its stdin
  bool closing = false;             // no more requests: any further line is answered by closing
  bool finished = false;            // the child was reaped (or could not be started)
  process::ProcessOutcome outcome;  // once finished
  bool failure_told = false;        // a preflight said how the child ended (the host's thread)

  // ProcessOptions::on_stdout_line, on the watching thread: the child's line is kept,
  // and the next request (or the close) is its reply.
  std::optional<process::Reply> reply_to(std::string_view line) {
    std::unique_lock lock(mutex);
    lines.emplace_back(line);
    changed.notify_all();
    changed.wait(lock, [&] { return !requests.empty() || closing; });
    if (requests.empty()) return std::nullopt;
    std::optional<process::Reply> next = std::move(requests.front());
    requests.pop_front();
    return next;
  }

  void finish(process::ProcessOutcome ended) {
    {
      const std::lock_guard lock(mutex);
      outcome = std::move(ended);
      finished = true;
    }
    changed.notify_all();
  }

  // Waits for the child's next line; nullopt when it ended without one.
  std::optional<std::string> next_line() {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return !lines.empty() || finished; });
    if (lines.empty()) return std::nullopt;
    std::string line = std::move(lines.front());
    lines.pop_front();
    return line;
  }

  void request(process::Reply text) {
    {
      const std::lock_guard lock(mutex);
      requests.emplace_back(std::move(text));
    }
    changed.notify_all();
  }

  void close() {
    {
      const std::lock_guard lock(mutex);
      closing = true;
    }
    changed.notify_all();
  }
};

namespace {

constexpr double kAnswerSeconds = 30;

// Why a child that printed no description failed, naming the file.
std::string describe_failure(const std::filesystem::path& file,
                             const process::ProcessOutcome& outcome) {
  if (!outcome.started) return fmt::format("{}: {}", file.string(), outcome.error);
  std::string reason = process::tail_lines(outcome.stderr_tail, 5);
  if (outcome.timed_out) reason = "timed out after 30 s while loading or describing";
  if (outcome.signal) {
    reason =
        fmt::format("crashed with signal {} ({}) while loading or describing{}{}", *outcome.signal,
                    strsignal(*outcome.signal), reason.empty() ? "" : ": ", reason);
  }
  if (reason.empty()) {
    reason = fmt::format("describe exited with {}", outcome.exit_code.value_or(-1));
  }
  // A refusal from the loader already names the file.
  if (reason.starts_with(file.string())) return reason;
  return fmt::format("{}: {}", file.string(), reason);
}

// Why a child that was asked for a preflight gave no answer, naming the file.
std::string preflight_failure(const std::filesystem::path& file,
                              const process::ProcessOutcome& outcome) {
  if (outcome.timed_out) return fmt::format("{}: preflight timed out after 30 s", file.string());
  const std::string reason = process::tail_lines(outcome.stderr_tail, 5);
  if (outcome.signal) {
    return fmt::format("{}: crashed with signal {} ({}) in preflight{}{}", file.string(),
                       *outcome.signal, strsignal(*outcome.signal), reason.empty() ? "" : ": ",
                       reason);
  }
  return reason.empty() ? fmt::format("{}: preflight exited with {}", file.string(),
                                      outcome.exit_code.value_or(-1))
                        : reason;
}

Expected<Description> described(const std::filesystem::path& file, const std::string& line) {
  const nlohmann::json parsed = nlohmann::json::parse(line, nullptr, false);
  if (parsed.is_discarded()) {
    return Error{fmt::format("{}: describe printed invalid JSON", file.string())};
  }
  Expected<Description> description = description_from_json(parsed);
  if (!description) return description;
  if (std::string problems = check_description(*description); !problems.empty()) {
    return Error{
        fmt::format("{}: refused: check \"description\" failed: {}", file.string(), problems)};
  }
  // Hashed here, not in the child: the host records what it will hand the workers.
  Expected<std::string> hash = file_hash(file);
  if (!hash) return Error{hash.error()};
  description->file_hash = *hash;
  return description;
}

// One answer line of the child (worker/describe_main.cpp) as a Preflight.
Preflight answered(const std::filesystem::path& file, const std::string& line) {
  Preflight answer;
  const nlohmann::json parsed = nlohmann::json::parse(line, nullptr, false);
  try {
    if (parsed.is_discarded() || !parsed.is_object()) throw std::runtime_error("not a JSON object");
    if (const auto error = parsed.find("error"); error != parsed.end()) {
      answer.error = error->get<std::string>();
      return answer;
    }
    answer.notes = parsed.value("notes", std::vector<std::string>{});
    const nlohmann::json parts = parsed.value("parts", nlohmann::json::object());
    for (const auto& [type, names] : parts.items()) {
      answer.parts[type] = names.get<std::vector<std::string>>();
    }
    if (const auto need = parsed.find("needs_duration"); need != parsed.end()) {
      answer.duration_param = need->at("param").get<std::string>();
      answer.duration_reason = need->at("reason").get<std::string>();
    }
  } catch (const std::exception& e) {
    answer = Preflight{};
    answer.error =
        fmt::format("{}: preflight printed an unreadable answer: {}", file.string(), e.what());
  }
  return answer;
}

}  // namespace

Session::Session(const std::filesystem::path& host_executable, const std::filesystem::path& file,
                 const std::string& expected_name)
    : file_(file),
      channel_(std::make_shared<Channel>()),
      options_(std::make_shared<process::ProcessOptions>()) {
  process::ProcessOptions& options = *options_;
  options.argv = {host_executable.string(), "__describe", file.string()};
  if (!expected_name.empty()) options.argv.push_back("--name=" + expected_name);
  options.argv.push_back("--preflights");
  // The child is this process forked, not storh-host started anew, when
  // `host_executable` is this very program and it has a single thread now (the sessions
  // of a run all start before their threads do). Another program (a fake host in a
  // test) is exec'd.
  std::error_code same_error;
  if (std::filesystem::equivalent(host_executable, "/proc/self/exe", same_error)) {
    options.child_main =
        [args = std::vector<std::string>(options.argv.begin() + 1, options.argv.end())] {
          return worker::describe_main(args);
        };
  }
  options.timeout_seconds = kAnswerSeconds;
  options.stderr_tail_bytes = 16384;
  options.on_stdout_line = [channel = channel_](std::string_view line) {
    return channel->reply_to(line);
  };
  try {
    started_ = process::start_process(options);
  } catch (const std::exception& e) {  // out of memory: nothing was started
    process::ProcessOutcome outcome;
    outcome.error = e.what();
    channel_->finish(std::move(outcome));
  }
}

void Session::watch() {
  if (watcher_.joinable() || !started_) return;
  watcher_ = std::thread(
      [channel = channel_, options = options_, started = std::move(started_)]() mutable {
        process::ProcessOutcome outcome;
        try {
          outcome = process::watch_process(*options, std::move(started));
        } catch (const std::exception& e) {  // out of memory: the child is not watched
          outcome.error = e.what();
        }
        channel->finish(std::move(outcome));
      });
}

Session::~Session() {
  close();
  if (watcher_.joinable()) watcher_.join();
}

void Session::close() {
  watch();
  channel_->close();
}

const Expected<Description>& Session::description() {
  watch();
  if (!description_) {
    const std::optional<std::string> line = channel_->next_line();
    description_ = line ? described(file_, *line)
                        : Expected<Description>(Error{describe_failure(file_, channel_->outcome)});
  }
  return *description_;
}

Preflight Session::preflight(const std::string& params_json) {
  const std::lock_guard asking(asking_);
  Preflight failed;
  if (!description()) {
    failed.error = description().error();
    return failed;
  }
  channel_->request(params_json);
  const std::optional<std::string> line = channel_->next_line();
  if (line) return answered(file_, *line);
  // The child ended: the combination that ended it says how, and later ones were not
  // asked (each earlier combination had its answer).
  failed.error = std::exchange(channel_->failure_told, true)
                     ? fmt::format(
                           "{}: not checked: the preflight child ended on an "
                           "earlier parameter combination",
                           file_.string())
                     : preflight_failure(file_, channel_->outcome);
  return failed;
}

namespace {

// Whether `pid` is a child of this process that has not been reaped: what the session
// child answered is checked, never trusted, before the host waits on it and signals
// its group.
bool is_own_child(pid_t pid) {
  if (pid <= 1) return false;
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0;
}

}  // namespace

std::optional<pid_t> Session::spawn(const std::vector<std::string>& argv,
                                    const process::ChildFds& fds) {
  const std::lock_guard asking(asking_);
  if (!forks_ || !description()) return std::nullopt;
  std::string request;
  try {
    request = nlohmann::json{{"argv", argv}, {"host", ::getpid()}}.dump();
  } catch (const nlohmann::json::exception&) {  // a path that is not UTF-8: exec it
    return std::nullopt;
  }
  // The worker waits for a byte on this pipe before it runs: it is written once the
  // host has its pid, so a worker whose answer never came (the session child died in
  // between) ends instead of running beside the one exec starts then.
  int go[2];
  if (::pipe2(go, O_CLOEXEC) != 0) return std::nullopt;
  // The worker, orphaned by the middle process, is adopted by the nearest subreaper:
  // this process, only while it waits for the answer, so that no other orphan below
  // it is adopted and left unreaped.
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    ::close(go[0]);
    ::close(go[1]);
    forks_ = false;
    return std::nullopt;
  }
  channel_->request(
      process::Reply(std::string(worker::kSpawnRequest) + request,
                     {fds.stdin_fd, fds.stdout_fd, fds.stderr_fd, fds.event_fd, go[0]}));
  const std::optional<std::string> line = channel_->next_line();
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  ::close(go[0]);
  const nlohmann::json answer =
      line ? nlohmann::json::parse(*line, nullptr, false) : nlohmann::json();
  std::optional<pid_t> pid;
  if (answer.is_object() && answer.contains("pid") && answer["pid"].is_number_integer()) {
    pid = answer["pid"].get<pid_t>();
  }
  if (pid && is_own_child(*pid) && write_all(go[1], "g")) {
    ::close(go[1]);
    return pid;
  }
  ::close(go[1]);
  // Threads, a child that ended, or an answer that is not a child of ours: every later
  // worker is started with exec.
  forks_ = false;
  return std::nullopt;
}

Sessions::~Sessions() {
  for (auto& [engine, session] : sessions_) session->close();
}

Session& Sessions::start(const std::string& engine, const std::filesystem::path& host_executable,
                         const std::filesystem::path& file) {
  auto [found, added] = sessions_.try_emplace(engine);
  if (added) found->second = std::make_unique<Session>(host_executable, file, engine);
  return *found->second;
}

Session* Sessions::find(const std::string& engine) const {
  const auto found = sessions_.find(engine);
  return found == sessions_.end() ? nullptr : found->second.get();
}

std::optional<pid_t> Sessions::spawn(const std::string& engine, const std::filesystem::path& plugin,
                                     const std::vector<std::string>& argv,
                                     const process::ChildFds& fds) const {
  Session* session = find(engine);
  if (session == nullptr || session->file() != plugin) return std::nullopt;
  return session->spawn(argv, fds);
}

Expected<Description> describe_plugin(const std::filesystem::path& host_executable,
                                      const std::filesystem::path& file,
                                      const std::string& expected_name) {
  Session session(host_executable, file, expected_name);
  return session.description();
}

}  // namespace storh::plugin
