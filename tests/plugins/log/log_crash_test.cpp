// Crash test (engine-spec.md section 10.4): a writer process is killed
// with SIGKILL at random points while it appends, deletes, batches and compacts; the
// reopen keeps every acknowledged write and cuts whatever was torn.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/uuid_v7.h"
#include "log/segmented_log.h"
#include "log_test_support.h"

namespace lg = storh::engines::log;
using storh::engines::Json;
using storh::engines::Sync;

namespace {

void write_ack(int fd, char kind, const std::string& id) {
  const std::string line = kind + id + "\n";
  if (::write(fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) _exit(3);
}

// The child: writes forever, acknowledging each completed call on `ack_fd`.
[[noreturn]] void writer(const std::filesystem::path& root, int ack_fd, unsigned seed) {
  try {
    lg::SegmentedLog log(root, "crash", {1024, 4, Sync::durable});
    std::mt19937 random(seed);
    std::vector<std::string> mine;
    for (int i = 0;; ++i) {
      const auto action = static_cast<unsigned>(random() % 100);
      if (i > 0 && (action < 70 || mine.empty())) {
        const std::string id = log.put(Json{{"i", i}}).id;
        mine.push_back(id);
        write_ack(ack_fd, 'P', id);
      } else if (action < 85 || i == 0) {
        // Three rows; 400 first and now and then, which roll more segments in one sync
        // pass than kFilesystemSyncMinFiles, so that pass is one syncfs.
        std::vector<Json> rows(action < 83 && i > 0 ? 3 : 400, Json{{"i", i}});
        const auto records = log.append_many(std::move(rows));
        for (const auto& record : records) {
          mine.push_back(record.id);
          write_ack(ack_fd, 'P', record.id);
        }
      } else if (action < 95) {
        const std::string id = mine[static_cast<std::size_t>(random() % mine.size())];
        // A remove in flight when the kill lands may or may not be durable (its line
        // can be written and synced before 'D' is sent): announce it first.
        write_ack(ack_fd, 'R', id);
        log.remove(id);
        write_ack(ack_fd, 'D', id);
      } else {
        log.compact();
      }
    }
  } catch (...) {
    _exit(2);
  }
}

}  // namespace

TEST_CASE("log crash: SIGKILL at random points keeps every acknowledged write", "[log][crash]") {
  log_test::Scratch scratch;
  std::mt19937 random(12345);
  // id -> live; nullopt while a remove was started but not acknowledged (either
  // outcome is correct), settled by what the next reopen finds, which must then last.
  std::map<std::string, std::optional<bool>> acked;
  for (unsigned round = 0; round < 6; ++round) {
    INFO("round " << round);
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::close(fds[0]);
      writer(scratch.path(), fds[1], round + 1);
    }
    ::close(fds[1]);
    // Let it acknowledge a random number of writes, then sleep a random short time so
    // the kill lands anywhere in a write, a roll or a compaction.
    const int wanted = 5 + static_cast<int>(static_cast<std::size_t>(random() % 60));
    std::string pending;
    int seen = 0;
    char chunk[4096];
    while (seen < wanted) {
      const ssize_t got = ::read(fds[0], chunk, sizeof chunk);
      if (got <= 0) break;
      pending.append(chunk, static_cast<std::size_t>(got));
      for (char c : std::string_view(chunk, static_cast<std::size_t>(got))) seen += c == '\n';
    }
    ::usleep(static_cast<useconds_t>(static_cast<std::size_t>(random() % 3000)));
    ::kill(pid, SIGKILL);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status));
    for (;;) {
      const ssize_t got = ::read(fds[0], chunk, sizeof chunk);
      if (got <= 0) break;
      pending.append(chunk, static_cast<std::size_t>(got));
    }
    ::close(fds[0]);
    // Only complete acknowledgement lines count.
    std::size_t at = 0;
    for (std::size_t lf; (lf = pending.find('\n', at)) != std::string::npos; at = lf + 1) {
      const std::string line = pending.substr(at, lf - at);
      if (line[0] == 'R') {
        acked[line.substr(1)] = std::nullopt;
      } else {
        acked[line.substr(1)] = line[0] == 'P';
      }
    }

    lg::SegmentedLog log(scratch.path(), "crash", {1024, 4, Sync::durable});
    for (auto& [id, live] : acked) {
      INFO("id " << id);
      const bool found = static_cast<bool>(log.get(id));
      if (live) {
        CHECK(found == *live);
      } else {
        live = found;  // the unacknowledged remove either happened or not, for good
      }
    }
    CHECK(log.verify().ok);
  }
}
