// LogQueue shared by real processes (engine-spec.md 10.3 Q4) and killed at random points:
// every job is claimed exactly once, and no acknowledged event is lost.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cerrno>
#include <chrono>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "common/bench/bench_row.h"
#include "queue/log_queue.h"
#include "queue/log_replay.h"
#include "queue/queue_event.h"
#include "queue_test_support.h"

namespace fs = std::filesystem;
namespace q = storh::engines::queue;
using queue_test::ScratchDir;
using storh::engines::Json;
using storh::engines::LogQueue;
using storh::engines::QueueCounts;
using storh::test::fork_child;
using storh::test::wait_status;

namespace {

// Appends one line with one write(2): it survives the writer being killed right after.
void ack(int fd, char kind, const std::string& id) {
  const std::string line = std::string(1, kind) + " " + id + "\n";
  if (::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) ::_exit(3);
}

std::vector<std::string> read_lines(const fs::path& file) {
  std::istringstream in(queue_test::read_text(file));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool any_acks(const std::vector<fs::path>& files) {
  std::error_code error;
  for (const fs::path& file : files) {
    if (fs::exists(file, error) && fs::file_size(file, error) > 0) return true;
  }
  return false;
}

// Claim lines per id in a log file.
std::map<std::string, int> claim_lines(const fs::path& log) {
  const std::string bytes = queue_test::read_text(log);
  std::map<std::string, int> claims;
  q::QueueEvent event;
  std::string error;
  std::size_t at = 0;
  while (at < bytes.size()) {
    const std::size_t end = bytes.find('\n', at);
    if (end == std::string::npos) break;
    const std::string line = bytes.substr(at, end + 1 - at);
    REQUIRE(q::decode_event_line(line, 0, event, error) == q::DecodeStatus::ok);
    if (event.op == q::EventOp::claim) ++claims[std::string(event.id)];
    at = end + 1;
  }
  return claims;
}

}  // namespace

TEST_CASE("Q4: 5 worker processes claim 60 jobs, each exactly once", "[queue][Q4][process]") {
  constexpr int kWorkers = 5;  // more than this machine's cores
  constexpr std::size_t kJobs = 60;
  ScratchDir dir;
  std::vector<std::string> ids;
  {
    LogQueue queue(dir.path(), "q");
    for (std::size_t i = 0; i < kJobs; ++i) ids.push_back(queue.enqueue(Json{{"i", i}}));
  }
  std::vector<pid_t> pids;
  pids.reserve(kWorkers);
  for (int w = 0; w < kWorkers; ++w) {
    pids.push_back(fork_child([&, w] {
      LogQueue queue(dir.path(), "q");
      const int fd = ::open((dir.path() / ("claimed-" + std::to_string(w))).c_str(),
                            O_WRONLY | O_CREAT | O_APPEND, 0644);
      while (auto job = queue.claim()) {
        ack(fd, 'C', job->id.str());
        if (!queue.complete(job->id)) ::_exit(4);
      }
      ::close(fd);
    }));
  }
  for (const pid_t pid : pids) {
    const int status = wait_status(pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  std::multiset<std::string> claimed;
  for (int w = 0; w < kWorkers; ++w) {
    for (const std::string& line : read_lines(dir.path() / ("claimed-" + std::to_string(w)))) {
      claimed.insert(line.substr(2));
    }
  }
  CHECK(claimed.size() == kJobs);
  for (const std::string& id : ids) CHECK(claimed.count(id) == 1);

  LogQueue reopened(dir.path(), "q");
  CHECK(reopened.counts() == QueueCounts{0, 0, kJobs});
  CHECK(reopened.verify().ok);
  for (const auto& [id, count] : claim_lines(reopened.log_path())) CHECK(count == 1);
}

TEST_CASE(
    "queue: workers killed at random points lose no acknowledged event and claim "
    "no job twice",
    "[queue][crash][process]") {
  constexpr int kRounds = 12;
  constexpr int kWorkers = 3;
  ScratchDir dir;
  {
    LogQueue queue(dir.path(), "q");
    std::vector<Json> rows;
    for (unsigned i = 0; i < 300; ++i) rows.push_back(storh::engines::bench_row(i));
    queue.enqueue_many(rows);
  }
  std::mt19937 random(20261130);
  std::vector<fs::path> ack_files;
  for (int round = 0; round < kRounds; ++round) {
    std::vector<pid_t> pids;
    std::vector<fs::path> round_files;
    for (int w = 0; w < kWorkers; ++w) {
      const fs::path acks =
          dir.path() / ("acks-" + std::to_string(round) + "-" + std::to_string(w));
      ack_files.push_back(acks);
      round_files.push_back(acks);
      const auto seed = static_cast<unsigned>(random());
      pids.push_back(fork_child([&, acks, seed] {
        std::mt19937 choose(seed);
        LogQueue queue(dir.path(), "q");
        const int fd = ::open(acks.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        for (;;) {
          switch (choose() % 5) {
            case 0: {  // a batch big enough for a multi-page write that can tear
              std::vector<Json> rows;
              const auto count = static_cast<unsigned>(1 + choose() % 400);
              for (unsigned i = 0; i < count; ++i) rows.push_back(storh::engines::bench_row(i));
              for (const storh::engines::UuidText& id : queue.enqueue_many(rows))
                ack(fd, 'E', id.str());
              break;
            }
            case 1:
              ack(fd, 'E', queue.enqueue(Json{{"seed", seed}}));
              break;
            case 2: {
              const auto jobs = queue.claim_many(1 + choose() % 50);
              std::vector<std::string> ids;
              for (const auto& job : jobs) {
                ack(fd, 'C', job.id.str());
                ids.push_back(job.id.str());
              }
              queue.complete_many(ids);
              for (const std::string& id : ids) ack(fd, 'D', id);
              break;
            }
            default:
              if (auto job = queue.claim()) {
                ack(fd, 'C', job->id.str());
                if (queue.complete(job->id)) ack(fd, 'D', job->id.str());
              }
              break;
          }
        }
      }));
    }
    // Let the workers get going (a loaded machine may take a while to start them), then
    // kill each at a random point.
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < give_up && !any_acks(round_files)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(random() % 40));
    for (const pid_t pid : pids) {
      std::this_thread::sleep_for(std::chrono::microseconds(random() % 3000));
      ::kill(pid, SIGKILL);
    }
    for (const pid_t pid : pids) {
      const int status = wait_status(pid);
      CHECK(WIFSIGNALED(status));  // a worker that exits on its own has failed
    }
  }

  std::set<std::string> enqueued, completed;
  std::map<std::string, int> claimed;
  for (const fs::path& file : ack_files) {
    for (const std::string& line : read_lines(file)) {
      if (line.size() != 38) continue;  // the last ack may itself be torn
      const std::string id = line.substr(2);
      if (line[0] == 'E') enqueued.insert(id);
      if (line[0] == 'C') ++claimed[id];
      if (line[0] == 'D') completed.insert(id);
    }
  }
  INFO("acknowledged: " << enqueued.size() << " enqueued, " << claimed.size() << " claimed, "
                        << completed.size() << " completed");
  CHECK(!claimed.empty());

  LogQueue queue(dir.path(), "q");  // replays, cutting any torn tail
  CHECK(queue.verify().ok);
  for (const std::string& id : enqueued) {
    const auto* job = queue.state_for_tests().find(id);
    if (job == nullptr || job->status == q::JobStatus::none) FAIL("lost enqueue of " << id);
  }
  for (const auto& [id, times] : claimed) {
    if (times != 1) FAIL("job " << id << " was claimed " << times << " times");
    const q::JobStatus status = queue.state_for_tests().status(id);
    if (status != q::JobStatus::processing && status != q::JobStatus::done) {
      FAIL("lost claim of " << id);
    }
  }
  for (const std::string& id : completed) {
    if (queue.state_for_tests().status(id) != q::JobStatus::done) FAIL("lost completion of " << id);
  }
  for (const auto& [id, count] : claim_lines(queue.log_path())) {
    if (count != 1) FAIL("the log claims " << id << " " << count << " times");
  }
}
