// Checking a suite against the engines' own descriptions (fake EngineInfo here).
#include <map>

#include <catch2/catch.hpp>

#include "suite/parse.h"
#include "suite_test_util.h"

using namespace storh::suite;
using namespace storh::suite::testing;
using storh::EngineInfo;
using storh::OperationSpec;
using storh::ParamSpec;
using storh::ParamType;
using storh::ParamValue;

namespace {

OperationSpec operation(std::string name) {
  OperationSpec spec;
  spec.name = std::move(name);
  spec.unit = "records";
  return spec;
}

ParamSpec param_spec(std::string name, ParamType type, ParamValue default_value,
                     std::vector<ParamValue> allowed = {}) {
  ParamSpec spec;
  spec.name = std::move(name);
  spec.type = type;
  spec.default_value = std::move(default_value);
  spec.allowed = std::move(allowed);
  return spec;
}

std::map<std::string, EngineInfo> loaded_engines() {
  EngineInfo doc;
  doc.name = "doc";
  doc.operations = {operation("put"), operation("get"), operation("stream")};
  doc.params = {
      param_spec("validation", ParamType::string, std::string("hash"),
                 {std::string("hash"), std::string("stat"), std::string("trust")}),
      param_spec("segment_size", ParamType::integer, std::int64_t{16384}),
      param_spec("ratio", ParamType::number, 0.5, {0.5, 1.0}),
      param_spec("fsync", ParamType::boolean, false),
  };
  EngineInfo uuid;
  uuid.name = "uuid";
  uuid.operations = {operation("generate")};
  // "filter" is on the plugin path but could not be loaded: no info.
  return {{"doc", doc}, {"uuid", uuid}};
}

// On the plugin path, unsorted as a directory listing may be.
std::vector<std::string> known_engines() {
  return {"uuid", "filter", "doc"};
}

// Checking the suite `text` must fail with an error at `line_col` containing `fragment`.
void check_should_fail(std::string_view text, const std::string& line_col,
                       const std::string& fragment) {
  const Suite suite = parse_ok(text);
  std::vector<SuiteError> errors;
  CHECK_FALSE(check_suite(suite, known_engines(), loaded_engines(), errors));
  INFO("suite:\n" << without_leading_newline(text));
  error_should_be_reported(errors, kOrigin, line_col, fragment);
}

}  // namespace

TEST_CASE("check: a suite that matches the engines passes", "[suite][check]") {
  const Suite suite = parse_ok(R"(
[engines.doc]
operations = ["put", "get"]
[engines.doc.params]
validation = ["hash", "stat"]
segment_size = 4096
ratio = 1
fsync = true
[engines.uuid]
[engines.filter]
operations = ["not_checked"]
[gate]
metrics = ["doc.put", "uuid.generate", "filter.anything"]
)");
  std::vector<SuiteError> errors;
  CHECK(check_suite(suite, known_engines(), loaded_engines(), errors));
  INFO(all_errors(errors));
  CHECK(errors.empty());
}

TEST_CASE("check: unknown engine names the known ones and the closest", "[suite][check]") {
  const Suite suite = parse_ok("[engines.dok]\n");
  std::vector<SuiteError> errors;
  CHECK_FALSE(check_suite(suite, known_engines(), loaded_engines(), errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].str() ==
        "suites/x.toml:1:10: unknown engine \"dok\" (known: doc, filter, uuid); did you mean "
        "\"doc\"?");

  errors.clear();
  CHECK_FALSE(check_suite(suite, {}, {}, errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message == "unknown engine \"dok\" (no engines found on the plugin path)");
}

TEST_CASE("check: unknown operation lists the engine's operations", "[suite][check]") {
  check_should_fail("[engines.doc]\noperations = [\"put\", \"gett\"]\n", "2:22",
                    "unknown operation \"gett\" for engine \"doc\" (operations: put, get, "
                    "stream); did you mean \"get\"?");
}

TEST_CASE("check: unknown parameter lists the engine's parameters", "[suite][check]") {
  check_should_fail("[engines.doc.params]\nvalidaton = \"hash\"\n", "2:1",
                    "unknown parameter \"validaton\" for engine \"doc\" (parameters: validation, "
                    "segment_size, ratio, fsync); did you mean \"validation\"?");
  check_should_fail("[engines.uuid.params]\nn = 1\n", "2:1",
                    "unknown parameter \"n\" for engine \"uuid\" (it has no parameters)");
}

TEST_CASE("check: a value of the wrong type says the declared type", "[suite][check]") {
  check_should_fail("[engines.doc.params]\nsegment_size = \"big\"\n", "2:16",
                    "parameter \"doc.segment_size\" must be an integer, got string \"big\"");
  check_should_fail("[engines.doc.params]\nsegment_size = 1.5\n", "2:16",
                    "must be an integer, got float 1.5");
  check_should_fail("[engines.doc.params]\nfsync = 1\n", "2:9",
                    "parameter \"doc.fsync\" must be a boolean (true or false), got integer 1");
  check_should_fail("[engines.doc.params]\nratio = \"x\"\n", "2:9",
                    "parameter \"doc.ratio\" must be a number, got string \"x\"");
  check_should_fail("[engines.doc.params]\nvalidation = [\"hash\", 2]\n", "2:23",
                    "parameter \"doc.validation\" must be a string, got integer 2");
  // A table of settings is a string: only a string parameter takes it.
  check_should_fail("[engines.doc.params]\nsegment_size = { a = 1 }\n", "2:16",
                    "parameter \"doc.segment_size\" must be an integer, got string \"a=1\"");
}

TEST_CASE("check: a disallowed value lists the allowed ones", "[suite][check]") {
  check_should_fail("[engines.doc.params]\nvalidation = [\"hash\", \"md5\"]\n", "2:23",
                    "value \"md5\" is not allowed for parameter \"doc.validation\" (allowed: "
                    "hash, stat, trust)");
  check_should_fail("[engines.doc.params]\nvalidation = \"hsh\"\n", "2:14",
                    "(allowed: hash, stat, trust); did you mean \"hash\"?");
  check_should_fail("[engines.doc.params]\nratio = 2\n", "2:9",
                    "value 2 is not allowed for parameter \"doc.ratio\" (allowed: 0.5, 1.0)");
}

TEST_CASE("check: gate metrics must name a measured operation of a suite engine",
          "[suite][check]") {
  check_should_fail(
      "[engines.doc]\n[gate]\nmetrics = [\"log.append\"]\n", "3:12",
      "gate metric \"log.append\": engine \"log\" is not in the suite (engines: doc)");
  check_should_fail("[engines.doc]\n[gate]\nmetrics = [\"doc.gett\"]\n", "3:12",
                    "gate metric \"doc.gett\": unknown operation \"gett\" (operations: put, get, "
                    "stream); did you mean \"get\"?");
  check_should_fail("[engines.doc]\noperations = [\"put\"]\n[gate]\nmetrics = [\"doc.get\"]\n",
                    "4:12",
                    "gate metric \"doc.get\" is never measured (operations run for \"doc\": put)");
}

TEST_CASE("check: values from --set are reported against the flag", "[suite][check]") {
  Suite suite = parse_ok("[engines.doc]\n");
  Overrides overrides;
  overrides.sets = {"doc.validation=hash,md5", "doc.sgement_size=1"};
  std::vector<SuiteError> errors;
  REQUIRE(apply_overrides(suite, overrides, errors));
  CHECK_FALSE(check_suite(suite, known_engines(), loaded_engines(), errors));
  CHECK(errors.size() == 2);
  error_should_be_reported(errors, "--set", "", "value \"md5\" is not allowed");
  error_should_be_reported(errors, "--set", "",
                           "unknown parameter \"sgement_size\" for engine \"doc\"");
}

TEST_CASE("check: every mistake is reported, not just the first", "[suite][check]") {
  const Suite suite = parse_ok(R"(
[engines.dok]
[engines.doc]
operations = ["pot"]
[engines.doc.params]
fsync = "yes"
)");
  std::vector<SuiteError> errors;
  CHECK_FALSE(check_suite(suite, known_engines(), loaded_engines(), errors));
  CHECK(errors.size() == 3);
  error_should_be_reported(errors, kOrigin, "1:10", "unknown engine \"dok\"");
  error_should_be_reported(errors, kOrigin, "3:15", "unknown operation \"pot\"");
  error_should_be_reported(errors, kOrigin, "5:9", "parameter \"doc.fsync\" must be a boolean");
}

TEST_CASE("check: values outside an engine's declared bounds are refused with the range",
          "[suite][check][hardening]") {
  // Before ABI 1.3 these passed validate and failed their cell at run time.
  const Suite suite = parse_ok(R"(
[engines.doc.params]
segment_size = [0, 4096, 100000]
ratio = -0.5
[engines.uuid]
)");
  const std::map<std::string, std::vector<storh::ParamRange>> ranges = {
      {"doc", {{"segment_size", 256, 65536}, {"ratio", 0.0}}}};
  std::vector<SuiteError> errors;
  CHECK_FALSE(check_param_ranges(suite, ranges, errors));
  INFO(all_errors(errors));
  REQUIRE(errors.size() == 3);
  CHECK(errors[0].str() ==
        "suites/x.toml:2:17: parameter \"doc.segment_size\" must be 256 to 65536, got 0");
  CHECK(errors[1].str() ==
        "suites/x.toml:2:26: parameter \"doc.segment_size\" must be 256 to 65536, got 100000");
  CHECK(errors[2].str() ==
        "suites/x.toml:3:9: parameter \"doc.ratio\" must be at least 0, got -0.5");

  // Within bounds, or an engine without bounds (an ABI 1.2 plugin): no error.
  std::vector<SuiteError> none;
  CHECK(check_param_ranges(parse_ok("[engines.doc.params]\nsegment_size = 256\nratio = 0\n"),
                           ranges, none));
  CHECK(check_param_ranges(suite, {}, none));
  CHECK(none.empty());
}
