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
