#include "log/bench/log_floors.h"

#include <fcntl.h>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/bench/answers.h"
#include "common/bench/bench_row.h"
#include "common/bench/floors.h"
#include "common/durable_io.h"
#include "common/uuid_v7.h"
#include "log/manifest.h"
#include "log/segment_io.h"
#include "log/segment_line.h"

namespace storh::log_bench {
namespace {

namespace engines = storh::engines;
namespace fs = std::filesystem;
using engines::log::Manifest;
using engines::log::SegmentEntry;
using engines::log::SparseEntry;

// The put lines of row(0..n-1) with fresh ids, as SegmentedLog writes them, and the ids.
struct PutLines {
  std::vector<std::string> ids;
  std::vector<std::string> lines;
};

PutLines put_lines(std::uint64_t n) {
  PutLines put{std::vector<std::string>(n), std::vector<std::string>(n)};
  for (std::uint64_t i = 0; i < n; ++i) {
    put.ids[i] = engines::uuid_v7::generate();
    engines::log::append_put_line(put.lines[i], put.ids[i], engines::bench_row(i));
  }
  return put;
}

// The bytes one roll writes, built before the clock starts: the sealed segment's
// sparse index and the manifest that then names every sealed segment.
struct RollFiles {
  std::string index;
  std::string manifest;
};

// Lays the lines out in segments as SegmentedLog does (a segment seals once its bytes
// reach max_segment_bytes) and returns the files of each roll.
std::vector<RollFiles> roll_files(const PutLines& put, const engines::log::LogOptions& options) {
  std::vector<RollFiles> rolls;
  Manifest manifest;
  std::vector<SparseEntry> sparse;
  SegmentEntry segment{engines::log::segment_file_name(1), "", "", "", 0, true, false};
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < put.lines.size(); ++i) {
    const std::string& id = put.ids[i];
    if (segment.records % options.sparse_index_interval == 0) sparse.push_back({id, bytes});
    if (segment.min.empty()) segment.min = id;
    segment.max = id;
    ++segment.records;
    bytes += put.lines[i].size();
    if (bytes < options.max_segment_bytes) continue;
    segment.index = engines::log::index_file_name(segment.file);
    manifest.sealed.push_back(segment);
    const std::uint64_t next = manifest.sealed.size() + 1;
    manifest.next_segment = next + 1;
    manifest.active = {engines::log::segment_file_name(next), "", "", "", 0, true, false};
    rolls.push_back({engines::log::encode_sparse_index(sparse), encode_manifest(manifest)});
    segment = manifest.active;
    sparse.clear();
    bytes = 0;
  }
  return rolls;
}

Status run_append_floor(RunContext& ctx, const PutLines& put, engines::Sync sync) {
  return engines::bench::measure_append_floor(
      ctx, ctx.work_dir() / "append-floor.ndjson", put.lines.size(), sync,
      [&](std::uint64_t i) { return std::string_view(put.lines[i]); });
}

Status run_roll_floor(RunContext& ctx, const PutLines& put,
                      const engines::log::LogOptions& options) {
  const std::uint64_t n = put.lines.size();
  const std::vector<RollFiles> rolls = roll_files(put, options);
  const fs::path dir = ctx.work_dir() / "roll-floor";
  const fs::path segments = dir / "segments";
  const fs::path manifest = dir / "manifest.jsonc";
  engines::make_directories(segments);
  const bool durable = options.sync == engines::Sync::durable;
  Status status = ctx.measure("roll_floor", std::max<std::uint64_t>(n, 1), [&] {
    for (std::size_t k = 0; k < rolls.size(); ++k) {
      const fs::path index =
          segments / engines::log::index_file_name(engines::log::segment_file_name(k + 1));
      engines::UniqueFd index_fd = engines::open_or_throw(index, O_WRONLY | O_CREAT | O_TRUNC);
      engines::write_all(index_fd.get(), rolls[k].index, index);
      const engines::UniqueFd next = engines::open_or_throw(
          segments / engines::log::segment_file_name(k + 2), O_WRONLY | O_CREAT);
      const fs::path temp = dir / fmt::format(".manifest.jsonc.{:012x}.tmp", k);
      engines::UniqueFd temp_fd =
          engines::open_or_throw(temp, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC);
      engines::write_all(temp_fd.get(), rolls[k].manifest, temp);
      if (durable) {
        const engines::UniqueFd segments_fd =
            engines::open_or_throw(segments, O_RDONLY | O_DIRECTORY);
        engines::log::sync_together({{index_fd.get(), &index, false},
                                     {temp_fd.get(), &temp, true},
                                     {segments_fd.get(), &segments, true}});
      }
      temp_fd.close_or_throw(temp);
      engines::rename_or_throw(temp, manifest);
      engines::sync_directory(dir, options.sync);
      index_fd.close_or_throw(index);
    }
  });
  if (!status.ok()) return status;
  // Untimed: every roll left its files.
  for (std::size_t k = 0; k < rolls.size(); ++k) {
    if (!fs::exists(segments / engines::log::segment_file_name(k + 2))) {
      return Status::error(fmt::format("roll_floor: segment {} was not created", k + 2));
    }
  }
  return rolls.empty() || engines::read_file_bytes(manifest) == rolls.back().manifest
             ? Status{}
             : Status::error("roll_floor: the manifest does not hold the last roll's text");
}

}  // namespace

Status run_floors(RunContext& ctx, std::uint64_t n, const engines::log::LogOptions& options) {
  const bool append = ctx.selected("append_floor");
  const bool roll = ctx.selected("roll_floor");
  if (!append && !roll) return {};
  const PutLines put = put_lines(n);
  if (append) STORH_TRY(run_append_floor(ctx, put, options.sync));
  if (roll) STORH_TRY(run_roll_floor(ctx, put, options));
  return {};
}

}  // namespace storh::log_bench
