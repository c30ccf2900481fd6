// The [ycsb] table of a suite: its keys, its checks (each error with file:line:col
// before any cell runs), its flags, and the cells the plan makes of it.
#include <catch2/catch.hpp>

#include "plan/plan.h"
#include "suite_test_util.h"

using namespace storh::suite::testing;

namespace {

// parse_suite, then check_suite with no engine descriptions: what `validate` runs
// before it knows any plugin.
std::vector<storh::suite::SuiteError> check_errors(std::string_view text) {
  std::vector<storh::suite::SuiteError> errors;
  std::optional<storh::suite::Suite> suite =
      storh::suite::parse_suite(without_leading_newline(text), kOrigin, errors);
  if (suite) storh::suite::check_suite(*suite, {"kv"}, {}, errors);
  return errors;
}

storh::plugin::Description key_value_description() {
  storh::plugin::Description d;
  d.file = "/plugins/storh_kv.so";
  d.info.name = "kv";
  d.info.version = "1.0.0";
  d.info.operations = {{"noop", "items", storh::Direction::lower_is_better, ""}};
  d.key_value = true;
  return d;
}

}  // namespace

TEST_CASE("ycsb suite: workloads and clients are matrix dimensions, properties override",
          "[ycsb][suite]") {
  const auto suite = parse_ok(R"(
[ycsb]
workload = ["a", "E"]
clients = [1, 2]
target = 500
recordcount = 200
"exponential.percentile" = 90
requestdistribution = "zipfian"

[engines.kv]
)");
  REQUIRE(suite.ycsb.has_value());
  REQUIRE(suite.load.has_value());
  REQUIRE(suite.ycsb->workloads.size() == 2);
  CHECK(suite.ycsb->workloads[1].value == 'e');
  REQUIRE(suite.load->clients.size() == 2);
  CHECK(suite.load->rate == 500);
  REQUIRE(suite.ycsb->properties.size() == 3);
  CHECK(suite.ycsb->properties[0].first.value == "recordcount");
  CHECK(suite.ycsb->properties[0].second.value == "200");
  CHECK(suite.ycsb->properties[1].first.value == "exponential.percentile");

  storh::plugin::Description description = key_value_description();
  REQUIRE(storh::plan::use_ycsb_as_operations(*suite.ycsb, description));
  const std::map<std::string, storh::plugin::Description> descriptions = {{"kv", description}};
  const storh::plan::Plan plan = storh::plan::expand_plan(suite, descriptions);
  REQUIRE(plan.cells.size() == 4);  // 2 workloads x 2 client counts
  const storh::plan::Cell& first = plan.cells[0];
  REQUIRE(first.load.has_value());
  REQUIRE(first.load->ycsb.has_value());
  CHECK(first.load->ycsb->workload == 'a');
  CHECK(first.load->rate == 500);
  CHECK(storh::plan::metric_key(first, "ycsb_a") == "kv.ycsb_a[clients=1]");
  // Workload a mixes reads and updates: the load phase, the mix and one per kind.
  CHECK(first.operation_names() ==
        std::vector<std::string>{"ycsb_a.load", "ycsb_a", "ycsb_a.read", "ycsb_a.update"});
  const storh::plan::Cell& last = plan.cells[3];
  CHECK(last.load->clients == 2);
  CHECK(last.operation_names() ==
        std::vector<std::string>{"ycsb_e.load", "ycsb_e", "ycsb_e.insert", "ycsb_e.scan"});
}

TEST_CASE("ycsb suite: defaults are workload a and one client, unthrottled", "[ycsb][suite]") {
  const auto suite = parse_ok(R"(
[ycsb]
target = 0

[engines.kv]
)");
  REQUIRE(suite.ycsb.has_value());
  REQUIRE(suite.ycsb->workloads.size() == 1);
  CHECK(suite.ycsb->workloads[0].value == 'a');
  REQUIRE(suite.load->clients.size() == 1);
  CHECK(suite.load->clients[0].value == 1);
  CHECK_FALSE(suite.load->rate.has_value());
}

TEST_CASE("ycsb suite: an unknown key names the properties with a did-you-mean", "[ycsb][suite]") {
  suite_should_fail(R"(
[ycsb]
recordcont = 10
[engines.kv]
)",
                    "2:1", "did you mean \"recordcount\"");
}

TEST_CASE("ycsb suite: an unknown workload letter or distribution is refused where written",
          "[ycsb][suite]") {
  suite_should_fail(R"(
[ycsb]
workload = ["a", "g"]
[engines.kv]
)",
                    "2:18", "a, b, c, d, e or f");
  suite_should_fail(R"(
[ycsb]
requestdistribution = "zipf"
[engines.kv]
)",
                    "2:23", "zipf");
}

TEST_CASE("ycsb suite: a set of properties that cannot run is refused at the [ycsb] table",
          "[ycsb][suite]") {
  // Each is reported by check_suite, before any plugin or cell runs.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"readproportion = 0.5\nupdateproportion = 0.4", "readproportion"},
      {"fieldcount = 0", "fieldcount"},
      {"recordcount = 10\nmaxscanlength = 100\nworkload = \"e\"", "maxscanlength"},
  };
  for (const auto& [body, fragment] : cases) {
    INFO(body);
    const auto errors = check_errors("\n[ycsb]\n" + body + "\n[engines.kv]\n");
    error_should_be_reported(errors, kOrigin, "1:1", fragment);
  }
}

TEST_CASE("ycsb suite: [load] and [ycsb] together are refused", "[ycsb][suite]") {
  suite_should_fail(R"(
[ycsb]
[load]
transactions = 10
[engines.kv]
)",
                    "2:1", "[load] or [ycsb], not both");
}

TEST_CASE("ycsb suite: --workload, --clients and --operationcount override the table",
          "[ycsb][suite]") {
  auto suite = parse_ok(R"(
[ycsb]
workload = "a"
operationcount = 100
[engines.kv]
)");
  storh::suite::Overrides overrides;
  overrides.workload = "b,c";
  overrides.clients = "1,4";
  overrides.operationcount = "2k";
  std::vector<storh::suite::SuiteError> errors;
  REQUIRE(storh::suite::apply_overrides(suite, overrides, errors));
  REQUIRE(suite.ycsb->workloads.size() == 2);
  CHECK(suite.ycsb->workloads[0].value == 'b');
  REQUIRE(suite.load->clients.size() == 2);
  CHECK(suite.load->clients[1].value == 4);
  CHECK(suite.ycsb->properties.back().first.value == "operationcount");
  CHECK(suite.ycsb->properties.back().second.value == "2000");

  storh::suite::Overrides bad;
  bad.workload = "z";
  CHECK_FALSE(storh::suite::apply_overrides(suite, bad, errors));
  error_should_be_reported(errors, "--workload", "", "unknown YCSB workload \"z\"");
  storh::suite::Overrides transactions;
  transactions.transactions = "10";
  CHECK_FALSE(storh::suite::apply_overrides(suite, transactions, errors));
  error_should_be_reported(errors, "--transactions", "", "--operationcount");
}

TEST_CASE("ycsb suite: a plugin without the key-value store offers no YCSB operations",
          "[ycsb][suite]") {
  const auto suite = parse_ok("\n[ycsb]\n[engines.kv]\n");
  storh::plugin::Description description = key_value_description();
  description.key_value = false;
  CHECK_FALSE(storh::plan::use_ycsb_as_operations(*suite.ycsb, description));
}
