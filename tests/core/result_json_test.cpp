// The result file format is pinned: a hand-built result must serialise to the golden
// file byte for byte, and read back to the same bytes.
#include <catch2/catch.hpp>

#include "result/json.h"
#include "test_support.h"
#include "util/json_input.h"

namespace {

using namespace storh::result;

ResultFile golden_result_file() {
  ResultFile r;
  Experiment& e = r.experiment;
  e.suite = "golden";
  e.suite_file = "suites/golden.toml";
  e.fingerprint = "0123456789abcdef";
  e.datasets = {1000, 10000};
  e.repeat = 2;
  e.memory_limit_bytes = 536870912;
  e.min_time_seconds = 0.02;
  e.host_version = "0.1.0";
  e.engines = {{"uuid", "1.0.0", "build/plugins/storh_uuid.so", {"monotonic"}}};
  e.engines[0].build =
      PluginBuild{"Release", "-O3 -DNDEBUG", "g++ 12.2.0", true, "0123456789abcdef"};
  e.params = {
      {"uuid",
       {{"mode", {storh::ParamValue(std::string("fast")), storh::ParamValue(std::int64_t{2})}}}}};
  e.work_dir = "/tmp/storh-host-1-00000000";
  e.work_dir_cleanup = "removed";
  e.command_line = {"storh-host", "run", "suites/golden.toml", "--repeat=2"};
  e.hostname = "bench-1";
  e.git_commit = "0123456789abcdef0123456789abcdef01234567";
  Environment& v = r.environment;
  v.os = "Debian GNU/Linux 12 (bookworm)";
  v.kernel = "Linux 6.1";
  v.cpu_model = "CPU";
  v.cpu_count = 2;
  v.memory_bytes = 1024;
  v.work_dir_filesystem = "ext4";
  v.compiler = "g++ 12.2.0";
  v.build_type = "Release";
  v.build_flags = "-O3 -DNDEBUG";
  v.time = "2026-11-30T03:22:07Z";
  v.warnings = {"a warning"};
  Metric m;
  m.key = "uuid.monotonic[n=1000]";
  m.engine = "uuid";
  m.operation = "monotonic";
  m.dataset = 1000;
  m.params = {{"mode", std::string("fast")}};
  m.unit = "ids";
  m.samples = {{0.5e-5, 1000, 4000}, {0.25, 1000}};  // a min_time batch of 4000 calls, one call
  m.seconds = {2, 0.1250025, 0.5e-5, 0.25, 0.1250025, 0.17677316, 0.1249975};
  m.warnings = {"spread too wide to trust: coefficient of variation 141.4% > 10%"};
  m.rate = 8000.0;
  m.latency = Latency{2000, 1e-7, 5e-8, 2e-6, 9e-8, 1.5e-7, 8e-7, std::nullopt};
  r.metrics.push_back(m);
  Failure f;
  f.engine = "uuid";
  f.dataset = 10000;
  f.repeat = 1;
  f.operation = "spread";
  f.kind = Failure::Kind::crashed;
  f.message = "worker killed by signal 11 (Segmentation fault)";
  f.signal = 11;
  f.stderr_tail = "line one\nline \"two\"";
  r.failures.push_back(f);
  r.runs.push_back({"uuid", 1000, {{"mode", std::string("fast")}}, 0, true, 0.01, 1048576, 0.002});
  return r;
}

const std::string kGolden =  // NOLINT(readability-identifier-naming): a constant, if not constexpr
    std::string(STORH_TEST_SOURCE_DIR) + "/tests/fixtures/golden/result-v1.json";

}  // namespace

TEST_CASE("result json: a result serialises to the golden file byte for byte", "[result]") {
  const std::string text = to_json_text(golden_result_file());
  if (std::getenv("STORH_UPDATE_GOLDEN") != nullptr) storh::test::write_text(kGolden, text);
  CHECK(text == storh::test::read_text(kGolden));
}

TEST_CASE("result json: reading and writing again gives the same bytes", "[result]") {
  const std::string text = storh::test::read_text(kGolden);
  auto parsed = from_json(nlohmann::json::parse(text), "golden");
  REQUIRE(parsed.ok());
  CHECK(to_json_text(*parsed) == text);
  CHECK(parsed->metrics.at(0).latency->p999 == std::nullopt);
  CHECK(parsed->failures.at(0).exit_code == std::nullopt);
  CHECK(parsed->metrics.at(0).samples.at(0).calls == 4000);
  CHECK(parsed->metrics.at(0).samples.at(1).calls == 1);
  CHECK(parsed->experiment.min_time_seconds == 0.02);
  CHECK(std::get<std::int64_t>(parsed->experiment.params.at(0).second.at(0).second.at(1)) == 2);
}

TEST_CASE("result json: an engine's plugin build reads back, unknown parts as unknown",
          "[result][build]") {
  nlohmann::json j = nlohmann::json::parse(storh::test::read_text(kGolden));
  auto parsed = from_json(j, "golden");
  REQUIRE(parsed.ok());
  const std::optional<PluginBuild>& build = parsed->experiment.engines.at(0).build;
  REQUIRE(build.has_value());
  CHECK(build->type == "Release");
  CHECK(build->flags == "-O3 -DNDEBUG");
  CHECK(build->compiler == "g++ 12.2.0");
  CHECK(build->optimized == true);
  CHECK(build->file_hash == "0123456789abcdef");

  // An ABI 1.1 plugin whose file could not be hashed: nothing known.
  j["experiment"]["engines"][0]["build"] = nlohmann::json::parse(
      R"({"type": "unknown", "flags": "unknown", "compiler": "unknown", "optimized": null,
          "file_hash": null})");
  auto old = from_json(j, "old.json");
  REQUIRE(old.ok());
  const PluginBuild& none = old->experiment.engines.at(0).build.value();
  CHECK(none.type == "unknown");
  CHECK(none.optimized == std::nullopt);
  CHECK(none.file_hash.empty());
  CHECK(nlohmann::json(to_json(*old))["experiment"]["engines"][0]["build"] ==
        j["experiment"]["engines"][0]["build"]);
}

TEST_CASE("result json: a file from before build records reads with no build", "[result][build]") {
  nlohmann::json j = nlohmann::json::parse(storh::test::read_text(kGolden));
  for (nlohmann::json& engine : j["experiment"]["engines"]) engine.erase("build");
  auto parsed = from_json(j, "old.json");
  REQUIRE(parsed.ok());
  CHECK_FALSE(parsed->experiment.engines.at(0).build.has_value());
  CHECK_FALSE(to_json(*parsed)["experiment"]["engines"][0].contains("build"));

  j["experiment"]["engines"][0]["build"] = {{"type", "Release"}};
  auto incomplete = from_json(j, "x.json");
  REQUIRE_FALSE(incomplete.ok());
  CHECK(storh::test::contains(incomplete.error(), "/experiment/engines/0/build"));
}

TEST_CASE("result json: the storh view holds medians by engine and qualified operation",
          "[result]") {
  const nlohmann::ordered_json j = to_json(golden_result_file());
  CHECK(j["results"]["uuid"]["monotonic[n=1000]"] == 0.1250025);
  CHECK(j["dataset"] == 1000);
  CHECK(j["engine"] == "uuid");
}

TEST_CASE("result json: a wrong type names the JSON path", "[result]") {
  nlohmann::json j = nlohmann::json::parse(storh::test::read_text(kGolden));
  j["metrics"][0]["samples"][1]["items"] = -3;
  auto parsed = from_json(j, "x.json");
  REQUIRE_FALSE(parsed.ok());
  CHECK(parsed.error() ==
        "x.json: /metrics/0/samples/1/items: expected a whole number >= 0, got number");

  j = nlohmann::json::parse(storh::test::read_text(kGolden));
  j["schema_version"] = 2;
  parsed = from_json(j, "x.json");
  REQUIRE_FALSE(parsed.ok());
  CHECK(parsed.error() == "x.json: schema_version 2 is not supported (this host reads 1)");

  j = nlohmann::json::parse(storh::test::read_text(kGolden));
  j["experiment"].erase("fingerprint");
  parsed = from_json(j, "x.json");
  REQUIRE_FALSE(parsed.ok());
  CHECK(parsed.error() == "x.json: /experiment: missing key \"fingerprint\"");
}

TEST_CASE("result json: every failure kind keeps its name, an unknown one is refused", "[result]") {
  const std::vector<std::pair<Failure::Kind, std::string>> names = {
      {Failure::Kind::failed, "failed"},
      {Failure::Kind::crashed, "crashed"},
      {Failure::Kind::timeout, "timeout"},
      {Failure::Kind::memory, "memory"},
      {Failure::Kind::exit, "exit"},
      {Failure::Kind::load, "load"},
      {Failure::Kind::interrupted, "interrupted"},
      {Failure::Kind::skipped, "skipped"},
      {Failure::Kind::counters, "counters"}};
  for (const auto& [kind, name] : names) {
    ResultFile r = golden_result_file();
    r.failures[0].kind = kind;
    const nlohmann::ordered_json j = to_json(r);
    CHECK(j["failures"][0]["kind"] == name);
    const auto parsed = from_json(nlohmann::json::parse(j.dump()), "x.json");
    REQUIRE(parsed.ok());
    CHECK(parsed->failures[0].kind == kind);
  }

  nlohmann::json j = nlohmann::json::parse(storh::test::read_text(kGolden));
  j["failures"][0]["kind"] = "exploded";
  const auto parsed = from_json(j, "x.json");
  REQUIRE_FALSE(parsed.ok());
  CHECK(parsed.error() ==
        "x.json: /failures/0/kind: unknown failure kind \"exploded\" (valid: failed, crashed, "
        "timeout, memory, exit, load, interrupted, skipped, counters)");
}

TEST_CASE("result json: the command line, host name and git commit are recorded", "[result]") {
  const nlohmann::ordered_json j = to_json(golden_result_file());
  CHECK(j["experiment"]["command_line"] ==
        nlohmann::ordered_json::array({"storh-host", "run", "suites/golden.toml", "--repeat=2"}));
  CHECK(j["experiment"]["hostname"] == "bench-1");
  CHECK(j["experiment"]["git_commit"] == "0123456789abcdef0123456789abcdef01234567");

  // Files written before these fields existed still read, with them empty.
  nlohmann::json old = nlohmann::json::parse(storh::test::read_text(kGolden));
  for (const char* key : {"command_line", "hostname", "git_commit"}) old["experiment"].erase(key);
  auto parsed = from_json(old, "old.json");
  REQUIRE(parsed.ok());
  CHECK(parsed->experiment.command_line.empty());
  CHECK(parsed->experiment.hostname.empty());
  CHECK_FALSE(parsed->experiment.git_commit.has_value());
}

TEST_CASE("result json: a file that contradicts itself is refused, naming the JSON path",
          "[result]") {
  // Regression: each of these was read with exit 0, and gate or compare judged it.
  const std::string text = storh::test::read_text(kGolden);

  SECTION("a key twice in one object") {
    std::string twice = text;
    twice.replace(twice.find("\"operation\": \"monotonic\""), 0,
                  "\"operation\": \"other\",\n      ");
    const auto parsed = storh::parse_json_input<nlohmann::json>(twice, "x.json");
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.error() ==
          "x.json: not valid JSON for storh: the key /metrics/0/operation appears twice in one "
          "object");
  }
  nlohmann::json j = nlohmann::json::parse(text);
  SECTION("two metrics with one key") {
    j["metrics"].push_back(j["metrics"][0]);
    const auto parsed = from_json(j, "x.json");
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.error() ==
          "x.json: /metrics/1/key: the metric \"uuid.monotonic[n=1000]\" appears twice (also "
          "/metrics/0): which one to compare is anyone's guess");
  }
  SECTION("a median outside the samples") {
    j["metrics"][0]["seconds"]["median"] = 5.0;
    const auto parsed = from_json(j, "x.json");
    REQUIRE_FALSE(parsed.ok());
    CHECK(storh::test::contains(parsed.error(), "x.json: /metrics/0/seconds: the summary"));
  }
  SECTION("a negative sample time") {
    j["metrics"][0]["samples"][0]["seconds"] = -1.0;
    const auto parsed = from_json(j, "x.json");
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.error() ==
          "x.json: /metrics/0/samples/0/seconds: a sample of -1 s: time is never negative");
  }
  SECTION("a direction that is neither lower nor higher is better") {
    // Regression: any unknown text was read as lower_is_better, so a misspelt
    // "higher_is_beter" turned a rate into a time and every verdict upside down.
    j["metrics"][0]["direction"] = "higher_is_beter";
    const auto parsed = from_json(j, "x.json");
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.error() ==
          "x.json: /metrics/0/direction: expected \"lower_is_better\" or \"higher_is_better\"");
  }
}

TEST_CASE("result json: a failure's message keeps no tab", "[result]") {
  // Regression: libpq's tab-indented DETAIL lines broke the report's tables.
  const Failure failure = make_failure({"pg", 1, {}, 0, "select_only"}, Failure::Kind::failed,
                                       "connect: FATAL:\tpassword authentication failed\n\tDETAIL");
  CHECK(failure.message == "connect: FATAL: password authentication failed\n DETAIL");
}

TEST_CASE("result json: adaptive repeats read back, and files without them stay as they were",
          "[result][repeat]") {
  storh::result::ResultFile file = golden_result_file();
  file.experiment.repeat_until = storh::result::RepeatBounds{5, 30, 0.02};
  file.metrics.at(0).repeats = storh::result::RepeatsTaken{12, std::pair{0.9, 1.1}, true};
  file.metrics.push_back(file.metrics.at(0));
  file.metrics.at(1).key += "[n=2]";
  file.metrics.at(1).repeats = storh::result::RepeatsTaken{30, std::nullopt, false};
  const std::string text = to_json_text(file);
  auto parsed = from_json(nlohmann::json::parse(text), "adaptive.json");
  REQUIRE(parsed.ok());
  CHECK(to_json_text(*parsed) == text);
  REQUIRE(parsed->experiment.repeat_until);
  CHECK(parsed->experiment.repeat_until->max == 30);
  REQUIRE(parsed->metrics.at(0).repeats);
  CHECK(parsed->metrics.at(0).repeats->taken == 12);
  CHECK(parsed->metrics.at(0).repeats->interval == std::pair{0.9, 1.1});
  CHECK_FALSE(parsed->metrics.at(1).repeats->interval);
  // The golden file has neither key: it is a non-adaptive run.
  CHECK_FALSE(storh::test::contains(storh::test::read_text(kGolden), "repeat_until"));
  CHECK_FALSE(storh::test::contains(storh::test::read_text(kGolden), "\"repeats\": {"));
}
