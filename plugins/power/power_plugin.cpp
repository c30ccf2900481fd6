// The power plugin: known, adjustable work, for measuring what a gate can detect.
//
// It is not a storage engine. `scripts/power.sh` and docs/compare-gate.md use it to
// inject a slowdown of known size into an A/B run (`--head-set power.slowdown=0.05`)
// and count how often the gate catches it, and how often it cries wolf when nothing
// changed. Its operations:
//   cpu   n items of `work` rounds each of a 64-bit mixing function, times (1 +
//         slowdown): a CPU-bound step whose cost, and instruction count, grow by
//         exactly the injected fraction;
//   sync  n appends of 64 bytes to one file, each followed by fdatasync (plus one
//         more fsync per item when extra_fsync = true): a durable-write step for the
//         fsync counter.
// Both check their answer: cpu against the same mixing done untimed, sync against
// the file's size.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "common/bench/params.h"
#include "storh/plugin.h"

namespace {

namespace bench = storh::engines::bench;
using storh::Status;

constexpr bench::NumberParam kSlowdown{"slowdown", 0.0, 0.0, bench::kUnbounded,
                                       "extra work as a fraction (0.05 = 5%)"};
constexpr bench::IntParam kWork{"work", 200, 1, bench::kNoMaximum, "mixing rounds per cpu item"};
constexpr bench::BoolParam kExtraFsync{"extra_fsync", false, "one more fsync per sync item"};

constexpr std::size_t kRecordBytes = 64;

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

std::uint64_t mix_rounds(std::uint64_t items, std::uint64_t rounds) {
  std::uint64_t state = 0x243f6a8885a308d3ULL;
  for (std::uint64_t i = 0; i < items; ++i) {
    for (std::uint64_t r = 0; r < rounds; ++r) state = mix(state + i);
  }
  return state;
}

Status write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd, data, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      return Status::error(std::string("sync: write: ") + std::strerror(errno));
    }
    data += written;
    size -= static_cast<std::size_t>(written);
  }
  return {};
}

Status run_sync(storh::RunContext& ctx, std::uint64_t n, bool extra_fsync) {
  const std::string file = (ctx.work_dir() / "power.log").string();
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return Status::error("sync: open " + file + ": " + std::strerror(errno));
  char record[kRecordBytes];
  for (std::size_t i = 0; i < kRecordBytes; ++i) record[i] = static_cast<char>('a' + i % 26);
  record[kRecordBytes - 1] = '\n';
  Status status = ctx.measure("sync", n, [&]() -> Status {
    for (std::uint64_t i = 0; i < n; ++i) {
      if (Status s = write_all(fd, record, kRecordBytes); !s.ok()) return s;
      if (::fdatasync(fd) != 0)
        return Status::error(std::string("sync: fdatasync: ") + std::strerror(errno));
      if (extra_fsync && ::fsync(fd) != 0) {
        return Status::error(std::string("sync: fsync: ") + std::strerror(errno));
      }
    }
    return {};
  });
  const off_t size = ::lseek(fd, 0, SEEK_END);
  ::close(fd);
  if (status.ok() && size != static_cast<off_t>(n * kRecordBytes)) {
    return Status::error("sync: the file holds " + std::to_string(size) + " bytes, expected " +
                         std::to_string(n * kRecordBytes));
  }
  return status;
}

class PowerEngine final : public storh::Engine {
 public:
  storh::EngineInfo describe() const noexcept override {
    return {{},  // name and version: STORH_PLUGIN's
            {},
            "known, adjustable work for measuring a gate's power (not a storage engine)",
            {bench::spec(kSlowdown), bench::spec(kWork), bench::spec(kExtraFsync)},
            {{"cpu", "items", storh::Direction::lower_is_better, "n items of mixing rounds"},
             {"sync", "records", storh::Direction::lower_is_better,
              "n appends of 64 bytes, each with fdatasync"}}};
  }

  std::vector<storh::ParamRange> param_ranges() const noexcept override {
    return {bench::range(kSlowdown), bench::range(kWork)};
  }

  Status run(storh::RunContext& ctx) noexcept override {
    return storh::guarded("power", [&] { return run_operations(ctx); });
  }

 private:
  static Status run_operations(storh::RunContext& ctx) {
    const std::uint64_t n = ctx.dataset_size();
    const double slowdown = bench::number_value(ctx, kSlowdown);
    const std::int64_t work = bench::integer_value(ctx, kWork);
    if (!bench::in_range(kSlowdown, slowdown) || !bench::in_range(kWork, work)) {
      return Status::error("power: slowdown must be >= 0 and work >= 1");
    }
    const auto rounds =
        static_cast<std::uint64_t>(std::llround(static_cast<double>(work) * (1 + slowdown)));
    if (ctx.selected("cpu")) {
      const std::uint64_t expected = mix_rounds(n, rounds);
      std::uint64_t got = 0;
      Status status = ctx.measure("cpu", n, [&]() -> Status {
        got = mix_rounds(n, rounds);
        return {};
      });
      if (!status.ok()) return status;
      if (got != expected) return Status::error("cpu: wrong checksum");
    }
    if (ctx.selected("sync")) {
      if (Status status = run_sync(ctx, n, bench::boolean(ctx, kExtraFsync)); !status.ok()) {
        return status;
      }
    }
    return {};
  }
};

}  // namespace

STORH_PLUGIN(power, "1.0.0", PowerEngine)
