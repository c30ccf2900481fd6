// `__describe`: the child that loads a plugin to ask it about itself and runs nothing,
// so a plugin that crashes while loading, describing or checking parameters fails only
// it. With --preflights it then answers Engine::preflight requests from stdin, so a
// run loads each plugin once before its workers, not once per question.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "plugin/describe.h"
#include "plugin/loader.h"
#include "storh/version.h"
#include "util/files.h"
#include "worker/fork_worker.h"
#include "worker/request.h"
#include "worker/worker_context.h"
#include "worker/worker_main.h"

namespace storh::worker {
namespace {

// The stderr capture in progress (capture_stderr): the real stderr, and the memfd
// standing in for it. Set on the main thread; read by the exit and signal paths.
int g_saved_stderr = -1;
int g_captured = -1;

// The signals that end a plugin with a message on stderr worth keeping.
constexpr std::array<int, 5> kFatal = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

// Calls `piece(data, size)` for what the memfd holds, from its start. Async-signal-safe
// when `piece` is.
template <typename Piece>
void read_memfd(int memory, Piece&& piece) {
  char buffer[4096];
  off_t offset = 0;
  ssize_t got;
  while ((got = ::pread(memory, buffer, sizeof buffer, offset)) > 0) {
    piece(buffer, static_cast<std::size_t>(got));
    offset += got;
  }
}

// Copies what the capture holds to the real stderr and puts it back on fd 2, so that
// a plugin that exits or dies inside preflight leaves its last words where the host
// reads why the child ended. Async-signal-safe.
void spill_capture() noexcept {
  if (g_captured < 0) return;
  read_memfd(g_captured, [](const char* data, std::size_t size) {
    write_all(g_saved_stderr, std::string_view(data, size));
  });
  ::dup2(g_saved_stderr, STDERR_FILENO);
  g_captured = -1;
}

void spill_and_die(int signal) {
  spill_capture();
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

// What the plugin writes to stderr (fd 2) while `body` runs, kept in memory instead:
// the "note: " lines of a preflight become part of its answer. If the plugin exits or
// dies with a fatal signal meanwhile, the text goes to the real stderr first.
template <typename Body>
std::string capture_stderr(Body&& body) {
  std::cerr.flush();
  std::fflush(stderr);
  g_saved_stderr = ::fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
  const int memory = ::memfd_create("storh-preflight-stderr", MFD_CLOEXEC);
  if (g_saved_stderr < 0 || memory < 0) {
    if (g_saved_stderr >= 0) ::close(g_saved_stderr);
    if (memory >= 0) ::close(memory);
    body();  // nothing to capture into: the lines go to stderr as they are
    return {};
  }
  static const bool at_exit = std::atexit([] { spill_capture(); }) == 0;
  static_cast<void>(at_exit);
  std::array<struct sigaction, kFatal.size()> previous{};
  struct sigaction spill {};
  spill.sa_handler = spill_and_die;
  for (std::size_t i = 0; i < kFatal.size(); ++i) ::sigaction(kFatal[i], &spill, &previous[i]);
  ::dup2(memory, STDERR_FILENO);
  g_captured = memory;
  // Restores fd 2 and the signal handlers however `body` ends.
  struct Restore {
    const std::array<struct sigaction, kFatal.size()>& previous;
    ~Restore() {
      std::cerr.flush();
      std::fflush(stderr);
      g_captured = -1;
      ::dup2(g_saved_stderr, STDERR_FILENO);
      ::close(g_saved_stderr);
      g_saved_stderr = -1;
      for (std::size_t i = 0; i < kFatal.size(); ++i) ::sigaction(kFatal[i], &previous[i], nullptr);
    }
  };
  {
    const Restore restore{previous};
    body();
  }
  std::string text;
  read_memfd(memory, [&](const char* data, std::size_t size) { text.append(data, size); });
  ::close(memory);
  return text;
}

// One preflight answer as a JSON line: {"error": MESSAGE} when the plugin refuses the
// parameters, else {"notes": [...], "parts": {"type": ["part", ...]}, and
// "needs_duration": {"param": ..., "reason": ...} when a parameter needs a duration}.
// Lines of stderr other than notes are passed on to stderr.
nlohmann::json preflight_answer(plugin::LoadedPlugin& loaded, const std::string& params_json) {
  Expected<ParamValues> chosen = params_from_json(params_json);
  if (!chosen) return {{"error", "--params: " + chosen.error()}};
  const ParamValues params = build_params(loaded.describe(), *chosen);
  const std::vector<std::pair<std::string, ParamValue>> values(params.begin(), params.end());
  nlohmann::json answer = nlohmann::json::object();
  std::optional<std::string> refused;
  const std::string written = capture_stderr([&] {
    const Status status = loaded.engine().preflight({params.begin(), params.end()});
    if (!status.ok()) {
      refused = status.message();
      return;
    }
    // ABI 1.7: the parts of each transaction type under these parameters, and the
    // parameter that needs a duration, so that the host names the parts' metrics and
    // refuses a cell without a duration up front.
    Transactions* transactions = loaded.transactions();
    if (loaded.manifest().abi_minor < storh::kTransactionReportAbiMinor ||
        transactions == nullptr) {
      return;
    }
    nlohmann::json parts = nlohmann::json::object();
    const std::vector<TransactionSpec> specs = transactions->describe();
    for (std::size_t type = 0; type < specs.size(); ++type) {
      std::vector<std::string> names = transactions->parts(type, values);
      if (!names.empty()) parts[specs[type].name] = std::move(names);
    }
    answer["parts"] = std::move(parts);
    const Transactions::DurationNeed need = transactions->needs_duration(values);
    if (!need.param.empty()) {
      answer["needs_duration"] = {{"param", need.param}, {"reason", need.reason}};
    }
  });
  constexpr std::string_view kNote = "note: ";
  nlohmann::json notes = nlohmann::json::array();
  std::string_view rest = written;
  while (!rest.empty()) {
    const std::size_t end = std::min(rest.find('\n'), rest.size());
    const std::string_view line = rest.substr(0, end);
    if (line.starts_with(kNote)) {
      notes.push_back(std::string(line.substr(kNote.size())));
    } else if (!line.empty()) {
      std::cerr << line << '\n';
    }
    rest.remove_prefix(std::min(end + 1, rest.size()));
  }
  if (refused) return {{"error", *refused}};
  answer["notes"] = std::move(notes);
  return answer;
}

// The host's requests, a line each, read from the conversation's socket with the
// descriptors a spawn request carries (SCM_RIGHTS), which read(2) would drop.
class Requests {
 public:
  explicit Requests(int fd) : fd_(fd) {}
  ~Requests() {
    for (const int fd : fds_) ::close(fd);
    ::close(fd_);
  }
  Requests(const Requests&) = delete;
  Requests& operator=(const Requests&) = delete;

  // The next line without its newline; nullopt at end of file.
  std::optional<std::string> next() {
    std::size_t newline;
    while ((newline = buffer_.find('\n')) == std::string::npos) {
      if (!receive()) return std::nullopt;
    }
    std::string line = buffer_.substr(0, newline);
    buffer_.erase(0, newline + 1);
    return line;
  }

  // The next descriptor received, oldest first; -1 when none is left.
  int take_fd() {
    if (fds_.empty()) return -1;
    const int fd = fds_.front();
    fds_.pop_front();
    return fd;
  }

 private:
  bool receive() {
    char data[4096];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 8)];
    iovec part{data, sizeof data};
    msghdr message{};
    message.msg_iov = &part;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    ssize_t got;
    while ((got = ::recvmsg(fd_, &message, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
    }
    for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr;
         header = CMSG_NXTHDR(&message, header)) {
      if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
      const std::size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t i = 0; i < count; ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(header) + i * sizeof(int), sizeof fd);
        fds_.push_back(fd);
      }
    }
    if (got <= 0) return false;
    buffer_.append(data, static_cast<std::size_t>(got));
    return true;
  }

  int fd_;
  std::string buffer_;
  std::deque<int> fds_;
};

}  // namespace

int describe_main(const std::vector<std::string>& args) {
  constexpr const char* kUsage = "usage: storh-host __describe FILE [--name=NAME] [--preflights]";
  if (args.size() < 2) return fail_input(kUsage);
  std::string expected_name;
  bool preflights = false;
  for (std::size_t i = 2; i < args.size(); ++i) {
    if (args[i].starts_with("--name=")) {
      expected_name = args[i].substr(7);
    } else if (args[i] == "--preflights") {
      preflights = true;
    } else {
      return fail_input(kUsage);
    }
  }
  // A conversation has the requests and answers to itself, on descriptors nothing
  // the plugin starts inherits: the plugin's stdout goes to stderr, and its stdin is
  // /dev/null, as a worker's is.
  std::FILE* answers = stdout;
  int request_fd = -1;
  if (preflights) {
    std::cout.flush();
    const int answer_fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    request_fd = ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
    answers = answer_fd < 0 ? nullptr : ::fdopen(answer_fd, "w");
    const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (answers == nullptr || request_fd < 0 || null_fd < 0) {
      return fail_input("cannot keep stdin and stdout for the conversation");
    }
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    ::dup2(null_fd, STDIN_FILENO);
    ::close(null_fd);
  }
  const auto answer_line = [answers](const auto& json) {
    const std::string text = json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::fputs(text.c_str(), answers);
    std::fputc('\n', answers);
    std::fflush(answers);
  };
  Expected<std::unique_ptr<plugin::LoadedPlugin>> loaded =
      plugin::load_plugin(args[1], expected_name);
  if (!loaded) {
    std::cerr << loaded.error() << '\n';
    return kWorkerExitBadInput;
  }
  plugin::Description description{(*loaded)->manifest(), (*loaded)->describe(), args[1], {}};
  if (Transactions* transactions = (*loaded)->transactions()) {
    description.transactions = transactions->describe();
  }
  description.key_value = (*loaded)->key_value() != nullptr;
  if ((*loaded)->manifest().abi_minor >= storh::kParamRangesAbiMinor) {
    description.ranges = (*loaded)->engine().param_ranges();
  }
  const nlohmann::ordered_json described = plugin::description_json(description);
  if (!preflights) {
    std::cout << described.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    return kWorkerExitOk;
  }
  // A conversation (plugin/session.h): the description on one line, then one answer
  // line per request line until stdin ends: a preflight for a line of the cell's
  // parameters as JSON, a worker forked for a spawn request (worker/fork_worker.h).
  answer_line(described);
  const bool checks = (*loaded)->manifest().abi_minor >= storh::kPreflightAbiMinor;
  Requests requests(request_fd);
  while (const std::optional<std::string> request = requests.next()) {
    if (request->starts_with(kSpawnRequest)) {
      std::array<int, kSpawnFds> fds{};
      for (int& fd : fds) fd = requests.take_fd();
      answer_line(fork_worker(request->substr(kSpawnRequest.size()), fds));
      continue;
    }
    answer_line(checks ? preflight_answer(**loaded, *request) : nlohmann::json::object());
  }
  std::fclose(answers);
  return kWorkerExitOk;
}

}  // namespace storh::worker
