// Command-line overrides applied to a parsed suite.
#include <stdexcept>

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include "suite/parse.h"
#include "suite_test_util.h"

using namespace storh::suite;
using namespace storh::suite::testing;
using storh::ParamValue;

namespace {

constexpr std::string_view kThreeEngines = R"(
datasets = [1000]
memory_limit = "512M"
timeout = "10m"
plugin_path = ["suite/plugins"]
[engines.doc]
operations = ["put"]
[engines.log.params]
segment_size = 16384
[engines.uuid]
)";

// Applies `overrides` to kThreeEngines and requires success.
Suite overridden(const Overrides& overrides) {
  Suite suite = parse_ok(kThreeEngines);
  std::vector<SuiteError> errors;
  const bool ok = apply_overrides(suite, overrides, errors);
  INFO(all_errors(errors));
  REQUIRE(ok);
  REQUIRE(errors.empty());
  return suite;
}

// Applying `overrides` must fail with an error "<flag>: ...<fragment>...".
void overrides_should_fail(const Overrides& overrides, const std::string& flag,
                           const std::string& fragment) {
  Suite suite = parse_ok(kThreeEngines);
  std::vector<SuiteError> errors;
  CHECK_FALSE(apply_overrides(suite, overrides, errors));
  error_should_be_reported(errors, flag, "", fragment);
}

std::vector<std::string> engine_names(const Suite& suite) {
  std::vector<std::string> names;
  for (const EngineSetting& engine : suite.engines) names.push_back(engine.name);
  return names;
}

const ParamSetting& param(const Suite& suite, std::string_view engine, std::string_view name) {
  for (const EngineSetting& e : suite.engines) {
    for (const ParamSetting& p : e.params) {
      if (e.name == engine && p.name == name) return p;
    }
  }
  FAIL("no parameter " << engine << "." << name);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("overrides: none leave the suite as it was", "[suite][overrides]") {
  const Suite suite = overridden({});
  CHECK(engine_names(suite) == std::vector<std::string>{"doc", "log", "uuid"});
  CHECK(suite.datasets.size() == 1);
  CHECK(suite.plugin_path.size() == 1);
  CHECK(suite.memory_limit_bytes == 512ULL << 20);
}

TEST_CASE("overrides: --dataset takes one size or a comma list with k/M suffixes",
          "[suite][overrides]") {
  Overrides overrides;
  overrides.datasets = "100000";
  Suite suite = overridden(overrides);
  REQUIRE(suite.datasets.size() == 1);
  CHECK(suite.datasets[0].value == 100000);
  CHECK(suite.datasets[0].pos.str() == "--dataset");

  overrides.datasets = "1000, 10k,1M";
  suite = overridden(overrides);
  REQUIRE(suite.datasets.size() == 3);
  CHECK(suite.datasets[1].value == 10000);
  CHECK(suite.datasets[2].value == 1000000);
}

TEST_CASE("overrides: bad --dataset values", "[suite][overrides]") {
  Overrides overrides;
  for (const char* bad : {"abc", "0", "-5", "1.5", "1000,", "10x", "99999999999999999999"}) {
    overrides.datasets = bad;
    overrides_should_fail(overrides, "--dataset", "expected record counts >= 1");
  }
  overrides.datasets = "1000,1k";
  overrides_should_fail(overrides, "--dataset", "1000 is given twice in \"1000,1k\"");
}

TEST_CASE("overrides: --engine keeps the named engines in suite order", "[suite][overrides]") {
  Overrides overrides;
  overrides.engines = {"uuid,doc"};
  Suite suite = overridden(overrides);
  CHECK(engine_names(suite) == std::vector<std::string>{"doc", "uuid"});
  CHECK(suite.engines[0].operations.size() == 1);  // configuration kept

  overrides.engines = {"log", "doc"};  // repeatable
  suite = overridden(overrides);
  CHECK(engine_names(suite) == std::vector<std::string>{"doc", "log"});
}

TEST_CASE("overrides: --engine adds an engine the suite does not configure", "[suite][overrides]") {
  Overrides overrides;
  overrides.engines = {"filter,doc,cache"};
  const Suite suite = overridden(overrides);
  CHECK(engine_names(suite) == std::vector<std::string>{"doc", "filter", "cache"});
  CHECK(suite.engines[1].pos.str() == "--engine");
  CHECK(suite.engines[1].operations.empty());
  CHECK(suite.engines[1].params.empty());
}

TEST_CASE("overrides: --engine rejects names that are not engine names", "[suite][overrides]") {
  Overrides overrides;
  overrides.engines = {"Doc"};
  overrides_should_fail(overrides, "--engine",
                        "\"Doc\" is not an engine name (use a-z, 0-9 and _)");
  overrides.engines = {"doc,"};
  overrides_should_fail(overrides, "--engine", "an empty engine name in \"doc,\"");

  Suite suite = parse_ok(kThreeEngines);
  std::vector<SuiteError> errors;
  apply_overrides(suite, overrides, errors);
  CHECK(suite.engines.size() == 3);  // nothing filtered on a bad flag
}

TEST_CASE("overrides: --repeat and --warmup take whole numbers", "[suite][overrides]") {
  Overrides overrides;
  overrides.repeat = "5";
  overrides.warmup = "0";
  const Suite suite = overridden(overrides);
  CHECK(suite.repeat == 5);
  CHECK(suite.warmup == 0);

  Overrides bad;
  bad.repeat = "x";
  overrides_should_fail(bad, "--repeat", "expected a whole number >= 1, got \"x\"");
  bad.repeat = "0";
  overrides_should_fail(bad, "--repeat", "expected a whole number >= 1, got \"0\"");
  bad.repeat = "-1";
  overrides_should_fail(bad, "--repeat", "got \"-1\"");
  bad.repeat = "4294967296";
  overrides_should_fail(bad, "--repeat", "got \"4294967296\"");
  bad.repeat.reset();
  bad.warmup = "1.5";
  overrides_should_fail(bad, "--warmup", "expected a whole number >= 0, got \"1.5\"");
}

TEST_CASE("overrides: --memory-limit and --timeout, with 0 or none for unlimited",
          "[suite][overrides]") {
  Overrides overrides;
  overrides.memory_limit = "1G";
  overrides.timeout = "30s";
  Suite suite = overridden(overrides);
  CHECK(suite.memory_limit_bytes == 1ULL << 30);
  CHECK(suite.timeout_seconds == Approx(30));

  for (const char* unlimited : {"0", "none"}) {
    overrides.memory_limit = unlimited;
    overrides.timeout = unlimited;
    suite = overridden(overrides);
    CHECK_FALSE(suite.memory_limit_bytes.has_value());
    CHECK_FALSE(suite.timeout_seconds.has_value());
  }

  Overrides bad;
  bad.memory_limit = "lots";
  overrides_should_fail(bad, "--memory-limit",
                        "expected a size such as 512M, 2G or 1048576 (0 or none: unlimited), got "
                        "\"lots\"");
  bad.memory_limit.reset();
  bad.timeout = "-1s";
  overrides_should_fail(bad, "--timeout", "(0 or none: unlimited), got \"-1s\"");
}

TEST_CASE("overrides: --output, --work-dir and --plugin-path", "[suite][overrides]") {
  Overrides overrides;
  overrides.output = "out/a.json";
  overrides.work_dir = "/var/tmp/storh";
  overrides.plugin_path = {"first", "second"};
  const Suite suite = overridden(overrides);
  CHECK(suite.output == "out/a.json");
  CHECK(suite.work_dir == "/var/tmp/storh");
  // Prepended in order, so the command line's plugins win.
  REQUIRE(suite.plugin_path.size() == 3);
  CHECK(suite.plugin_path[0].value == "first");
  CHECK(suite.plugin_path[0].pos.str() == "--plugin-path");
  CHECK(suite.plugin_path[1].value == "second");
  CHECK(suite.plugin_path[2].value == "suite/plugins");

  Overrides bad;
  bad.output = "";
  overrides_should_fail(bad, "--output", "expected a path");
  bad.output.reset();
  bad.plugin_path = {""};
  overrides_should_fail(bad, "--plugin-path", "expected a path");
}

TEST_CASE("overrides: --set parses values as TOML scalars", "[suite][overrides]") {
  Overrides overrides;
  overrides.sets = {"log.segment_size=4096", "doc.ratio=1.5",       "doc.fsync=true",
                    "doc.mode=\"fast\"",     "doc.validation=hash", "doc.when=2024-01-01"};
  const Suite suite = overridden(overrides);
  const ParamSetting& segment_size = param(suite, "log", "segment_size");
  CHECK_FALSE(segment_size.is_list);
  REQUIRE(segment_size.values.size() == 1);
  CHECK(segment_size.values[0].value == ParamValue(std::int64_t{4096}));
  CHECK(segment_size.pos.str() == "--set");
  CHECK(param(suite, "doc", "ratio").values[0].value == ParamValue(1.5));
  CHECK(param(suite, "doc", "fsync").values[0].value == ParamValue(true));
  CHECK(param(suite, "doc", "mode").values[0].value == ParamValue(std::string("fast")));
  // Not TOML scalars: kept as the text itself.
  CHECK(param(suite, "doc", "validation").values[0].value == ParamValue(std::string("hash")));
  CHECK(param(suite, "doc", "when").values[0].value == ParamValue(std::string("2024-01-01")));
}

TEST_CASE("overrides: --set with a comma list makes a matrix dimension", "[suite][overrides]") {
  Overrides overrides;
  overrides.sets = {"log.segment_size=1024,4096", "doc.validation=hash, stat", "doc.sep='a,b'"};
  const Suite suite = overridden(overrides);
  const ParamSetting& segment_size = param(suite, "log", "segment_size");
  CHECK(segment_size.is_list);
  REQUIRE(segment_size.values.size() == 2);
  CHECK(segment_size.values[1].value == ParamValue(std::int64_t{4096}));
  CHECK(suite.engines[1].params.size() == 1);  // replaced, not added

  const ParamSetting& validation = param(suite, "doc", "validation");
  REQUIRE(validation.values.size() == 2);
  CHECK(validation.values[1].value == ParamValue(std::string("stat")));
  // A quoted comma does not split.
  const ParamSetting& sep = param(suite, "doc", "sep");
  CHECK_FALSE(sep.is_list);
  CHECK(sep.values.at(0).value == ParamValue(std::string("a,b")));
}

TEST_CASE("overrides: --set applies to engines added by --engine", "[suite][overrides]") {
  Overrides overrides;
  overrides.engines = {"filter"};
  overrides.sets = {"filter.bits=10"};
  const Suite suite = overridden(overrides);
  CHECK(engine_names(suite) == std::vector<std::string>{"filter"});
  CHECK(param(suite, "filter", "bits").values.at(0).value == ParamValue(std::int64_t{10}));

  Overrides dropped;
  dropped.engines = {"doc"};
  dropped.sets = {"log.segment_size=1"};
  overrides_should_fail(dropped, "--set", "engine \"log\" is not in the suite (engines: doc)");
}

TEST_CASE("overrides: bad --set flags", "[suite][overrides]") {
  Overrides overrides;
  for (const char* bad : {"doc", "doc.x", "=1", ".x=1", "doc.=1", "doc=1"}) {
    overrides.sets = {bad};
    overrides_should_fail(overrides, "--set",
                          fmt::format("expected engine.param=value[,value...], got \"{}\"", bad));
  }
  overrides.sets = {"dok.x=1"};
  overrides_should_fail(overrides, "--set",
                        "engine \"dok\" is not in the suite (engines: doc, log, uuid); did you "
                        "mean \"doc\"?");
  overrides.sets = {"doc.x=1,"};
  overrides_should_fail(overrides, "--set", "empty value in \"doc.x=1,\"");
  overrides.sets = {"doc.x=1,2,1"};
  overrides_should_fail(overrides, "--set", "integer 1 appears twice in \"doc.x=1,2,1\"");
}
