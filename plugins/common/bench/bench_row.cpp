#include "common/bench/bench_row.h"

#include <string>
#include <utility>

namespace storh::engines {

Json bench_row(std::uint64_t i) {
  // Members appended in order into a vector sized once: row["key"] = ... would search
  // the keys each time and grow the vector three times, which was half of a row's cost
  // (and a row is built inside the timed step of every bulk workload).
  Json row = Json::object();
  auto& members = row.get_ref<Json::object_t&>();
  members.reserve(5);
  members.emplace_back("kind", i % 2 == 0 ? "page" : "post");
  members.emplace_back("status", i % 3 == 0 ? "draft" : "published");
  members.emplace_back("bucket", static_cast<std::int64_t>(i % 10));
  members.emplace_back("slug", "item-" + std::to_string(i));
  members.emplace_back("publishedAt", kBenchStartMs + static_cast<std::int64_t>(i));
  return row;
}

Schema bench_schema() {
  return Schema::collection("docs")
      .string("kind")
      .index()
      .string("slug")
      .unique()
      .integer("publishedAt")
      .range();
}

}  // namespace storh::engines
