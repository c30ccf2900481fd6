// The [load] section of a suite and how the plan expands it into clients x
// transactions cells.
#include <catch2/catch.hpp>

#include "plan/plan.h"
#include "suite_test_util.h"

using namespace storh::suite::testing;
using storh::load::ClientMode;

namespace {

storh::plugin::Description description_with_transactions() {
  storh::plugin::Description d;
  d.file = "/plugins/storh_doc.so";
  d.info.name = "doc";
  d.info.version = "1.2.0";
  d.info.operations = {{"put", "records", storh::Direction::lower_is_better, ""}};
  d.transactions = {{"put_get", "put then get", false}, {"get", "get one", true}};
  return d;
}

}  // namespace

TEST_CASE("load suite: clients and transactions lists, rate, warm-up, mode", "[load][suite]") {
  const auto suite = parse_ok(R"(
[load]
clients = [10, 30, 50]
transactions = [100, 300]
rate = 500
warmup = 5
mode = "processes"
progress = "2s"

[engines.doc]
)");
  REQUIRE(suite.load.has_value());
  const auto& load = *suite.load;
  REQUIRE(load.clients.size() == 3);
  CHECK(load.clients[2].value == 50);
  REQUIRE(load.transactions.size() == 2);
  CHECK(load.transactions[1].value == 300);
  CHECK(load.durations.empty());
  CHECK(load.rate == 500.0);
  CHECK(load.warmup_transactions == 5);
  CHECK(load.mode == ClientMode::processes);
  CHECK(load.progress_seconds == 2.0);
}

TEST_CASE("load suite: a duration instead of transactions, and a per-engine mode",
          "[load][suite]") {
  const auto suite = parse_ok(R"(
[load]
clients = 4
duration = "10s"
warmup = "1s"

[engines.queue.load]
mode = "processes"
)");
  REQUIRE(suite.load.has_value());
  CHECK(suite.load->clients.size() == 1);
  REQUIRE(suite.load->durations.size() == 1);
  CHECK(suite.load->durations[0].value == 10.0);
  CHECK(suite.load->warmup_seconds == 1.0);
  CHECK(suite.load->mode == ClientMode::threads);
  REQUIRE(suite.engines.size() == 1);
  REQUIRE(suite.engines[0].load_mode.has_value());
  CHECK(suite.engines[0].load_mode->value == ClientMode::processes);
}

TEST_CASE("load suite: mistakes name the key and what is expected", "[load][suite]") {
  suite_should_fail(R"(
[load]
clients = [1, 2]
[engines.doc]
)",
                    "1:1", "needs \"transactions\"");
  suite_should_fail(R"(
[load]
transactions = 10
duration = "1s"
[engines.doc]
)",
                    "1:1", "both \"transactions\" and \"duration\"");
  suite_should_fail(R"(
[load]
clients = [0]
transactions = 10
[engines.doc]
)",
                    "2:12", "\"load.clients\" must be an integer from 1 to 4096");
  suite_should_fail(R"(
[load]
transactions = 10
mode = "fibers"
[engines.doc]
)",
                    "3:8", "\"threads\" or \"processes\"");
  suite_should_fail(R"(
[load]
transactions = 10
clientz = 3
[engines.doc]
)",
                    "3:1", "unknown key \"clientz\" in [load]");
  suite_should_fail(R"(
[load]
transactions = [10, 10]
[engines.doc]
)",
                    "2:21", "10 appears twice");
}

TEST_CASE("load plan: every clients x transactions pair is a cell with qualified keys",
          "[load][plan]") {
  const auto suite = parse_ok(R"(
[load]
clients = [10, 30]
transactions = [100, 300]
[engines.doc]
operations = ["put_get"]
)");
  auto description = description_with_transactions();
  REQUIRE(storh::plan::use_transactions_as_operations(description));
  CHECK(description.info.operations.size() == 2);
  CHECK(description.info.operations[0].unit == "transactions");
  const auto plan = storh::plan::expand_plan(suite, {{"doc", description}});
  REQUIRE(plan.cells.size() == 4);
  CHECK(storh::plan::metric_key(plan.cells[0], "put_get") ==
        "doc.put_get[clients=10,transactions=100]");
  CHECK(storh::plan::metric_key(plan.cells[1], "put_get") ==
        "doc.put_get[clients=10,transactions=300]");
  CHECK(storh::plan::metric_key(plan.cells[3], "put_get") ==
        "doc.put_get[clients=30,transactions=300]");
  REQUIRE(plan.cells[2].load.has_value());
  CHECK(plan.cells[2].load->clients == 30);
  CHECK(plan.cells[2].load->transactions == 100u);
  CHECK(plan.cells[2].operation_names() == std::vector<std::string>{"put_get"});

  // A load plan's fingerprint covers the load settings.
  auto faster = suite;
  faster.load->rate = 100;
  CHECK(storh::plan::expand_plan(faster, {{"doc", description}}).fingerprint != plan.fingerprint);
}

TEST_CASE("load plan: a duration column and the engine's own client mode", "[load][plan]") {
  const auto suite = parse_ok(R"(
[load]
duration = ["0.5s", 2]
[engines.doc.load]
mode = "processes"
)");
  auto description = description_with_transactions();
  REQUIRE(storh::plan::use_transactions_as_operations(description));
  const auto plan = storh::plan::expand_plan(suite, {{"doc", description}});
  REQUIRE(plan.cells.size() == 2);
  CHECK(storh::plan::metric_key(plan.cells[0], "get") == "doc.get[clients=1,duration=0.5s]");
  CHECK(storh::plan::metric_key(plan.cells[1], "get") == "doc.get[clients=1,duration=2s]");
  CHECK(plan.cells[1].load->mode == ClientMode::processes);
  CHECK(plan.cells[0].operation_names() == std::vector<std::string>{"put_get", "get"});
}

TEST_CASE("load plan: an engine without transactions cannot join a load suite", "[load][plan]") {
  storh::plugin::Description description;
  description.info.name = "uuid";
  CHECK_FALSE(storh::plan::use_transactions_as_operations(description));
}

// ---------------------------------------------------------------------------------
// Benches: [[load.bench]] (docs/load.md, "Benches")
// ---------------------------------------------------------------------------------

namespace {

constexpr const char* kBenchSuite = R"(
[load]
warmup = 5
[[load.bench]]
name = "1: read-write, clients 10..30"
operations = ["put_get"]
points = ["10/100", "30/100"]
[[load.bench]]
name = "2: read only"
operations = ["get"]
points = ["10/100", " 20 / 300 "]
[engines.doc]
)";

}  // namespace

TEST_CASE("load bench: names, operations and points in file order", "[load][suite][bench]") {
  const auto suite = parse_ok(kBenchSuite);
  REQUIRE(suite.load.has_value());
  const auto& benches = suite.load->benches;
  REQUIRE(benches.size() == 2);
  CHECK(benches[0].name.value == "1: read-write, clients 10..30");
  CHECK(benches[0].name.pos.str() == "suites/x.toml:4:8");
  REQUIRE(benches[0].operations.size() == 1);
  CHECK(benches[0].operations[0].value == "put_get");
  REQUIRE(benches[1].points.size() == 2);
  CHECK(benches[1].points[0].value == storh::load::Point{10, 100});
  CHECK(benches[1].points[1].value == storh::load::Point{20, 300});  // spaces allowed
  CHECK(benches[1].points[1].pos.str() == "suites/x.toml:10:21");
  CHECK(suite.load->transactions.empty());
  CHECK(suite.load->durations.empty());
  CHECK(suite.load->warmup_transactions == 5);
}

TEST_CASE("load bench: mistakes name the position and what is expected", "[load][suite][bench]") {
  const std::string head = "[load]\n[[load.bench]]\nname = \"a\"\noperations = [\"get\"]\n";
  suite_should_fail(head + "points = [\"10x100\"]\n[engines.doc]\n", "5:11",
                    "point \"10x100\" in \"load.bench.points\" must be \"clients/transactions "
                    "per client\" such as \"10/100\" (clients 1 to 4096, transactions >= 1)");
  suite_should_fail(head + "points = [\"0/5\"]\n[engines.doc]\n", "5:11", "point \"0/5\"");
  suite_should_fail(head + "points = [\"10/\"]\n[engines.doc]\n", "5:11", "point \"10/\"");
  suite_should_fail(head + "points = [\"5000/1\"]\n[engines.doc]\n", "5:11", "clients 1 to 4096");
  suite_should_fail(head + "points = [\"-1/5\"]\n[engines.doc]\n", "5:11", "point \"-1/5\"");
  suite_should_fail(head + "points = [10]\n[engines.doc]\n", "5:11",
                    "\"load.bench.points\" must be a list of strings \"clients/transactions per "
                    "client\" such as \"10/100\" (clients 1 to 4096, transactions >= 1), got "
                    "integer 10");
  suite_should_fail(head + "points = \"10/100\"\n[engines.doc]\n", "5:10", "got string");
  suite_should_fail(head + "points = []\n[engines.doc]\n", "5:10",
                    "\"load.bench.points\" must not be empty");
  suite_should_fail(head + "points = [\"10/100\", \"20/1\", \"10/100\"]\n[engines.doc]\n", "5:29",
                    "point 10/100 appears twice in \"load.bench.points\" (first at 5:11)");
  suite_should_fail(
      "[load]\n[[load.bench]]\nname = \"a\"\noperations = []\npoints = [\"1/1\"]\n"
      "[engines.doc]\n",
      "4:14", "\"load.bench.operations\" must not be empty");
  suite_should_fail(
      "[load]\n[[load.bench]]\nname = \"a\"\noperations = [\"get\", \"get\"]\n"
      "points = [\"1/1\"]\n[engines.doc]\n",
      "4:22", "operation \"get\" appears twice in \"load.bench.operations\"");
  suite_should_fail("[load]\n[[load.bench]]\nname = \"a\"\npoints = [\"1/1\"]\n[engines.doc]\n",
                    "2:1", "[[load.bench]] needs operations");
  suite_should_fail(head + "points = [\"1/1\"]\nclients = 3\n[engines.doc]\n", "6:1",
                    "unknown key \"clients\" in [[load.bench]] (valid: name, operations, points)");
  // Two benches with one name.
  suite_should_fail(head +
                        "points = [\"1/1\"]\n[[load.bench]]\nname = \"a\"\n"
                        "operations = [\"get\"]\npoints = [\"2/2\"]\n[engines.doc]\n",
                    "7:8", "duplicate bench name \"a\" (first at 3:8)");
  // The matrix keys of [load] and benches exclude each other.
  suite_should_fail(
      "[load]\nclients = [1, 2]\ntransactions = 10\n[[load.bench]]\nname = \"a\"\n"
      "operations = [\"get\"]\npoints = [\"1/1\"]\n[engines.doc]\n",
      "2:1",
      "[load] has [[load.bench]] tables, so \"clients\" must not be given: each "
      "bench lists its own \"clients/transactions\" points");
  suite_should_fail(
      "[load]\nduration = \"1s\"\n[[load.bench]]\nname = \"a\"\n"
      "operations = [\"get\"]\npoints = [\"1/1\"]\n[engines.doc]\n",
      "2:1", "so \"duration\" must not be given");
  suite_should_fail("[load]\nbench = 3\n[engines.doc]\n", "2:9",
                    "\"load.bench\" must be tables [[load.bench]] (an array of tables), got "
                    "integer 3");
}

TEST_CASE("load bench: an operation some engine does not declare names the valid ones",
          "[load][suite][bench]") {
  auto suite = parse_ok(R"(
[load]
[[load.bench]]
name = "a"
operations = ["put_gte"]
points = ["1/1"]
[engines.doc]
)");
  auto description = description_with_transactions();
  REQUIRE(storh::plan::use_transactions_as_operations(description));
  std::vector<storh::suite::SuiteError> errors;
  CHECK_FALSE(storh::suite::check_suite(suite, {"doc"}, {{"doc", description.info}}, errors));
  error_should_be_reported(errors, kOrigin, "4:15",
                           "bench \"a\": unknown transaction type \"put_gte\" for engine \"doc\" "
                           "(transaction types: put_get, get); did you mean \"put_get\"?");

  // An engine whose own operations no bench runs would have no cells.
  suite.load->benches[0].operations[0].value = "get";
  suite.engines[0].operations = {{"put_get", {kOrigin, 8, 15}}};
  errors.clear();
  CHECK_FALSE(storh::suite::check_suite(suite, {"doc"}, {{"doc", description.info}}, errors));
  error_should_be_reported(errors, kOrigin, "8:15",
                           "engine \"doc\" selects operations no [[load.bench]] runs (put_get; the "
                           "benches run: get)");
}

TEST_CASE("load bench plan: the union of the points, each running its benches' operations",
          "[load][plan][bench]") {
  const auto suite = parse_ok(kBenchSuite);
  auto description = description_with_transactions();
  REQUIRE(storh::plan::use_transactions_as_operations(description));
  const auto plan = storh::plan::expand_plan(suite, {{"doc", description}});
  // 10/100 is in both benches: one cell running both operations, in declared order.
  REQUIRE(plan.cells.size() == 3);
  CHECK(storh::plan::metric_key(plan.cells[0], "put_get") ==
        "doc.put_get[clients=10,transactions=100]");
  CHECK(plan.cells[0].operation_names() == std::vector<std::string>{"put_get", "get"});
  CHECK(storh::plan::metric_key(plan.cells[1], "put_get") ==
        "doc.put_get[clients=30,transactions=100]");
  CHECK(plan.cells[1].operation_names() == std::vector<std::string>{"put_get"});
  CHECK(storh::plan::metric_key(plan.cells[2], "get") == "doc.get[clients=20,transactions=300]");
  CHECK(plan.cells[2].operation_names() == std::vector<std::string>{"get"});
  REQUIRE(plan.cells[2].load.has_value());
  CHECK(plan.cells[2].load->clients == 20);
  CHECK(plan.cells[2].load->transactions == 300u);
  CHECK(plan.cells[2].load->warmup_transactions == 5);

  // The engine's own operations keep only theirs; a point left with none is no cell.
  auto only_get = suite;
  only_get.engines[0].operations = {{"get", {}}};
  const auto narrowed = storh::plan::expand_plan(only_get, {{"doc", description}});
  REQUIRE(narrowed.cells.size() == 2);
  CHECK(narrowed.cells[0].operation_names() == std::vector<std::string>{"get"});
  CHECK(narrowed.cells[1].load->clients == 20);
}

TEST_CASE("load bench: --clients, --transactions and --duration drop the benches",
          "[load][suite][bench]") {
  const auto with_transactions = [] {
    auto suite = parse_ok(kBenchSuite);
    storh::suite::Overrides overrides;
    overrides.transactions = "50";
    std::vector<storh::suite::SuiteError> errors;
    REQUIRE(storh::suite::apply_overrides(suite, overrides, errors));
    return suite;
  }();
  CHECK(with_transactions.load->benches.empty());
  REQUIRE(with_transactions.load->clients.size() == 1);
  CHECK(with_transactions.load->clients[0].value == 1);
  auto description = description_with_transactions();
  REQUIRE(storh::plan::use_transactions_as_operations(description));
  const auto plan = storh::plan::expand_plan(with_transactions, {{"doc", description}});
  REQUIRE(plan.cells.size() == 1);
  CHECK(plan.cells[0].operation_names() == std::vector<std::string>{"put_get", "get"});

  // --clients alone cannot make the matrix: it says what else to give.
  auto suite = parse_ok(kBenchSuite);
  storh::suite::Overrides clients;
  clients.clients = "4";
  std::vector<storh::suite::SuiteError> errors;
  CHECK_FALSE(storh::suite::apply_overrides(suite, clients, errors));
  error_should_be_reported(errors, "--clients", "",
                           "replaces the suite's [[load.bench]] points with a clients x "
                           "transactions matrix, which needs --transactions");

  // --rate keeps them: it paces every cell.
  auto paced = parse_ok(kBenchSuite);
  storh::suite::Overrides rate;
  rate.rate = "100";
  errors.clear();
  REQUIRE(storh::suite::apply_overrides(paced, rate, errors));
  CHECK(paced.load->benches.size() == 2);
  CHECK(paced.load->rate == 100.0);
}

TEST_CASE("load bench: dropped benches leave their transactions, not the engine's others",
          "[load][suite][bench]") {
  // Regression: --clients/--transactions on suites/pgbench.toml also ran simple_update,
  // which no bench lists.
  auto suite = parse_ok(kBenchSuite);
  storh::suite::Overrides overrides;
  overrides.transactions = "50";
  std::vector<storh::suite::SuiteError> errors;
  REQUIRE(storh::suite::apply_overrides(suite, overrides, errors));
  auto description = description_with_transactions();
  description.transactions.push_back({"scan", "scan all", true});
  REQUIRE(storh::plan::use_transactions_as_operations(description));
  const auto plan = storh::plan::expand_plan(suite, {{"doc", description}});
  REQUIRE(plan.cells.size() == 1);
  CHECK(plan.cells[0].operation_names() == std::vector<std::string>{"put_get", "get"});
}

TEST_CASE("load bench: --transactions=10% shortens every point and keeps the benches",
          "[load][suite][bench]") {
  auto suite = parse_ok(kBenchSuite);
  storh::suite::Overrides overrides;
  overrides.transactions = "10%";
  std::vector<storh::suite::SuiteError> errors;
  REQUIRE(storh::suite::apply_overrides(suite, overrides, errors));
  REQUIRE(suite.load->benches.size() == 2);
  CHECK(suite.load->benches[0].points[0].value.transactions == 10);
  CHECK(suite.load->benches[1].points[1].value.transactions == 30);
  CHECK(suite.load->benches[1].points[1].value.clients == 20);

  auto bad = parse_ok(kBenchSuite);
  overrides.transactions = "150%";
  CHECK_FALSE(storh::suite::apply_overrides(bad, overrides, errors));
  error_should_be_reported(errors, "--transactions", "",
                           "expected a share of each bench point's transactions from 0% to 100%");
}
