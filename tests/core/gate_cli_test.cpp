// `storh-host compare` and `storh-host gate` through run_cli: exit codes (0 pass,
// 1 regression, 2 bad input or unusable file), which stream says what, and help.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "compare_fixtures.h"

namespace test = storh::test;
using storh::test::contains;
using storh::test::MetricSpec;
using storh::test::RunSpec;

namespace {

const std::vector<MetricSpec> base_specs = {{"doc.put", {1.0, 1.01, 0.99, 1.0}},
                                            {"log.append", {0.5, 0.51, 0.49, 0.5}}};
const std::vector<MetricSpec> same_specs = {{"doc.put", {1.02, 1.0, 0.98, 1.01}},
                                            {"log.append", {0.5, 0.52, 0.5, 0.49}}};
const std::vector<MetricSpec> slower_specs = {{"doc.put", {1.3, 1.31, 1.29, 1.3}},
                                              {"log.append", {0.5, 0.51, 0.49, 0.5}}};
const std::vector<MetricSpec> missing_specs = {{"doc.put", {1.0, 1.01, 0.99, 1.0}}};

struct Files {
  test::ScratchDir dir;
  std::string base = test::write_result(dir, "base.json", base_specs);
  std::string same = test::write_result(dir, "same.json", same_specs);
  std::string slower = test::write_result(dir, "slower.json", slower_specs);
  std::string missing = test::write_result(dir, "missing.json", missing_specs);
};

}  // namespace

TEST_CASE("gate cli: pass is exit 0 with the verdict on stdout", "[gate][cli]") {
  Files f;
  const auto run = test::cli({"gate", f.base, f.same});
  CHECK(run.code == 0);
  // The report's units, not storh's %.6fs.
  CHECK(contains(run.out,
                 "doc.put                              base 1.000 s current 1.005 s +0.50%\n"));
  CHECK(contains(run.out, "Benchmark regression gate passed at threshold +10.00%.\n"));
  CHECK(run.err.empty());
}

TEST_CASE("gate cli: a regression is exit 1 with FAIL marks and the verdict on stderr",
          "[gate][cli]") {
  Files f;
  const auto run = test::cli({"gate", f.base, f.slower, "--threshold=10"});
  CHECK(run.code == 1);
  CHECK(contains(run.out, "+30.00% FAIL\n"));
  CHECK(contains(run.out, "log.append"));  // every metric printed, also after a failure
  CHECK(run.err == "Benchmark regression gate failed at threshold +10.00%.\n");
  // A per-metric threshold lets it pass.
  CHECK(test::cli({"gate", f.base, f.slower, "--threshold=doc.put=35"}).code == 0);
  // So does requiring significance when the medians differ less than the min effect.
  CHECK(test::cli({"gate", f.base, f.slower, "--min-effect=0.5"}).code == 0);
  // 4 v 4 fully separated samples: p = 2/70 < 0.05, still a regression.
  CHECK(test::cli({"gate", f.base, f.slower, "--significant"}).code == 1);
}

TEST_CASE("gate cli: a missing metric fails, or warns with --lenient-missing", "[gate][cli]") {
  Files f;
  auto run = test::cli({"gate", f.base, f.missing});
  CHECK(run.code == 1);
  CHECK(contains(run.out, "log.append                           missing in current\n"));
  run = test::cli({"gate", f.base, f.missing, "--lenient-missing"});
  CHECK(run.code == 0);
  CHECK(contains(run.err, "warning: --lenient-missing: not failing on 1 missing metric"));
  run = test::cli({"gate", f.missing, f.base, "--metric=log.append"});
  CHECK(run.code == 1);
  CHECK(contains(run.out, "log.append                           missing in baseline\n"));
}

TEST_CASE("gate cli: a metric in neither file is a typo: exit 2 with a suggestion", "[gate][cli]") {
  // Regression: `--metric=uuid.montonic` said "missing in baseline" and exit 1.
  Files f;
  const auto run = test::cli({"gate", f.base, f.same, "--metric=log.apend"});
  CHECK(run.code == 2);
  CHECK(run.out.empty());
  CHECK(run.err == "storh-host gate: --metric: unknown metric \"log.apend\": neither " + f.base +
                       " nor " + f.same + " has it; did you mean \"log.append\"?\n");
}

TEST_CASE("gate cli: sub-microsecond times keep their digits", "[gate][cli]") {
  // Regression: "%.6fs" printed `base 0.000000s current 0.000000s +14.03% FAIL`.
  test::ScratchDir dir;
  const std::string base = test::write_result(dir, "b.json", {{"uuid.monotonic", {375e-9}}});
  const std::string next = test::write_result(dir, "n.json", {{"uuid.monotonic", {427.6e-9}}});
  const auto run = test::cli({"gate", base, next});
  CHECK(run.code == 1);
  CHECK(contains(run.out,
                 "uuid.monotonic                       base 375.0 ns current 427.6 ns "
                 "+14.03% FAIL\n"));
}

TEST_CASE("gate cli: unusable files and bad arguments are exit 2", "[gate][cli]") {
  Files f;
  test::write_text(f.dir / "invalid.json", "{\"schema_version\": 1,");
  nlohmann::json future = nlohmann::json::parse(test::read_text(f.base));
  future["schema_version"] = 2;
  test::write_text(f.dir / "future.json", future.dump());
  test::write_text(f.dir / "other.json", R"({"name": "not a result"})");
  const std::string absent = (f.dir / "absent.json").string();

  auto run = test::cli({"gate", f.base, absent});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "absent.json"));
  run = test::cli({"gate", f.base, (f.dir / "invalid.json").string()});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "invalid.json: not valid JSON"));
  run = test::cli({"gate", (f.dir / "future.json").string(), f.base});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "schema_version 2 is not supported (this host reads 1)"));
  run = test::cli({"gate", f.base, (f.dir / "other.json").string()});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "not a result file: no schema_version and no results map"));
  run = test::cli({"gate", f.base, f.same, "--threshold=-5"});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "--threshold: -5 is not a percentage >= 0"));
  CHECK(test::cli({"gate", f.base, f.same, "--threshold=ten"}).code == 2);
  CHECK(test::cli({"gate", f.base}).code == 2);
  CHECK(test::cli({"gate", f.base, f.same, f.slower}).code == 2);
  CHECK(test::cli({"gate", f.base, f.same, "--format=csv"}).code == 2);
  CHECK(test::cli({"gate", f.base, f.same, "--frobnicate"}).code == 2);
}

TEST_CASE("gate cli: differing experiments are warned about on stderr", "[gate][cli]") {
  Files f;
  RunSpec other;
  other.cpu_model = "Other CPU";
  const std::string moved = test::write_result(f.dir, "moved.json", same_specs, other);
  const auto run = test::cli({"gate", f.base, moved});
  CHECK(run.code == 0);
  CHECK(contains(run.err, "warning: different CPU model: "));
}

TEST_CASE("gate cli: the storh PHP reference files gate with storh's metric names", "[gate][cli]") {
  const auto run = test::cli({"gate", test::storh_php_fixture("storh-php82-1k.json"),
                              test::storh_php_fixture("storh-php82-1k-repeat3.json"),
                              "--metric=recovery.recover", "--metric=doc.get"});
  CHECK(run.code == 0);
  CHECK(contains(run.out,
                 "log.recover                          base 2.289 ms current 2.503 ms +9.33%\n"));
}

TEST_CASE("gate cli: md and json formats", "[gate][cli]") {
  Files f;
  auto run = test::cli({"gate", f.base, f.slower, "--format=md"});
  CHECK(run.code == 1);
  CHECK(run.out.starts_with("### storh-host gate\n"));
  run = test::cli({"gate", f.base, f.slower, "--format=json"});
  CHECK(run.code == 1);
  const auto json = nlohmann::json::parse(run.out);
  CHECK(json["passed"] == false);
  CHECK(json["checks"][0]["key"] == "doc.put");
}

TEST_CASE("compare cli: two files, N files, formats, exit codes", "[compare][cli]") {
  Files f;
  auto run = test::cli({"compare", f.base, f.slower});
  CHECK(run.code == 0);  // compare reports; it never fails on a slowdown
  CHECK(contains(run.out, "+30.00%  ±1.00%  slower"));  // outside the 1% noise floor
  run = test::cli({"compare", f.base, f.missing});
  CHECK(run.code == 0);
  CHECK(contains(run.out, "missing"));  // shown, never dropped
  run = test::cli({"compare", f.base, f.same, f.slower, "--format=csv"});
  CHECK(run.code == 0);
  CHECK(contains(run.out, "metric,unit,direction,"));
  CHECK(test::cli({"compare", f.base, f.same, "--format=md"})
            .out.starts_with("### storh-host compare"));
  CHECK(test::cli({"compare", f.base}).code == 2);
  CHECK(test::cli({"compare", f.base, f.same, "--format=pdf"}).code == 2);
  // html (tests/core/compare_html_test.cpp has the page): compare's only, with -o.
  const auto page = f.dir / "compare.html";
  run = test::cli({"compare", f.base, f.slower, "--format=html", "-o", page.string()});
  CHECK(run.code == 0);
  CHECK(run.out == "compare: " + page.string() + "\n");
  CHECK(storh::test::read_text(page).starts_with("<!DOCTYPE html>"));
  run = test::cli(
      {"compare", f.base, f.same, f.slower, "--format=html", "--output=" + page.string()});
  CHECK(run.code == 0);
  CHECK(contains(storh::test::read_text(page), "\"kind\":\"matrix\""));
  run = test::cli({"compare", f.base, f.same, "--format=html", "-o", "/dev/null"});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "storh-host compare: --output: /dev/null"));
  CHECK(test::cli({"gate", f.base, f.same, "--format=html"}).code == 2);
  CHECK(test::cli({"compare", f.base, f.same, "--alpha=2"}).code == 2);
  CHECK(test::cli({"compare", f.base, (f.dir / "absent.json").string()}).code == 2);
}

TEST_CASE("compare and gate cli: help names options and exit codes", "[compare][gate][cli]") {
  CHECK(contains(test::cli({"gate", "--help"}).out, "Exit codes: 0 passed, 1 a metric regressed"));
  CHECK(contains(test::cli({"compare", "--help"}).out, "--format=text|md|csv|json"));
  const auto top = test::cli({"--help"});
  CHECK(contains(top.out, "storh-host compare BASE.json NEW.json"));
  CHECK(contains(top.out, "storh-host gate BASE.json CURRENT.json"));
  CHECK(contains(test::cli({"frobnicate"}).err, "compare, gate"));
}

TEST_CASE("gate cli: --confirm points to ci, which can re-run cells", "[gate][cli]") {
  const auto run = storh::test::cli({"gate", "a.json", "b.json", "--confirm=2"});
  CHECK(run.code == 2);
  CHECK(storh::test::contains(run.err, "storh-host ci [SUITE.toml] --confirm=N"));
}
