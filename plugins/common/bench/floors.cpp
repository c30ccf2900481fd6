#include "common/bench/floors.h"

#include <fcntl.h>

#include <string>

namespace storh::engines::bench {

Status measure_append_floor(RunContext& ctx, const std::filesystem::path& path, std::uint64_t n,
                            Sync sync, const std::function<std::string_view(std::uint64_t)>& line) {
  std::uintmax_t total = 0;
  for (std::uint64_t i = 0; i < n; ++i) total += line(i).size();
  UniqueFd fd = open_or_throw(path, O_WRONLY | O_CREAT | O_APPEND);
  Status timed = storh::measure(ctx, "append_floor", n, [&] {
    for (std::uint64_t i = 0; i < n; ++i) {
      write_all(fd.get(), line(i), path);
      sync_data(fd.get(), path, sync);
    }
  });
  if (!timed.ok()) return timed;
  const std::uintmax_t size = std::filesystem::file_size(path);
  if (size != total) {
    return Status::error("append_floor: the file holds " + std::to_string(size) +
                         " bytes, expected " + std::to_string(total));
  }
  return {};
}

}  // namespace storh::engines::bench
