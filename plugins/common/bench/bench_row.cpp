#include "common/bench/bench_row.h"

#include <string>

namespace storh::engines {

Json bench_row(std::uint64_t i) {
  Json row = Json::object();
  row["kind"] = i % 2 == 0 ? "page" : "post";
  row["status"] = i % 3 == 0 ? "draft" : "published";
  row["bucket"] = static_cast<std::int64_t>(i % 10);
  row["slug"] = "item-" + std::to_string(i);
  row["publishedAt"] = kBenchStartMs + static_cast<std::int64_t>(i);
  return row;
}

}  // namespace storh::engines
