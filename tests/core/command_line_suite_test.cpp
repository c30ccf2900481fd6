// Item 7 of "what a new user trips over": load-mode flags, --operation, a run without
// a suite file, "5k" dataset sizes in a suite.
#include <catch2/catch.hpp>

#include "suite/parse.h"
#include "suite_test_util.h"

using namespace storh::suite;
using namespace storh::suite::testing;

namespace {

constexpr std::string_view kLoadSuite = R"(
[load]
clients = [1, 4]
transactions = [100]
rate = 200
[engines.queue]
)";

Suite overridden(std::string_view text, const Overrides& overrides) {
  Suite suite = parse_ok(text);
  std::vector<SuiteError> errors;
  const bool ok = apply_overrides(suite, overrides, errors);
  INFO(all_errors(errors));
  REQUIRE(ok);
  return suite;
}

void overrides_should_fail(std::string_view text, const Overrides& overrides,
                           const std::string& flag, const std::string& fragment) {
  Suite suite = parse_ok(text);
  std::vector<SuiteError> errors;
  CHECK_FALSE(apply_overrides(suite, overrides, errors));
  error_should_be_reported(errors, flag, "", fragment);
}

storh::EngineInfo engine_info(const std::string& name, std::vector<std::string> operations) {
  storh::EngineInfo info;
  info.name = name;
  for (std::string& op : operations) info.operations.push_back({std::move(op), "items", {}, ""});
  return info;
}

std::vector<std::string> operations_of(const EngineSetting& engine) {
  std::vector<std::string> names;
  for (const auto& op : engine.operations) names.push_back(op.value);
  return names;
}

}  // namespace

TEST_CASE("load flags: --clients, --transactions and --rate replace the [load] values",
          "[suite][overrides][load]") {
  Overrides overrides;
  overrides.clients = "2,8";
  overrides.transactions = "50,10k";
  overrides.rate = "none";
  const Suite suite = overridden(kLoadSuite, overrides);
  REQUIRE(suite.load.has_value());
  REQUIRE(suite.load->clients.size() == 2);
  CHECK(suite.load->clients[1].value == 8);
  CHECK(suite.load->clients[1].pos.str() == "--clients");
  REQUIRE(suite.load->transactions.size() == 2);
  CHECK(suite.load->transactions[1].value == 10000);
  CHECK_FALSE(suite.load->rate.has_value());
}

TEST_CASE("load flags: --duration replaces transactions, and --rate sets a target",
          "[suite][overrides][load]") {
  Overrides overrides;
  overrides.duration = "2s,1m";
  overrides.rate = "500";
  const Suite suite = overridden(kLoadSuite, overrides);
  CHECK(suite.load->transactions.empty());
  REQUIRE(suite.load->durations.size() == 2);
  CHECK(suite.load->durations[1].value == 60);
  CHECK(suite.load->rate == 500);
}

TEST_CASE("load flags: bad values and a suite without [load] are errors naming the flag",
          "[suite][overrides][load]") {
  Overrides overrides;
  overrides.clients = "0";
  overrides_should_fail(kLoadSuite, overrides, "--clients", "client counts from 1 to 4096");
  overrides = {};
  overrides.transactions = "100";
  overrides.duration = "10s";
  overrides_should_fail(kLoadSuite, overrides, "--transactions", "not both");
  overrides = {};
  overrides.rate = "fast";
  overrides_should_fail(kLoadSuite, overrides, "--rate", "got \"fast\"");
  overrides = {};
  overrides.duration = "-1s";
  overrides_should_fail(kLoadSuite, overrides, "--duration", "durations > 0");
  overrides = {};
  overrides.clients = "4";
  overrides_should_fail("[engines.doc]\n", overrides, "--clients", "has no [load] table");
}

TEST_CASE("suite: datasets accept \"5k\" strings as the command line does", "[suite]") {
  const Suite list = parse_ok("datasets = [\"5k\", 1000, \"1M\"]\n[engines.doc]\n");
  REQUIRE(list.datasets.size() == 3);
  CHECK(list.datasets[0].value == 5000);
  CHECK(list.datasets[2].value == 1'000'000);
  const Suite one = parse_ok("datasets = \"5k\"\n[engines.doc]\n");
  CHECK(one.datasets[0].value == 5000);
  suite_should_fail("datasets = [\"5q\"]\n[engines.doc]\n", "1:13", "a string such as \"10k\"");
  suite_should_fail("datasets = [\"5k\", 5000]\n[engines.doc]\n", "1:19", "duplicate dataset 5000");
}

TEST_CASE("suite from flags: --engine alone is a suite with documented defaults",
          "[suite][flags]") {
  Overrides overrides;
  overrides.engines = {"doc", "uuid"};
  overrides.datasets = "10k";
  std::vector<SuiteError> errors;
  const std::optional<Suite> suite = suite_from_flags(overrides, errors);
  INFO(all_errors(errors));
  REQUIRE(suite.has_value());
  CHECK(suite->name == "doc-uuid");
  CHECK(suite->output == "build/bench-doc-uuid.json");
  CHECK(suite->repeat == 3);
  CHECK(suite->timeout_seconds == 600);
  REQUIRE(suite->datasets.size() == 1);
  CHECK(suite->datasets[0].value == 10000);
  REQUIRE(suite->engines.size() == 2);
  CHECK(suite->engines[0].operations.empty());  // every operation
  CHECK_FALSE(suite->load.has_value());
}

TEST_CASE("suite from flags: a load flag makes a load suite, which needs an amount",
          "[suite][flags][load]") {
  Overrides overrides;
  overrides.engines = {"queue"};
  overrides.transactions = "100";
  std::vector<SuiteError> errors;
  std::optional<Suite> suite = suite_from_flags(overrides, errors);
  REQUIRE(suite.has_value());
  REQUIRE(suite->load.has_value());
  REQUIRE(suite->load->clients.size() == 1);
  CHECK(suite->load->clients[0].value == 1);
  CHECK(suite->load->transactions[0].value == 100);

  overrides.transactions.reset();
  overrides.clients = "4";
  suite = suite_from_flags(overrides, errors);
  CHECK_FALSE(suite.has_value());
  error_should_be_reported(errors, "--clients", "", "needs --transactions");
}

TEST_CASE("operation filter: each engine runs the named operations it declares",
          "[suite][operations]") {
  Suite suite = parse_ok(R"(
[engines.doc]
operations = ["put"]
[engines.log]
[engines.uuid]
)");
  const std::map<std::string, storh::EngineInfo> infos = {
      {"doc", engine_info("doc", {"put", "get", "scan"})},
      {"log", engine_info("log", {"append", "get"})},
      {"uuid", engine_info("uuid", {"monotonic"})}};
  std::vector<SuiteError> errors;
  REQUIRE(filter_operations(suite, {"get,log.append"}, infos, errors));
  REQUIRE(suite.engines.size() == 2);  // uuid declares none of them
  CHECK(suite.engines[0].name == "doc");
  CHECK(operations_of(suite.engines[0]) == std::vector<std::string>{"get"});
  CHECK(operations_of(suite.engines[1]) == std::vector<std::string>{"append", "get"});
  CHECK(suite.engines[1].operations[0].pos.str() == "--operation");
}

TEST_CASE("operation filter: an unknown name lists the operations and suggests one",
          "[suite][operations]") {
  Suite suite = parse_ok("[engines.doc]\n");
  const std::map<std::string, storh::EngineInfo> infos = {
      {"doc", engine_info("doc", {"put", "get"})}};
  std::vector<SuiteError> errors;
  CHECK_FALSE(filter_operations(suite, {"gett"}, infos, errors));
  error_should_be_reported(errors, "--operation", "",
                           "unknown operation \"gett\" (the suite's engines have: doc.put, "
                           "doc.get); did you mean \"get\"?");
  errors.clear();
  CHECK_FALSE(filter_operations(suite, {"doc.gte"}, infos, errors));
  error_should_be_reported(errors, "--operation", "", "did you mean \"doc.get\"?");
}

TEST_CASE("operation filter: engine.op lists only that engine's operations",
          "[suite][operations]") {
  Suite suite = parse_ok("[engines.doc]\n[engines.uuid]\n");
  const std::map<std::string, storh::EngineInfo> infos = {
      {"doc", engine_info("doc", {"put", "get"})},
      {"uuid", engine_info("uuid", {"generate", "validate"})}};
  std::vector<SuiteError> errors;
  CHECK_FALSE(filter_operations(suite, {"uuid.put"}, infos, errors));
  error_should_be_reported(errors, "--operation", "",
                           "unknown operation \"uuid.put\" (engine \"uuid\" has: uuid.generate, "
                           "uuid.validate)");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message.find("doc.put") == std::string::npos);
}
