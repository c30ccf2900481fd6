// The formats results go out in (docs/integrations.md), each held to its documented
// shape: Bencher Metric Format (bencher.dev's BMF JSON schema), github-action-benchmark's
// custom tools (its BenchmarkResult: name, unit, value, range?, extra?), and JUnit XML
// from gate and ab (well-formed XML; testsuites > testsuite > testcase > failure |
// skipped, the counts in the suites' attributes).
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "compare_fixtures.h"
#include "publish/dashboard.h"
#include "xml_reader.h"

namespace test = storh::test;
using storh::test::contains;
using storh::test::XmlElement;
using storh::test::XmlReader;

namespace {

using Dashboard = storh::publish::DashboardFormat;

std::string bmf_of(const storh::result::ResultFile& result) {
  return storh::publish::dashboard_json(result, Dashboard::bmf);
}

// BMF as its JSON schema has it: an object of benchmarks, each an object of measures,
// each an object with a number `value` and optional numbers lower_value, upper_value.
void check_bmf_shape(const nlohmann::json& bmf) {
  REQUIRE(bmf.is_object());
  for (const auto& [benchmark, measures] : bmf.items()) {
    INFO(benchmark);
    CHECK(!benchmark.empty());
    REQUIRE(measures.is_object());
    CHECK(!measures.empty());
    for (const auto& [measure, metric] : measures.items()) {
      REQUIRE(metric.is_object());
      REQUIRE(metric.contains("value"));
      for (const auto& [field, number] : metric.items()) {
        CHECK((field == "value" || field == "lower_value" || field == "upper_value"));
        CHECK(number.is_number());
      }
    }
  }
}

// github-action-benchmark's BenchmarkResult[]: name, unit, value required (string,
// string, number), range and extra optional strings, nothing else.
void check_action_shape(const nlohmann::json& benches) {
  REQUIRE(benches.is_array());
  for (const auto& bench : benches) {
    REQUIRE(bench.is_object());
    CHECK(bench.at("name").is_string());
    CHECK(bench.at("unit").is_string());
    CHECK(bench.at("value").is_number());
    for (const auto& [field, value] : bench.items()) {
      const std::set<std::string> known = {"name", "unit", "value", "range", "extra"};
      CHECK(known.count(field) == 1);
      if (field == "range" || field == "extra") CHECK(value.is_string());
    }
  }
}

// The JUnit shape: <testsuites> holding one <testsuite>, whose <testcase>s hold at most
// one <failure> (with message and type) or <skipped>; tests/failures/skipped agree.
const XmlElement& check_junit_shape(const XmlElement& root) {
  CHECK(root.name == "testsuites");
  REQUIRE(root.children.size() == 1);
  const XmlElement& suite = *root.children[0];
  CHECK(suite.name == "testsuite");
  std::size_t failures = 0, skipped = 0;
  for (const auto& testcase : suite.children) {
    CHECK(testcase->name == "testcase");
    CHECK(!testcase->attributes["name"].empty());
    CHECK(!testcase->attributes["classname"].empty());
    REQUIRE(testcase->children.size() <= 1);
    if (testcase->children.empty()) continue;
    const XmlElement& outcome = *testcase->children[0];
    if (outcome.name == "failure") {
      ++failures;
      CHECK(outcome.attributes.count("message") == 1);
      CHECK(outcome.attributes.count("type") == 1);
    } else {
      CHECK(outcome.name == "skipped");
      ++skipped;
    }
  }
  for (const XmlElement* counted : {&root, &suite}) {
    CHECK(counted->attributes.at("tests") == std::to_string(suite.children.size()));
    CHECK(counted->attributes.at("failures") == std::to_string(failures));
    CHECK(counted->attributes.at("skipped") == std::to_string(skipped));
    CHECK(counted->attributes.at("errors") == "0");
  }
  return suite;
}

std::unique_ptr<XmlElement> read_junit(const std::filesystem::path& file) {
  return XmlReader(test::read_text(file)).document();
}

}  // namespace

TEST_CASE("bmf: every metric is a latency per item in nanoseconds", "[export][bmf]") {
  const auto result =
      storh::test::make_result({{"doc.put", {1.0, 2.0, 3.0}}, {"log.append", {0.5, 0.25, 0.75}}});
  const nlohmann::json bmf = nlohmann::json::parse(bmf_of(result));
  check_bmf_shape(bmf);
  // make_result: 1000 items per step, so 2 s a step is 2 ms = 2e6 ns an item.
  CHECK(bmf == nlohmann::json::parse(R"({
    "doc.put": {"latency": {"value": 2e6, "lower_value": 1e6, "upper_value": 3e6}},
    "log.append": {"latency": {"value": 5e5, "lower_value": 2.5e5, "upper_value": 7.5e5}}})"));
}

TEST_CASE("bmf: a load run's cells are throughput, a Google Benchmark's latency", "[export][bmf]") {
  const nlohmann::json load =
      nlohmann::json::parse(bmf_of(test::read_fixture_result("html/load.json")));
  check_bmf_shape(load);
  for (const auto& [benchmark, measures] : load.items()) {
    INFO(benchmark);
    REQUIRE(measures.contains("throughput"));
    CHECK(measures["throughput"]["value"].get<double>() > 0);
  }
  const nlohmann::json gbench =
      nlohmann::json::parse(bmf_of(test::read_fixture_result("gbench/base.json")));
  check_bmf_shape(gbench);
  CHECK(gbench.size() == 14);
  CHECK(gbench["BM_sort/64[cpu_time]"].contains("latency"));
}

TEST_CASE("github-action-benchmark: one direction per file, as one tool reads it",
          "[export][action]") {
  const auto result = storh::test::make_result(
      {{"doc.put", {1.0, 2.0, 3.0}},
       {"doc.score", {10, 20, 30}, storh::result::MetricDirection::higher_is_better, "points"}});
  const nlohmann::json smaller = nlohmann::json::parse(
      storh::publish::dashboard_json(result, Dashboard::github_action_smaller));
  check_action_shape(smaller);
  REQUIRE(smaller.size() == 1);
  CHECK(smaller[0]["name"] == "doc.put");
  CHECK(smaller[0]["unit"] == "ns");
  CHECK(smaller[0]["value"] == 2e6);
  CHECK(smaller[0]["range"] == "± 1e+06");
  CHECK(smaller[0]["extra"] == "runs: 3\nmin .. max: 1e+06 .. 3e+06 ns");
  const nlohmann::json bigger = nlohmann::json::parse(
      storh::publish::dashboard_json(result, Dashboard::github_action_bigger));
  check_action_shape(bigger);
  REQUIRE(bigger.size() == 1);
  CHECK(bigger[0]["name"] == "doc.score");
  CHECK(bigger[0]["unit"] == "points/s");
  CHECK(bigger[0]["value"] == 20);
}

TEST_CASE("github-action-benchmark: report writes both tools' files from a real run",
          "[export][action][cli]") {
  test::ScratchDir dir;
  const std::string out = (dir / "action.json").string();
  const std::size_t load_cells = test::read_fixture_result("html/load.json").metrics.size();
  for (const auto& [fixture, format, size] :
       std::vector<std::tuple<std::string, std::string, std::size_t>>{
           {"gbench/base.json", "github-action-benchmark", 14},
           {"gbench/base.json", "github-action-benchmark-bigger", 0},
           {"html/load.json", "github-action-benchmark", 0},
           {"html/load.json", "github-action-benchmark-bigger", load_cells}}) {
    INFO(fixture << " " << format);
    REQUIRE(
        test::cli({"report", test::fixture_file(fixture), "--format=" + format, "-o", out}).code ==
        0);
    const nlohmann::json benches = test::read_json(out);
    check_action_shape(benches);
    CHECK(benches.size() == size);
  }
}

TEST_CASE("junit: gate writes a test case per metric and a failure per regression",
          "[export][junit][cli]") {
  test::ScratchDir dir;
  const std::string odd = "doc.get[name=<a&\"b'>]";  // every character XML escapes
  const std::string base = test::write_result(dir, "base.json",
                                              {{"doc.put", {1.0, 1.01, 0.99, 1.0}},
                                               {odd, {1.0, 1.01, 0.99, 1.0}},
                                               {"log.append", {0.5, 0.5, 0.5, 0.5}}});
  const std::string next = test::write_result(
      dir, "new.json", {{"doc.put", {1.3, 1.31, 1.29, 1.3}}, {odd, {1.0, 1.01, 0.99, 1.0}}});
  const auto junit = dir / "gate.xml";
  const auto run = test::cli({"gate", base, next, "--junit=" + junit.string(), "--format=json"});
  CHECK(run.code == 1);
  CHECK(contains(run.err, "gate: JUnit report " + junit.string()));
  CHECK_NOTHROW(nlohmann::json::parse(run.out));  // stdout is still the JSON verdict alone

  const auto root = read_junit(junit);
  const XmlElement& suite = check_junit_shape(*root);
  CHECK(root->attributes["name"] == "storh-host gate");
  REQUIRE(suite.children.size() == 3);
  std::map<std::string, const XmlElement*> cases;
  for (const auto& testcase : suite.children) cases[testcase->attributes["name"]] = testcase.get();
  REQUIRE(cases.count(odd) == 1);
  CHECK(cases[odd]->children.empty());
  REQUIRE(cases["doc.put"]->children.size() == 1);
  const XmlElement& failure = *cases["doc.put"]->children[0];
  CHECK(failure.attributes.at("type") == "regression");
  CHECK(failure.attributes.at("message") ==
        "doc.put: 30.00% slower, threshold 10.00%: base 1.000 s, current 1.300 s (+30.00%)");
  REQUIRE(cases["log.append"]->children.size() == 1);
  CHECK(cases["log.append"]->children[0]->attributes.at("message") ==
        "log.append: missing in current");

  // Lenient: the missing metric is skipped, not failed.
  REQUIRE(test::cli({"gate", base, next, "--junit=" + junit.string(), "--lenient-missing"}).code ==
          1);
  const auto lenient = read_junit(junit);
  CHECK(check_junit_shape(*lenient).attributes.at("skipped") == "1");
  // A JUnit file that cannot be written is bad input, before any work.
  const auto bad = test::cli({"gate", base, next, "--junit=" + dir.path().string()});
  CHECK(bad.code == 2);
  CHECK(contains(bad.err, "storh-host gate: --junit: "));
}

TEST_CASE("junit: a passing gate of two real Google Benchmark runs has no failure",
          "[export][junit][cli]") {
  test::ScratchDir dir;
  const auto junit = dir / "gate.xml";
  const std::string base = test::fixture_file("gbench/base.json");
  REQUIRE(test::cli({"gate", base, base, "--junit=" + junit.string()}).code == 0);
  const auto root = read_junit(junit);
  CHECK(check_junit_shape(*root).children.size() == 14);
  CHECK(root->attributes["failures"] == "0");
}

TEST_CASE("junit: an A/B verdict is a test case per paired metric", "[export][junit][cli]") {
  test::ScratchDir dir;
  const auto junit = dir / "ab.xml";
  const auto run =
      test::cli({"gate", test::fixture_file("html/ab.json"), "--junit=" + junit.string()});
  CHECK((run.code == 0 || run.code == 1));
  const auto root = read_junit(junit);
  const XmlElement& suite = check_junit_shape(*root);
  CHECK(root->attributes["name"] == "storh-host ab");
  const nlohmann::json ab = test::read_json(test::fixture_file("html/ab.json"));
  CHECK(suite.children.size() >= 1);
  for (const auto& testcase : suite.children) {
    if (testcase->children.empty() || testcase->children[0]->name != "failure") continue;
    CHECK(contains(testcase->children[0]->attributes.at("message"), "head/base ratio"));
  }
  CHECK(run.code == (root->attributes["failures"] == "0" ? 0 : 1));
}
