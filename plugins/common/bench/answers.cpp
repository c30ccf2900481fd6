#include "common/bench/answers.h"

#include "common/bench/bench_row.h"

namespace storh::engines::bench {
namespace {

std::int64_t published_at(const Json& data) {
  const auto it = data.find("publishedAt");
  return it != data.end() && it->is_number_integer() ? it->get<std::int64_t>() : -1;
}

const Json& data_of(const Record& record) {
  return record.data;
}

const Json& data_of(const SharedRecord& record) {
  return *record.data;
}

// `row(k)` is the bench_row index record k must be.
template <typename Records, typename Row>
Status expect_each(std::string_view op, const Records& records, std::size_t count, Row row) {
  if (records.size() != count) {
    return Status::error(std::string(op) + ": got " + std::to_string(records.size()) +
                         " records, expected " + std::to_string(count));
  }
  for (std::size_t k = 0; k < count; ++k) {
    const std::int64_t want = kBenchStartMs + static_cast<std::int64_t>(row(k));
    if (const std::int64_t got = published_at(data_of(records[k])); got != want) {
      return Status::error(std::string(op) + ": record " + std::to_string(k) + " has publishedAt " +
                           std::to_string(got) + ", expected " + std::to_string(want));
    }
  }
  return {};
}

}  // namespace

Status expect_rows(std::string_view op, const std::vector<Record>& records,
                   const std::vector<std::int64_t>& rows) {
  return expect_each(op, records, rows.size(), [&](std::size_t k) { return rows[k]; });
}

Status expect_rows(std::string_view op, const std::vector<SharedRecord>& records,
                   const std::vector<std::int64_t>& rows) {
  return expect_each(op, records, rows.size(), [&](std::size_t k) { return rows[k]; });
}

Status expect_row_run(std::string_view op, const std::vector<Record>& records, std::uint64_t first,
                      std::uint64_t count) {
  return expect_each(op, records, static_cast<std::size_t>(count),
                     [&](std::size_t k) { return first + k; });
}

}  // namespace storh::engines::bench
