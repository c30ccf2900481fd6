#include "plan/shard.h"

#include <limits>

#include <fmt/format.h>

#include "util/text.h"

namespace storh::plan {
namespace {

constexpr std::uint32_t kMaxShards = 10000;

bool whole_number(std::string_view text, std::uint32_t& value) {
  const std::optional<std::uint64_t> number = parse_whole(text);
  if (!number || *number > std::numeric_limits<std::uint32_t>::max()) return false;
  value = static_cast<std::uint32_t>(*number);
  return true;
}

}  // namespace

Expected<ShardSpec> parse_shard(std::string_view text) {
  const std::size_t slash = text.find('/');
  ShardSpec shard;
  if (slash == std::string_view::npos || !whole_number(text.substr(0, slash), shard.index) ||
      !whole_number(text.substr(slash + 1), shard.count)) {
    return Error{fmt::format("--shard: expected K/N such as 2/4, got \"{}\"", text)};
  }
  if (shard.count < 1 || shard.count > kMaxShards || shard.index < 1 || shard.index > shard.count) {
    return Error{fmt::format(
        "--shard: \"{}\": K must be 1 to N and N 1 to {} (shard K of N, counted from 1)", text,
        kMaxShards)};
  }
  return shard;
}

Plan shard_of(const Plan& plan, const ShardSpec& shard) {
  Plan part = plan;
  part.cells.clear();
  for (std::size_t i = 0; i < plan.cells.size(); ++i) {
    if (in_shard(i, shard)) part.cells.push_back(plan.cells[i]);
  }
  return part;
}

}  // namespace storh::plan
