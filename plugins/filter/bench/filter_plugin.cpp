// The filter plugin: storh's in-memory predicate benchmark (engine-spec.md section 11.7)
// over RowTable. The only file of the engine that knows about the host.
//
// Setup (untimed): ids[i] = generate(start + i) after a reset, rows[i] = bench_row(i),
// loaded into a RowTable one row at a time (the JSON rows are not kept: at a million
// rows they would take ~0.5 GB). Each timed step counts the rows a predicate matches
// and fails unless the count is exact:
//   record_equal     where_equal("kind", "page")                    ceil(n/2)
//   record_range     time_range_ms(start + 10, start + n - 10)      max(0, n - 19)
//   condition_equal  QueryCondition("status", eq, "published")      n - ceil(n/3)
// storh's harness failed record_range for n < 20, because it treated any zero count as
// an error; here the expected count is exact for every n, so n < 20 checks for 0 rows.
//
// Parameter `evaluation`: "compiled" (default) counts through RowTable's columnar
// kernels; "general" keeps the JSON rows and calls matches_data on each (id, row)
// pair, the way storh's PHP library works. A matrix over both shows what the columnar
// form buys.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/bench/answers.h"
#include "common/bench/bench_row.h"
#include "common/bench/params.h"
#include "common/query/query_condition.h"
#include "common/query/record_query.h"
#include "common/uuid_v7.h"
#include "filter/row_table.h"
#include "storh/plugin.h"

namespace {

namespace engines = storh::engines;
using storh::Status;

constexpr std::int64_t kStartMs = engines::kBenchStartMs;

constexpr std::array<std::string_view, 2> kEvaluations{"compiled", "general"};
constexpr engines::bench::TextParam kEvaluation{
    "evaluation", "compiled", kEvaluations,
    "compiled: columnar RowTable kernels; general: matches_data per JSON row"};

// The rows as (id, data) records: the general path's input, and the RowTable's.
std::vector<engines::Record> make_records(std::uint64_t n) {
  engines::uuid_v7::start_fresh_sequence();
  std::vector<engines::Record> records;
  records.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    records.push_back({engines::uuid_v7::generate(kStartMs + static_cast<std::int64_t>(i)),
                       engines::bench_row(i)});
  }
  return records;
}

engines::RowTable load_rows(std::uint64_t n) {
  engines::uuid_v7::start_fresh_sequence();
  engines::RowTable table;
  char id[engines::uuid_v7::kTextSize];
  for (std::uint64_t i = 0; i < n; ++i) {
    engines::uuid_v7::generate_to(kStartMs + static_cast<std::int64_t>(i), id);
    table.append(std::string_view(id, sizeof id), engines::bench_row(i));
  }
  return table;
}

// One of the two evaluation strategies over the same rows.
class Rows {
 public:
  Rows(std::uint64_t n, bool general) {
    if (general) {
      records_ = make_records(n);
    } else {
      table_ = load_rows(n);
    }
  }
  std::uint64_t size() const { return table_ ? table_->size() : records_.size(); }

  template <typename Predicate>
  std::uint64_t count(const Predicate& predicate) const {
    if (table_) return table_->count(predicate);
    std::uint64_t counted = 0;
    for (const engines::Record& record : records_) {
      counted += predicate.matches_data(record.id, record.data) ? 1 : 0;
    }
    return counted;
  }

 private:
  std::optional<engines::RowTable> table_;
  std::vector<engines::Record> records_;
};

// Times one count over all rows, repeated until a batch lasts min_time (a count reads
// and changes nothing); the check is inside the step but costs nothing.
template <typename Predicate>
Status count_step(storh::RunContext& ctx, std::string_view operation, const Rows& table,
                  const Predicate& predicate, std::uint64_t expected) {
  if (!ctx.selected(operation)) return {};
  return ctx.measure_repeated(operation, table.size(), [&]() -> Status {
    const std::uint64_t counted = table.count(predicate);
    if (counted != expected) {
      return Status::error(std::string(operation) + ": counted " + std::to_string(counted) +
                           " rows, expected " + std::to_string(expected));
    }
    return {};
  });
}

class FilterEngine final : public storh::Engine {
 public:
  storh::EngineInfo describe() const noexcept override {
    storh::EngineInfo info;
    info.description = "in-memory record filtering with RecordQuery and QueryCondition";
    info.params = {engines::bench::spec(kEvaluation)};
    info.operations = {
        {"record_equal", "rows", storh::Direction::lower_is_better,
         "count rows matching RecordQuery where_equal(kind, page)"},
        {"record_range", "rows", storh::Direction::lower_is_better,
         "count rows matching RecordQuery time_range_ms(start+10, start+n-10)"},
        {"condition_equal", "rows", storh::Direction::lower_is_better,
         "count rows matching QueryCondition(status eq published)"},
    };
    return info;
  }

  Status run(storh::RunContext& ctx) noexcept override {
    return storh::guarded("filter", [&] { return run_scenario(ctx); });
  }

 private:
  static Status run_scenario(storh::RunContext& ctx) {
    const std::uint64_t n = ctx.dataset_size();
    ctx.progress("filter: loading " + std::to_string(n) + " rows");
    const Rows table(n, engines::bench::text(ctx, kEvaluation) == "general");

    const auto by_kind = engines::RecordQuery::all().where_equal("kind", "page");
    STORH_TRY(count_step(ctx, "record_equal", table, by_kind, (n + 1) / 2));
    const auto n_ms = static_cast<std::int64_t>(n);  // ids span start .. start + n - 1 ms
    const auto in_range =
        engines::RecordQuery::all().time_range_ms(kStartMs + 10, kStartMs + n_ms - 10);
    STORH_TRY(count_step(ctx, "record_range", table, in_range, n >= 19 ? n - 19 : 0));
    const engines::QueryCondition published("status", engines::QueryOperator::eq, "published");
    return count_step(ctx, "condition_equal", table, published, n - (n + 2) / 3);
  }
};

}  // namespace

STORH_PLUGIN(filter, "1.0.0", FilterEngine)
