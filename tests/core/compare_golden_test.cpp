// compare's output is pinned byte for byte in every format (golden files in
// tests/fixtures/golden/compare-*; STORH_UPDATE_GOLDEN=1 rewrites them). The inputs
// cover every kind of row: slower and significant, not significant, too few
// samples, faster, a zero base, a higher_is_better metric, new and missing metrics,
// and files that differ in fingerprint, build type and failures.
#include <catch2/catch.hpp>

#include "compare/compare.h"
#include "compare/render.h"
#include "compare_fixtures.h"

using namespace storh;
using namespace storh::compare;
using storh::test::make_comparable;
using storh::test::matches_golden;

namespace {

ComparableFile golden_base() {
  return make_comparable({{"doc.put", {0.400, 0.401, 0.402, 0.403, 0.404, 0.405, 0.406, 0.407}},
                          {"doc.get", {0.0030, 0.0031, 0.0029, 0.0032, 0.0030}},
                          {"log.append", {0.120, 0.121, 0.119}},
                          {"log.recover", {0.0025, 0.0026, 0.0024}},
                          {"uuid.rate",
                           {1000, 1010, 990, 1005, 995},
                           result::MetricDirection::higher_is_better,
                           "ids"},
                          {"filter.zero", {0, 0, 0, 0}}},
                         "base.json");
}

ComparableFile golden_new() {
  test::RunSpec run;
  run.fingerprint = "fedcba9876543210";
  run.build_type = "Debug";
  run.failures = 1;
  return make_comparable(
      {{"doc.put", {0.480, 0.481, 0.482, 0.483, 0.484, 0.485, 0.486, 0.487}},
       {"doc.get", {0.0031, 0.0029, 0.0030, 0.0030, 0.0031}},
       {"log.append", {0.100, 0.101, 0.099}},
       {"uuid.rate", {800, 810, 790, 805, 795}, result::MetricDirection::higher_is_better, "ids"},
       {"filter.zero", {0.001, 0.001, 0.001, 0.001}},
       {"queue.enqueue", {0.15, 0.16, 0.14}}},
      "new.json", run);
}

MatrixComparison golden_matrix() {
  const ComparableFile v1 =
      make_comparable({{"doc.put", {0.40}},
                       {"doc.get", {0.0030}},
                       {"log.append", {0.12}},
                       {"uuid.rate", {1000}, result::MetricDirection::higher_is_better, "ids"}},
                      "results/v1.json");
  const ComparableFile v2 =
      make_comparable({{"doc.put", {0.44}},
                       {"doc.get", {0.0027}},
                       {"uuid.rate", {1250}, result::MetricDirection::higher_is_better, "ids"}},
                      "results/v2.json");
  test::RunSpec run;
  run.cpu_model = "Other CPU";
  const ComparableFile v3 =
      make_comparable({{"doc.put", {0.36}},
                       {"doc.get", {0.0033}},
                       {"log.append", {0.10}},
                       {"uuid.rate", {800}, result::MetricDirection::higher_is_better, "ids"},
                       {"queue.claim", {0.2}}},
                      "results/v3.json", run);
  return compare_matrix({&v1, &v2, &v3});
}

}  // namespace

TEST_CASE("compare golden: two files in text, md, csv and json", "[compare][golden]") {
  const PairComparison c = compare_pair(golden_base(), golden_new());
  CHECK(matches_golden("compare-pair.txt", render_pair(c, OutputFormat::text)));
  CHECK(matches_golden("compare-pair.md", render_pair(c, OutputFormat::markdown)));
  CHECK(matches_golden("compare-pair.csv", render_pair(c, OutputFormat::csv)));
  CHECK(matches_golden("compare-pair.json", render_pair(c, OutputFormat::json)));
}

TEST_CASE("compare golden: three files as a matrix in text, md, csv and json",
          "[compare][golden]") {
  const MatrixComparison m = golden_matrix();
  CHECK(matches_golden("compare-matrix.txt", render_matrix(m, OutputFormat::text)));
  CHECK(matches_golden("compare-matrix.md", render_matrix(m, OutputFormat::markdown)));
  CHECK(matches_golden("compare-matrix.csv", render_matrix(m, OutputFormat::csv)));
  CHECK(matches_golden("compare-matrix.json", render_matrix(m, OutputFormat::json)));
}

TEST_CASE("compare golden: the storh PHP reference files, single run against repeat",
          "[compare][golden]") {
  const ComparableFile single = test::load_storh_php("storh-php82-1k.json");
  const ComparableFile repeat = test::load_storh_php("storh-php82-1k-repeat3.json");
  const PairComparison c = compare_pair(single, repeat);
  CHECK(c.warnings.empty());
  CHECK(matches_golden("compare-storh-php.txt", render_pair(c, OutputFormat::text)));
}

TEST_CASE("compare golden: a storh-host file against a storh PHP file", "[compare][golden]") {
  const ComparableFile php = test::load_storh_php("storh-php82-1k.json");
  const ComparableFile host = make_comparable(
      {{"doc.put", {0.30, 0.31, 0.29, 0.30}}, {"log.recover", {0.0020, 0.0021, 0.0022, 0.0019}}},
      "host.json");
  const PairComparison c = compare_pair(php, host);
  // log.recover matches PHP's recovery.recover; the 71 PHP metrics host lacks are shown.
  CHECK(c.rows.size() == 73);
  CHECK(matches_golden("compare-storh-php-host.md", render_pair(c, OutputFormat::markdown)));
}

TEST_CASE("compare: output formats by name", "[compare]") {
  CHECK(parse_output_format("md") == OutputFormat::markdown);
  CHECK(parse_output_format("csv") == OutputFormat::csv);
  CHECK_FALSE(parse_output_format("html").has_value());
  CHECK(format_percent(2.6251) == "+2.63%");  // %+0.2f, as the storh harness
  CHECK(format_percent(-9.2) == "-9.20%");
  CHECK(format_ratio(1.5) == "x1.500");
}
