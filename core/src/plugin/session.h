// plugin/session.h: asking a plugin about itself, in a child process.
//
// A plugin is never loaded into the host: one that crashes while loading must not
// take the run with it. A Session is one `storh-host __describe FILE --preflights`
// child that describes the plugin and then answers Engine::preflight for each
// parameter combination the host asks about, so a run loads each plugin once before
// its workers (a plugin linked to a client library such as libpq pays milliseconds of
// CPU per load, and a short run counts them). For the run that follows, the same child
// forks each repeat's worker (worker/fork_worker.h), so that a repeat does not load
// the plugin again either.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "plugin/describe.h"
#include "process/child_process.h"
#include "util/expected.h"

namespace storh::plugin {

// What the plugin answered to one cell's parameters.
struct Preflight {
  std::string error;               // "" when the plugin accepts them
  std::vector<std::string> notes;  // what the user should know even so ("note: " lines)
  // ABI >= 1.7: transaction type -> its parts (Transactions::parts), types with parts only.
  std::map<std::string, std::vector<std::string>> parts;
  // ABI >= 1.7: the parameter that makes a load cell need a duration, and why
  // (Transactions::needs_duration); "" when none does.
  std::string duration_param;
  std::string duration_reason;
};

class Session {
 public:
  // Starts the child: this process forked, when it has a single thread, else
  // `host_executable __describe FILE --name=NAME --preflights`. Each question it is
  // asked has 30 s to be answered. The child dies with the thread that constructs the
  // session (PR_SET_PDEATHSIG), which must outlive it: the host's main thread.
  Session(const std::filesystem::path& host_executable, const std::filesystem::path& file,
          const std::string& expected_name);
  // Ends the child (close()) and waits for it.
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The plugin's description, hashed, or why there is none (the child failed, timed
  // out or crashed, or check_description() refused it), naming the file. Asked once;
  // later calls return the same.
  const Expected<Description>& description();

  // Engine::preflight of an ABI >= 1.4 plugin with `params_json` (the cell's chosen
  // parameters, as the worker takes them). `error` is "" when the plugin accepts
  // them, else its message or why the child failed, naming the file; `notes` are the
  // lines it wrote to stderr starting with "note: " (without it) when it accepted
  // them; `parts` and the duration need are its transactions' answers.
  Preflight preflight(const std::string& params_json);

  // A worker for `argv` (`storh-host __worker --plugin=FILE ...`, this session's
  // file) forked by the child with `fds`, handed over to this process, which becomes a
  // child subreaper (prctl PR_SET_CHILD_SUBREAPER) for it: its pid, a child of this
  // process in its own process group. nullopt when the child cannot fork it (it has
  // ended, or runs threads): the caller then starts the worker with fork and exec.
  // The descriptors stay the caller's.
  std::optional<pid_t> spawn(const std::vector<std::string>& argv, const process::ChildFds& fds);

  const std::filesystem::path& file() const { return file_; }

  // Asks nothing more: the child's stdin is closed, and it ends. Lets several sessions
  // end at once before their destructors wait for them.
  void close();

 private:
  struct Channel;  // the lines between this thread and the one watching the child

  // Starts the thread that watches the child, once: not in the constructor, so that
  // every session of a run forks its child while the host has a single thread
  // (ProcessOptions::child_main).
  void watch();

  std::filesystem::path file_;
  std::shared_ptr<Channel> channel_;
  std::shared_ptr<process::ProcessOptions> options_;
  process::Started started_;  // until watch() takes it
  std::thread watcher_;
  std::optional<Expected<Description>> description_;
  std::mutex asking_;  // one question at a time: a request and its answer
  bool forks_ = true;  // false once the child could not fork a worker
};

// Each engine's session by engine name, kept for the whole run so that its workers are
// forked from it. All are told to end before the first is waited for.
class Sessions {
 public:
  Sessions() = default;
  Sessions(const Sessions&) = delete;
  Sessions& operator=(const Sessions&) = delete;
  ~Sessions();

  // Starts the engine's session child.
  Session& start(const std::string& engine, const std::filesystem::path& host_executable,
                 const std::filesystem::path& file);
  // The engine's session; nullptr when none was started.
  Session* find(const std::string& engine) const;
  // Session::spawn of the engine's session when its file is `plugin`, else nullopt.
  std::optional<pid_t> spawn(const std::string& engine, const std::filesystem::path& plugin,
                             const std::vector<std::string>& argv,
                             const process::ChildFds& fds) const;

 private:
  std::map<std::string, std::unique_ptr<Session>> sessions_;
};

// A Session asked for the description alone.
Expected<Description> describe_plugin(const std::filesystem::path& host_executable,
                                      const std::filesystem::path& file,
                                      const std::string& expected_name);

}  // namespace storh::plugin
