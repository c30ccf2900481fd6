// The queue engine under load with process clients: every job enqueued is claimed
// and completed exactly once across processes (checked by the adapter's finish()
// against the queue's own counts, and by each complete() finding its job processing).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_support.h"

using storh::test::cli;
using storh::test::ScratchDir;

TEST_CASE("load queue: process clients complete every job exactly once", "[load][cli][queue]") {
  ScratchDir dir;
  const auto suite = dir / "queue-load.toml";
  storh::test::write_text(suite, R"(
name = "queue-load"
datasets = [10]
timeout = "120s"
[load]
clients = [1, 4]
transactions = 25
warmup = 2
progress = 0
[engines.queue]
operations = ["enqueue_claim_complete"]
[engines.queue.load]
mode = "processes"
)");
  const auto output = dir / "queue.json";
  const auto run = cli({suite.string(), std::string("--plugin-path=") + STORH_TEST_PLUGIN_DIR,
                        "--output=" + output.string(), "--work-dir=" + (dir / "work").string()});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  const auto result = nlohmann::json::parse(storh::test::read_text(output));
  REQUIRE(result["metrics"].size() == 2);
  const auto& four = result["metrics"][1];
  CHECK(four["key"] == "queue.enqueue_claim_complete[clients=4,transactions=25]");
  CHECK(four["load"]["mode"] == "processes");
  CHECK(four["load"]["processed"] == 100);
  CHECK(four["load"]["intended"] == 100);
  CHECK(four["load"]["failed"] == 0);
  CHECK(result["failures"].empty());
}
