#include "common/bench/floors.h"

#include <fcntl.h>

#include <algorithm>

#include <string>

#include "common/store_error.h"

namespace storh::engines::bench {
namespace {

Status expect_file_size(std::string_view op, const std::filesystem::path& path,
                        std::uintmax_t want) {
  const std::uintmax_t size = std::filesystem::file_size(path);
  if (size == want) return {};
  return Status::error(std::string(op) + ": the file holds " + std::to_string(size) +
                       " bytes, expected " + std::to_string(want));
}

}  // namespace

Status measure_append_floor(RunContext& ctx, const std::filesystem::path& path, std::uint64_t n,
                            Sync sync, const std::function<std::string_view(std::uint64_t)>& line) {
  std::uintmax_t total = 0;
  for (std::uint64_t i = 0; i < n; ++i) total += line(i).size();
  UniqueFd fd = open_or_throw(path, O_WRONLY | O_CREAT | O_APPEND);
  Status timed = ctx.measure("append_floor", n, [&] {
    for (std::uint64_t i = 0; i < n; ++i) {
      write_all(fd.get(), line(i), path);
      sync_data(fd.get(), path, sync);
    }
  });
  if (!timed.ok()) return timed;
  return expect_file_size("append_floor", path, total);
}

Status measure_bulk_append_floor(RunContext& ctx, const std::filesystem::path& path,
                                 std::uint64_t items, std::string_view bytes, std::size_t chunk,
                                 Sync sync) {
  return measure_bulk_append_floor(ctx, "bulk_floor", path, items, bytes, chunk, sync, [] {});
}

Status measure_bulk_append_floor(RunContext& ctx, std::string_view operation,
                                 const std::filesystem::path& path, std::uint64_t items,
                                 std::string_view bytes, std::size_t chunk, Sync sync,
                                 const std::function<void()>& build_input) {
  UniqueFd fd = open_or_throw(path, O_WRONLY | O_CREAT | O_APPEND);
  Status timed = ctx.measure(operation, std::max<std::uint64_t>(items, 1), [&] {
    build_input();
    std::string_view rest = bytes;
    while (!rest.empty()) {
      // As the queue cuts its batch: a chunk ends with the line that reaches `chunk`.
      const std::size_t lf = rest.size() > chunk ? rest.find('\n', chunk - 1) : rest.npos;
      const std::size_t size = lf == rest.npos ? rest.size() : lf + 1;
      write_all(fd.get(), rest.substr(0, size), path);
      rest.remove_prefix(size);
    }
    sync_data(fd.get(), path, sync);
  });
  if (!timed.ok()) return timed;
  return expect_file_size(operation, path, bytes.size());
}

}  // namespace storh::engines::bench
