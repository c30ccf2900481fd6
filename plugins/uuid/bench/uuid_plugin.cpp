// The uuid plugin: storh's UUIDv7 benchmark (engine-spec.md section 11.6) over
// common/uuid_v7.h. The only file of the engine that knows about the host.
//
// Ids are written into one preallocated buffer with uuid_v7::generate_to, so the timed
// steps measure the generator rather than the allocator (a std::string of 36
// characters costs a heap allocation, ~10-15 ns, on top). Every step's answer is
// checked; the id checks run after the timed step (they cost as much as generating),
// and a wrong answer fails the run with a message naming the operation.
//
// Every step is a measure_repeated step (min_time): 10k ids take tens of microseconds,
// far too short to time once. Generation rewrites the same buffer each call (the
// monotonic counter simply runs on within its millisecond), and the checks look at
// the last call's ids.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/bench/bench_row.h"
#include "common/uuid_v7.h"
#include "storh/plugin.h"

namespace {

namespace uuid_v7 = storh::engines::uuid_v7;
using storh::Status;

constexpr std::int64_t kStartMs = storh::engines::kBenchStartMs;
constexpr std::size_t kIdSize = uuid_v7::kTextSize;

// n ids of 36 characters, back to back.
class IdBuffer {
 public:
  explicit IdBuffer(std::uint64_t n) : text_(static_cast<std::size_t>(n) * kIdSize) {}
  char* slot(std::uint64_t i) { return text_.data() + i * kIdSize; }
  std::string_view at(std::uint64_t i) const {
    return std::string_view(text_.data() + i * kIdSize, kIdSize);
  }

 private:
  std::vector<char> text_;
};

std::string describe_id(const IdBuffer& ids, std::uint64_t i) {
  return "id " + std::to_string(i) + " (" + std::string(ids.at(i)) + ")";
}

// monotonic: one millisecond, so every id must sort after the one before.
Status check_monotonic(const IdBuffer& ids, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) {
    if (!uuid_v7::is_valid(ids.at(i)) || uuid_v7::timestamp_ms(ids.at(i)) != kStartMs) {
      return Status::error("monotonic: " + describe_id(ids, i) + " is not a UUIDv7 of " +
                           std::to_string(kStartMs) + " ms");
    }
    if (i > 0 && !(ids.at(i - 1) < ids.at(i))) {
      return Status::error("monotonic: " + describe_id(ids, i) + " does not sort after " +
                           describe_id(ids, i - 1));
    }
  }
  return {};
}

Status check_spread(const IdBuffer& ids, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) {
    const auto expected = kStartMs + static_cast<std::int64_t>(i);
    if (!uuid_v7::is_valid(ids.at(i)) || uuid_v7::timestamp_ms(ids.at(i)) != expected) {
      return Status::error("spread: " + describe_id(ids, i) + " is not a UUIDv7 of " +
                           std::to_string(expected) + " ms");
    }
  }
  return {};
}

class UuidEngine final : public storh::Engine {
 public:
  storh::EngineInfo describe() const noexcept override {
    storh::EngineInfo info;
    info.description = "UUIDv7 generation, validation and timestamp extraction";
    info.operations = {
        {"monotonic", "ids", storh::Direction::lower_is_better,
         "generate n ids within one millisecond (counter increments)"},
        {"spread", "ids", storh::Direction::lower_is_better,
         "generate n ids, one per millisecond (fresh random bytes each)"},
        {"validate", "ids", storh::Direction::lower_is_better,
         "validate n ids, alternating lower and upper case"},
        {"timestamp", "ids", storh::Direction::lower_is_better,
         "extract the timestamp of n ids, alternating lower and upper case"},
    };
    return info;
  }

  Status run(storh::RunContext& ctx) noexcept override {
    return storh::guarded("uuid", [&] { return run_scenario(ctx); });
  }

 private:
  static Status run_scenario(storh::RunContext& ctx) {
    const std::uint64_t n = ctx.dataset_size();
    IdBuffer ids(n);
    if (ctx.selected("monotonic")) {
      uuid_v7::start_fresh_sequence();
      Status status = ctx.measure_repeated("monotonic", n, [&] {
        for (std::uint64_t i = 0; i < n; ++i) uuid_v7::generate_to(kStartMs, ids.slot(i));
      });
      if (!status.ok()) return status;
      if (status = check_monotonic(ids, n); !status.ok()) return status;
    }
    if (ctx.selected("spread")) {
      uuid_v7::start_fresh_sequence();
      Status status = ctx.measure_repeated("spread", n, [&] {
        for (std::uint64_t i = 0; i < n; ++i) {
          uuid_v7::generate_to(kStartMs + static_cast<std::int64_t>(i), ids.slot(i));
        }
      });
      if (!status.ok()) return status;
      if (status = check_spread(ids, n); !status.ok()) return status;
    }

    const std::string sample = uuid_v7::generate(kStartMs);
    std::string upper = sample;
    for (char& c : upper) {
      if (c >= 'a' && c <= 'f') c = static_cast<char>(c - 'a' + 'A');
    }
    const std::string_view even = sample;
    const std::string_view odd = upper;

    if (ctx.selected("validate")) {
      Status status = ctx.measure_repeated("validate", n, [&]() -> Status {
        std::uint64_t valid = 0;
        for (std::uint64_t i = 0; i < n; ++i) valid += uuid_v7::is_valid(i % 2 == 0 ? even : odd);
        if (valid != n) {
          return Status::error("validate: " + std::to_string(valid) + " of " + std::to_string(n) +
                               " ids were valid, expected all");
        }
        return {};
      });
      if (!status.ok()) return status;
    }
    if (ctx.selected("timestamp")) {
      return ctx.measure_repeated("timestamp", n, [&]() -> Status {
        std::uint64_t right = 0;
        for (std::uint64_t i = 0; i < n; ++i) {
          right += uuid_v7::timestamp_ms(i % 2 == 0 ? even : odd) == kStartMs;
        }
        if (right != n) {
          return Status::error("timestamp: " + std::to_string(n - right) + " of " +
                               std::to_string(n) + " ids gave a timestamp other than " +
                               std::to_string(kStartMs));
        }
        return {};
      });
    }
    return {};
  }
};

}  // namespace

STORH_PLUGIN(uuid, "1.0.0", UuidEngine)
