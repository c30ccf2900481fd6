// The counting pass's figures in every report format and in compare (golden files
// tests/fixtures/golden/report-counters.* and compare-counters.*; STORH_UPDATE_GOLDEN=1
// rewrites them): nonzero counters per item beside the times, "not counted" for a
// metric whose work ran in child processes, and "-" for one without counters.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "compare/compare.h"
#include "compare/counter_changes.h"
#include "compare/render.h"
#include "compare_fixtures.h"
#include "html_page.h"
#include "report/report.h"
#include "result/json.h"
#include "test_support.h"

using namespace storh;
using storh::test::contains;
using storh::test::matches_golden;

namespace {

constexpr const char* kInChildren =
    "its work ran in child processes, which the counters do not see";

// The golden result with counters on its metric, a metric counted in child processes
// and one whose counting run left nothing.
result::ResultFile counted_result() {
  result::ResultFile result = test::result_fixture("golden/result-v1.json");
  result.experiment.counters = {"syscalls", "instructions"};
  result::Metric& first = result.metrics.at(0);
  first.counters = {{"close", 1},    {"fsync", 0},
                    {"getdents", 3}, {"instructions", 2.5e6},
                    {"stats", 1.05}, {"write_bytes", 145.11}};
  result::Metric children = first;
  children.key = "uuid.spawned[n=1000]";
  children.operation = "spawned";
  children.counters.clear();
  children.not_counted = kInChildren;
  children.warnings.clear();
  result::Metric missing = children;
  missing.key = "uuid.uncounted[n=1000]";
  missing.operation = "uncounted";
  missing.not_counted.clear();
  result.metrics.push_back(children);
  result.metrics.push_back(missing);
  return result;
}

compare::ComparableFile counted_comparable(double fsync, const std::string& name) {
  compare::ComparableFile file =
      test::make_comparable({{"doc.put", {0.100, 0.101, 0.099}},
                             {"queue.claim_concurrent", {0.2, 0.21, 0.19}},
                             {"uuid.validate", {0.01, 0.011, 0.009}}},
                            name);
  file.metrics[0].counters = {{"close", 1}, {"fsync", fsync}, {"getdents", 0}, {"stats", 3}};
  file.metrics[1].not_counted = kInChildren;
  file.metrics[2].counters = {{"instructions", 1000}, {"mmap", 0}};
  return file;
}

}  // namespace

TEST_CASE("report counters: text, Markdown and CSV show counters per item", "[report][counters]") {
  const result::ResultFile result = counted_result();
  CHECK(matches_golden("report-counters.txt",
                       report::render_report(result, report::ReportFormat::text)));
  CHECK(matches_golden("report-counters.md",
                       report::render_report(result, report::ReportFormat::markdown)));
  CHECK(matches_golden("report-counters.csv",
                       report::render_report(result, report::ReportFormat::csv)));
}

TEST_CASE("report counters: a metric counted in child processes says not counted, never 0",
          "[report][counters]") {
  const result::ResultFile result = counted_result();
  const std::string text = report::render_report(result, report::ReportFormat::text);
  CHECK(contains(text, std::string("spawned[n=1000]    not counted (") + kInChildren + ")"));
  CHECK(contains(text, "fsync") == false);  // zero counters are left out
  const std::string html = report::render_report(result, report::ReportFormat::html);
  CHECK(contains(html, "<h3>Counters per item (counting pass)</h3>"));
  CHECK(contains(html, "not counted ("));
  CHECK(contains(html, "stats 1.05,<wbr> write_bytes 145.11,<wbr> close 1,<wbr> getdents 3"));
  // The reason survives the result file.
  const auto reread =
      result::from_json(nlohmann::json::parse(result::to_json_text(result)), "r.json");
  REQUIRE(reread.ok());
  CHECK(reread->metrics.at(1).not_counted == kInChildren);
  CHECK(reread->metrics.at(1).counters.empty());
}

TEST_CASE("report counters: a result without counters has no counters section",
          "[report][counters]") {
  const result::ResultFile result = test::result_fixture("golden/result-v1.json");
  for (const auto format : {report::ReportFormat::text, report::ReportFormat::markdown,
                            report::ReportFormat::csv, report::ReportFormat::html}) {
    const std::string out = report::render_report(result, format);
    CHECK_FALSE(contains(out, "ounters per item"));
    CHECK_FALSE(contains(out, "not_counted"));
  }
}

TEST_CASE("compare counters: base -> new and the change per counter in every format",
          "[compare][counters]") {
  const compare::PairComparison c =
      compare::compare_pair(counted_comparable(1, "base.json"), counted_comparable(2, "new.json"));
  CHECK(matches_golden("compare-counters.txt", render_pair(c, compare::OutputFormat::text)));
  CHECK(matches_golden("compare-counters.md", render_pair(c, compare::OutputFormat::markdown)));
  CHECK(matches_golden("compare-counters.csv", render_pair(c, compare::OutputFormat::csv)));
  CHECK(matches_golden("compare-counters.json", render_pair(c, compare::OutputFormat::json)));
  const std::vector<compare::CounterChange> changes = compare::counter_changes(c);
  REQUIRE(changes.size() == 5);  // fsync, stats, close; not counted; instructions
  CHECK(changes[0].counter == "fsync");
  CHECK(compare::counter_change_text(changes[0]) == "+100.00%");
  CHECK(changes[3].counter == "-");
  CHECK(changes[3].next_not_counted == kInChildren);
  const std::string html = compare::render_pair_html(c, test::kFakeHtmlAssets);
  CHECK(contains(html, "<h2>Counters per item (counting pass)</h2>"));
  CHECK(contains(html, "not counted"));
}
