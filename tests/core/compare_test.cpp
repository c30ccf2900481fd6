// compare: reading every kind of result file, and what a comparison of two or more
// files says (output formats are pinned in compare_golden_test.cpp).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "compare/compare.h"
#include "compare/differences.h"
#include "compare_fixtures.h"
#include "gate/gate.h"

using namespace storh;
using namespace storh::compare;
using storh::test::make_comparable;
using storh::test::MetricSpec;

namespace {

Expected<ComparableFile> from_text(const std::string& text) {
  return comparable_from_json(nlohmann::ordered_json::parse(text), "x.json");
}

}  // namespace

TEST_CASE("comparable: a storh-host result keeps every sample, unit and direction", "[compare]") {
  test::ScratchDir dir;
  const std::string path = test::write_result(
      dir, "r.json",
      {{"doc.put", {0.3, 0.1, 0.2}},
       {"uuid.score", {5, 7}, result::MetricDirection::higher_is_better, "ids"}});
  auto file = read_comparable(path);
  REQUIRE(file.ok());
  CHECK(file->kind == FileKind::storh_host_v1);
  CHECK(file->name == path);
  REQUIRE(file->metrics.size() == 2);
  const ComparableMetric* put = file->find("doc.put");
  REQUIRE(put != nullptr);
  CHECK(put->samples == std::vector<double>{0.3, 0.1, 0.2});
  CHECK(put->median == 0.2);
  CHECK(put->runs == 3);
  CHECK(put->unit == "records");
  CHECK(file->find("uuid.score")->direction == result::MetricDirection::higher_is_better);
}

TEST_CASE("comparable: a storh PHP bench.php file has one sample per metric", "[compare]") {
  const ComparableFile file = test::load_storh_php("storh-php82-1k.json");
  CHECK(file.kind == FileKind::storh_php_bench);
  CHECK(file.metrics.size() == 73);  // doc 30, log 20, queue 7, recovery 1, cache 2, uuid 4,
                                     // filter 3, mirror 6
  CHECK(file.metrics.front().key == "doc.put");  // file order, not sorted
  const ComparableMetric* put = file.find("doc.put");
  REQUIRE(put != nullptr);
  CHECK(put->median == 0.411297944);
  CHECK(put->samples == std::vector<double>{0.411297944});
  CHECK(put->runs == 1);
  CHECK(put->direction == result::MetricDirection::lower_is_better);
  CHECK(file.find("doc.id_count")->median == 5.939e-6);  // exponent form reads back
}

TEST_CASE("comparable: storh PHP recovery.recover reads as log.recover", "[compare]") {
  const ComparableFile file = test::load_storh_php("storh-php82-10k.json");
  CHECK(file.find("recovery.recover") == nullptr);
  REQUIRE(file.find("log.recover") != nullptr);
  CHECK(map_storh_php_key("recovery.recover") == "log.recover");
  CHECK(map_storh_php_key("doc.put") == "doc.put");
}

TEST_CASE("comparable: a repeat.php file keeps median, min, max and runs, not samples",
          "[compare]") {
  const ComparableFile file = test::load_storh_php("storh-php82-1k-repeat3.json");
  CHECK(file.kind == FileKind::storh_php_repeat);
  CHECK(file.metrics.size() == 73);
  const ComparableMetric* put = file.find("doc.put");
  REQUIRE(put != nullptr);
  CHECK(put->median == 0.627073767);
  CHECK(put->min == 0.626641757);
  CHECK(put->max == 0.668027111);
  CHECK(put->runs == 3);
  CHECK(put->samples.empty());
}

TEST_CASE("comparable: PHP `results: []` is a valid empty result", "[compare]") {
  auto file = from_text(R"({"dataset": 1000, "engine": "doc", "results": []})");
  REQUIRE(file.ok());
  CHECK(file->metrics.empty());
  CHECK(file->kind == FileKind::storh_php_bench);
}

TEST_CASE("comparable: non-numeric PHP values are ignored, as the PHP gate does", "[compare]") {
  auto file = from_text(R"({"results": {"doc": {"put": 0.5, "note": "x", "flag": true},
                                        "log": [], "odd": 3}})");
  REQUIRE(file.ok());
  REQUIRE(file->metrics.size() == 1);
  CHECK(file->metrics[0].key == "doc.put");
}

TEST_CASE("comparable: anything else is refused, naming the file", "[compare]") {
  auto file = from_text(R"({"dataset": 1000})");
  REQUIRE_FALSE(file.ok());
  CHECK(file.error() ==
        "x.json: not a result file: no schema_version and no results map (storh), and no context "
        "and benchmarks (Google Benchmark)");

  file = from_text("[1, 2]");
  REQUIRE_FALSE(file.ok());
  CHECK(file.error() == "x.json: not a result file: expected a JSON object, got array");

  file = from_text(R"({"results": 3})");
  REQUIRE_FALSE(file.ok());
  CHECK(file.error() ==
        "x.json: /results: expected an object of engines (or [] when empty), got number");

  file = from_text(R"({"schema_version": 2, "results": {}})");
  REQUIRE_FALSE(file.ok());
  CHECK(file.error() == "x.json: schema_version 2 is not supported (this host reads 1)");

  test::ScratchDir dir;
  test::write_text(dir / "bad.json", "{\"results\": ");
  auto bad = read_comparable(dir / "bad.json");
  REQUIRE_FALSE(bad.ok());
  CHECK(test::contains(bad.error(), "bad.json: not valid JSON"));
  auto absent = read_comparable(dir / "absent.json");
  REQUIRE_FALSE(absent.ok());
  CHECK(test::contains(absent.error(), "absent.json"));
}

TEST_CASE("compare: delta, direction-aware verdicts, new and missing metrics", "[compare]") {
  // Two equal runs a side: a measured spread of 0, so the 1% floor is the noise band.
  const ComparableFile base =
      make_comparable({{"doc.put", {1.0, 1.0}},
                       {"doc.get", {2.0, 2.0}},
                       {"doc.zero", {0.0, 0.0}},
                       {"log.gone", {1.0, 1.0}},
                       {"uuid.rate", {100, 100}, result::MetricDirection::higher_is_better}},
                      "base.json");
  const ComparableFile next =
      make_comparable({{"doc.put", {1.25, 1.25}},
                       {"doc.get", {1.0, 1.0}},
                       {"doc.zero", {0.5, 0.5}},
                       {"uuid.rate", {50, 50}, result::MetricDirection::higher_is_better},
                       {"queue.added", {1.0, 1.0}}},
                      "new.json");
  const PairComparison c = compare_pair(base, next);
  REQUIRE(c.rows.size() == 6);
  CHECK(c.rows[0].key == "doc.put");
  CHECK(c.rows[0].delta_percent == Approx(25));
  CHECK(c.rows[0].verdict == Verdict::slower);
  CHECK(c.rows[1].verdict == Verdict::faster);
  CHECK(c.rows[2].delta_percent == 0);  // the storh rule for a zero base
  CHECK(c.rows[3].key == "log.gone");
  CHECK(c.rows[3].status == RowStatus::only_base);
  CHECK(c.rows[3].verdict == Verdict::missing);
  CHECK(c.rows[4].delta_percent == Approx(-50));
  CHECK(c.rows[4].verdict == Verdict::slower);  // a rate that halves is slower
  CHECK(c.rows[5].key == "queue.added");
  CHECK(c.rows[5].status == RowStatus::only_new);
  CHECK(verdict_name(c.rows[5].verdict) == "new");
  // Geomean of 1.25, 0.5 and 2 (the rate, normalised); doc.zero cannot enter.
  REQUIRE(c.geomean.ratio.has_value());
  CHECK(*c.geomean.ratio == Approx(std::cbrt(1.25)));
  CHECK(c.geomean.metrics == 3);
  CHECK(c.geomean.skipped == 1);
}

TEST_CASE("compare: a change inside the measured noise reads same, with its numbers kept",
          "[compare]") {
  // Base spread: cv of {0.9, 1.0, 1.0, 1.1} = 8.16%; new's is smaller, so base's decides.
  const ComparableFile base = make_comparable(
      {{"doc.put", {0.9, 1.0, 1.0, 1.1}}, {"doc.get", {0.9, 1.0, 1.0, 1.1}}}, "base.json");
  const ComparableFile next = make_comparable(
      {{"doc.put", {1.05, 1.05, 1.06, 1.04}}, {"doc.get", {1.20, 1.20, 1.21, 1.19}}}, "new.json");
  const PairComparison c = compare_pair(base, next);
  REQUIRE(c.rows[0].noise_percent.has_value());
  CHECK(*c.rows[0].noise_percent == Approx(8.165).epsilon(1e-3));
  CHECK(c.rows[0].delta_percent == Approx(5));  // shown, but inside the noise
  CHECK(c.rows[0].verdict == Verdict::same);
  CHECK(c.rows[1].delta_percent == Approx(20));
  CHECK(c.rows[1].verdict == Verdict::slower);
}

TEST_CASE("compare: the noise band is never below 1%", "[compare]") {
  const ComparableFile base =
      make_comparable({{"doc.put", {1.0, 1.0, 1.0}}, {"doc.get", {1.0, 1.0, 1.0}}}, "base.json");
  const ComparableFile next = make_comparable(
      {{"doc.put", {1.005, 1.005, 1.005}}, {"doc.get", {0.98, 0.98, 0.98}}}, "new.json");
  const PairComparison c = compare_pair(base, next);
  CHECK(*c.rows[0].noise_percent == kNoiseFloorPercent);
  CHECK(c.rows[0].verdict == Verdict::same);
  CHECK(c.rows[1].verdict == Verdict::faster);
}

TEST_CASE("compare: with too few samples to measure noise the verdict is same", "[compare]") {
  // Regression: `+0.03% slower` with 1 vs 2 samples; and one run against one run cannot
  // tell a 50% change from noise.
  const ComparableFile base =
      make_comparable({{"doc.put", {1.0}}, {"doc.get", {1.0}}}, "base.json");
  const ComparableFile next =
      make_comparable({{"doc.put", {1.0003, 1.0003}}, {"doc.get", {1.5}}}, "new.json");
  const PairComparison c = compare_pair(base, next);
  CHECK(c.rows[0].verdict == Verdict::same);
  CHECK(*c.rows[0].noise_percent == kNoiseFloorPercent);  // new's spread is known: 0
  CHECK(c.rows[1].verdict == Verdict::same);
  CHECK_FALSE(c.rows[1].noise_percent.has_value());
  CHECK(c.rows[1].delta_percent == Approx(50));
}

TEST_CASE("compare: a summary-only side spreads by half its range", "[compare]") {
  const ComparableFile summary = test::load_storh_php("storh-php82-1k-repeat3.json");
  const ComparableMetric* put = summary.find("doc.put");
  REQUIRE(put != nullptr);
  // (0.668027111 - 0.626641757) / 2 / 0.627073767
  CHECK(*spread_percent(*put) == Approx(3.2999).epsilon(1e-3));
  const ComparableFile single = test::load_storh_php("storh-php82-1k.json");
  CHECK_FALSE(spread_percent(*single.find("doc.put")).has_value());
}

TEST_CASE("compare: significance needs enough samples on both sides", "[compare]") {
  const ComparableFile base = make_comparable(
      {{"doc.put", {1.0, 1.1, 1.2, 1.3}}, {"doc.get", {1.0, 1.1, 1.2}}}, "base.json");
  const ComparableFile next = make_comparable(
      {{"doc.put", {2.0, 2.1, 2.2, 2.3}}, {"doc.get", {2.0, 2.1, 2.2}}}, "new.json");
  const PairComparison c = compare_pair(base, next);
  REQUIRE(c.rows[0].significance.has_value());
  CHECK(c.rows[0].significance->text == "p=0.029 significant");
  CHECK(c.rows[0].significance->significant);
  CHECK(c.rows[1].significance->text == "too few samples (need >= 4 per side)");
  CHECK_FALSE(c.rows[1].significance->test.has_value());

  const ComparableFile summary_only = test::load_storh_php("storh-php82-1k-repeat3.json");
  const PairComparison php = compare_pair(summary_only, summary_only);
  CHECK(php.rows[0].significance->text == "no samples in file (summary only)");
}

TEST_CASE("compare: warnings name every fact that differs between the files", "[compare]") {
  const ComparableFile base = make_comparable({{"doc.put", {1.0}}}, "base.json");
  test::RunSpec other;
  other.fingerprint = "fedcba9876543210";
  other.build_type = "Debug";
  other.doc_version = "1.1.0";
  other.failures = 1;
  const ComparableFile next = make_comparable({{"doc.put", {1.0}}}, "new.json", other);
  const std::vector<std::string> warnings = difference_warnings({&base, &next});
  CHECK(warnings == std::vector<std::string>{
                        "new.json: 1 worker run failed: its metrics may be missing",
                        "different experiment fingerprint: base.json has 0123456789abcdef, "
                        "new.json has fedcba9876543210",
                        "different plugin version of doc: base.json has 1.0.0, new.json has 1.1.0",
                        "different build type: base.json has Release, new.json has Debug"});
  CHECK(difference_warnings({&base, &base}).empty());

  // Between harnesses only the facts both record are compared: the CPU is not.
  const ComparableFile php = test::load_storh_php("storh-php82-10k.json");
  CHECK(difference_warnings({&base, &php}) ==
        std::vector<std::string>{
            "different harness: base.json has storh-host, storh-php82-10k.json has storh PHP",
            "different datasets: base.json has 1000, storh-php82-10k.json has 10000"});
}

namespace {

// A result whose doc plugin has this build record.
ComparableFile with_doc_build(const std::string& name, const result::PluginBuild& build,
                              const std::vector<std::string>& recorded_warnings = {}) {
  result::ResultFile r = test::make_result({{"doc.put", {1.0}}});
  r.experiment.engines.at(0).build = build;
  r.environment.warnings = recorded_warnings;
  return comparable_from_result(r, name);
}

const result::PluginBuild release_plugin_build{"Release", "-O3 -DNDEBUG", "g++ 12.2.0", true,
                                               "0123456789abcdef"};

}  // namespace

TEST_CASE("compare: two files of different plugin files or builds warn, naming the engine",
          "[compare][build]") {
  const ComparableFile base = with_doc_build("base.json", release_plugin_build);
  result::PluginBuild rebuilt = release_plugin_build;
  rebuilt.file_hash = "fedcba9876543210";
  const ComparableFile other_file = with_doc_build("new.json", rebuilt);
  CHECK(difference_warnings({&base, &other_file}) ==
        std::vector<std::string>{"different plugin file hash of doc: base.json has "
                                 "0123456789abcdef, new.json has fedcba9876543210"});
  CHECK(difference_warnings({&base, &base}).empty());

  // The README's recipe before storh_add_plugin defaulted to an optimised build.
  result::PluginBuild unoptimized = rebuilt;
  unoptimized.type = "none";
  unoptimized.flags = "";
  unoptimized.optimized = false;
  const std::string warning =
      "plugin \"doc\" is a debug build: its timings are not representative (not optimized; file "
      "plugins/storh_doc.so); rebuild it with -DCMAKE_BUILD_TYPE=Release";
  // The run recorded the same warning: it is said once.
  const ComparableFile slow = with_doc_build("slow.json", unoptimized, {warning, "other"});
  CHECK(difference_warnings({&base, &slow}) ==
        std::vector<std::string>{
            "slow.json: " + warning, "slow.json: recorded warning: other",
            "different plugin build of doc: base.json has Release (optimized), slow.json has "
            "none (NOT optimized)",
            "different plugin file hash of doc: base.json has 0123456789abcdef, slow.json has "
            "fedcba9876543210"});
  // gate says the same.
  Expected<gate::GateOutcome> gated = gate::run_gate(base, slow, {});
  REQUIRE(gated.ok());
  CHECK(gated->warnings == difference_warnings({&base, &slow}));
  // Both unoptimised: no difference, still the warning for each file.
  CHECK(difference_warnings({&slow, &slow}).size() == 4);

  // A file from before build records is not compared on them.
  const ComparableFile old = make_comparable({{"doc.put", {1.0}}}, "old.json");
  CHECK(difference_warnings({&base, &old}).empty());
}

TEST_CASE("compare: a matrix has every metric of every file and ratios to the first", "[compare]") {
  const ComparableFile v1 = make_comparable({{"doc.put", {1.0}}, {"doc.get", {0.0}}}, "v1.json");
  const ComparableFile v2 = make_comparable({{"doc.put", {2.0}}, {"doc.get", {1.0}}}, "v2.json");
  const ComparableFile v3 = make_comparable({{"log.append", {3.0}}, {"doc.put", {0.5}}}, "v3.json");
  const MatrixComparison m = compare_matrix({&v1, &v2, &v3});
  REQUIRE(m.rows.size() == 3);
  CHECK(m.rows[0].key == "doc.put");
  CHECK_FALSE(m.rows[0].cells[0].ratio.has_value());
  CHECK(*m.rows[0].cells[1].ratio == 2.0);
  CHECK(*m.rows[0].cells[2].ratio == 0.5);
  CHECK(m.rows[1].cells[1].median == 1.0);
  CHECK_FALSE(m.rows[1].cells[1].ratio.has_value());  // the first is 0
  CHECK(m.rows[2].key == "log.append");
  CHECK_FALSE(m.rows[2].cells[0].median.has_value());
  CHECK(*m.rows[2].cells[2].median == 3.0);
  CHECK(*m.geomeans[1].ratio == Approx(2.0));
  CHECK(m.geomeans[1].skipped == 1);
  CHECK(*m.geomeans[2].ratio == Approx(0.5));
}
