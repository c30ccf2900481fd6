// Tests of common/run_clock.h: the clock and keys a counting run fixes, and that
// without the host's variable engines keep the real clock and the kernel's randomness.
#include <array>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/csprng.h"
#include "common/run_clock.h"
#include "common/uuid_v7.h"
#include "forked_child.h"

namespace run_clock = storh::engines::run_clock;
namespace uuid_v7 = storh::engines::uuid_v7;
using storh::engines::Csprng;

namespace {

constexpr std::int64_t kOriginMs = 1'767'225'600'000;

// Sets (or, given nullptr, removes) the host's variable and rereads it; the destructor
// leaves the process as it found it: no variable, real clock.
class FixedRunEnvironment {
 public:
  explicit FixedRunEnvironment(const char* value) { set(value); }
  ~FixedRunEnvironment() { set(nullptr); }
  FixedRunEnvironment(const FixedRunEnvironment&) = delete;
  FixedRunEnvironment& operator=(const FixedRunEnvironment&) = delete;

  static void set(const char* value) {
    if (value != nullptr) {
      ::setenv(run_clock::kEnvironmentVariable, value, 1);
    } else {
      ::unsetenv(run_clock::kEnvironmentVariable);
    }
    run_clock::reload_for_tests();
  }
};

std::array<std::uint8_t, 32> key_bytes(Csprng& rng) {
  std::array<std::uint8_t, 32> bytes{};
  rng.fill(bytes);
  return bytes;
}

// What a fresh counting process reads first: the clock, an id's timestamp, a new key.
std::vector<std::string> first_reads() {
  const std::int64_t ns = run_clock::wall_clock_ns();
  const std::int64_t id_ms = uuid_v7::timestamp_ms(uuid_v7::generate());
  Csprng rng;
  const auto key = key_bytes(rng);
  return {std::to_string(ns), std::to_string(id_ms), std::string(key.begin(), key.end())};
}

}  // namespace

TEST_CASE("run_clock: the host's text parses, anything else is ignored", "[run_clock]") {
  const auto run = run_clock::parse_fixed_run("1767225600000:42");
  REQUIRE(run);
  CHECK(run->origin_ms == kOriginMs);
  CHECK(run->seed == 42);
  CHECK(run_clock::parse_fixed_run("0:18446744073709551615"));
  for (const char* bad : {"", ":", "1:", ":1", "x:1", "1:x", "-1:2", "1:-2", "1:2:3", "1 :2",
                          "1:2 ", "281474976710657:1", "99999999999999999999:1"}) {
    INFO(bad);
    CHECK_FALSE(run_clock::parse_fixed_run(bad));
  }
}

TEST_CASE("run_clock: a fixed clock starts at its origin and advances one tick per read",
          "[run_clock]") {
  run_clock::FixedClock clock(5'000);
  CHECK(clock.next_ns() == 5'000);
  CHECK(clock.next_ns() == 5'000 + run_clock::FixedClock::kTickNs);
  CHECK(clock.next_ns() == 5'000 + 2 * run_clock::FixedClock::kTickNs);
}

TEST_CASE("run_clock: threads reading one fixed clock never see a value twice", "[run_clock]") {
  run_clock::FixedClock clock(0);
  constexpr std::size_t kThreads = 4;
  constexpr std::size_t kReads = 1000;
  std::vector<std::vector<std::int64_t>> seen(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (std::size_t t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (std::size_t i = 0; i < kReads; ++i) seen[t].push_back(clock.next_ns());
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::set<std::int64_t> all;
  for (const auto& values : seen) {
    for (std::size_t i = 1; i < values.size(); ++i) CHECK(values[i] > values[i - 1]);
    all.insert(values.begin(), values.end());
  }
  CHECK(all.size() == kThreads * kReads);
  CHECK(*all.rbegin() ==
        static_cast<std::int64_t>(kThreads * kReads - 1) * run_clock::FixedClock::kTickNs);
}

TEST_CASE("run_clock: a seed stream repeats for one seed and differs between fills and seeds",
          "[run_clock]") {
  run_clock::SeedStream a(7);
  run_clock::SeedStream b(7);
  run_clock::SeedStream other(8);
  std::array<std::uint8_t, 37> a0{}, a1{}, b0{}, b1{}, other0{};
  a.fill(a0);
  a.fill(a1);
  b.fill(b0);
  b.fill(b1);
  other.fill(other0);
  CHECK(a0 == b0);
  CHECK(a1 == b1);
  CHECK(a0 != a1);
  CHECK(a0 != other0);
}

TEST_CASE("run_clock: with the host's variable, the clock, ids and keys repeat exactly",
          "[run_clock]") {
  const FixedRunEnvironment fixed("1767225600000:42");
  REQUIRE(run_clock::fixed_run());
  CHECK(run_clock::wall_clock_ms() == kOriginMs);
  CHECK(run_clock::wall_clock_ns() == kOriginMs * 1'000'000 + run_clock::FixedClock::kTickNs);
  CHECK(run_clock::wall_clock_seconds() == kOriginMs / 1000);
  CHECK(uuid_v7::now_ms() == kOriginMs);

  // uuid_v7's own generator keys itself now, so that the reads compared below draw the
  // same keys of the stream whichever test ran before.
  (void)uuid_v7::generate();
  run_clock::reload_for_tests();
  const std::vector<std::string> first = first_reads();
  run_clock::reload_for_tests();
  CHECK(first_reads() == first);
  CHECK(first[1] == std::to_string(kOriginMs));

  FixedRunEnvironment::set("1767225600000:43");
  const std::vector<std::string> other_seed = first_reads();
  CHECK(other_seed[0] == first[0]);
  CHECK(other_seed[2] != first[2]);
}

TEST_CASE("run_clock: without the variable, or with a malformed one, the clock is real",
          "[run_clock]") {
  for (const char* value : {static_cast<const char*>(nullptr), "not a fixed run"}) {
    INFO((value != nullptr ? value : "no variable"));
    const FixedRunEnvironment environment(value);
    CHECK_FALSE(run_clock::fixed_run());
    const auto before = std::chrono::floor<std::chrono::milliseconds>(
        std::chrono::system_clock::now().time_since_epoch());
    const std::int64_t read = run_clock::wall_clock_ms();
    const auto after = std::chrono::floor<std::chrono::milliseconds>(
        std::chrono::system_clock::now().time_since_epoch());
    CHECK(read >= before.count());
    CHECK(read <= after.count());
    const std::vector<std::string> first = first_reads();
    run_clock::reload_for_tests();
    const std::vector<std::string> second = first_reads();
    CHECK(first[0] != second[0]);
    CHECK(first[2] != second[2]);
  }
}

TEST_CASE("run_clock: a forked child of a counting run draws its keys from the kernel",
          "[run_clock]") {
  const FixedRunEnvironment fixed("1767225600000:42");
  const auto child_bytes = storh::test::bytes_from_forked_child(32, [] {
    Csprng rng;
    const auto key = key_bytes(rng);
    return std::vector<std::uint8_t>(key.begin(), key.end());
  });
  // The parent's first key is the seed stream's first, which the child inherited unused.
  Csprng rng;
  const auto parent_bytes = key_bytes(rng);
  REQUIRE(child_bytes);
  CHECK(*child_bytes != std::vector<std::uint8_t>(parent_bytes.begin(), parent_bytes.end()));
}
