// Adaptive repeats end to end: a steady cell stops once its median is known to the
// width asked, a cell whose runs alternate fast and slow runs to max, is recorded as
// not converged and is marked in the report.
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "stats/median_interval.h"
#include "test_support.h"

using storh::test::cli;
using storh::test::contains;
using storh::test::fixture_path_flag;
using storh::test::ScratchDir;

namespace {

const nlohmann::json* metric_of(const nlohmann::json& result, const std::string& fragment) {
  for (const auto& m : result["metrics"]) {
    if (m["key"].get<std::string>().find(fragment) != std::string::npos) return &m;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("cli repeat until: a noisy cell runs to max and is marked, a steady one stops",
          "[cli][repeat]") {
  ScratchDir dir;
  const auto output = dir / "r.json";
  // `first` busy-waits 10 ms per run; alternate=5 makes every second run of its cell
  // 50 ms, so that cell's median never settles. The steady cell is asked for +-50% with
  // up to 20 repeats, and is checked against the rule on its own figures.
  const auto run =
      cli({"run", "--engine=misbehave", "--dataset=100", "--repeat=3..20@50%", "--operation=first",
           "--timeout=30s", fixture_path_flag, "--set", "misbehave.cost=100000", "--set",
           "misbehave.alternate=1,5", "--set", "misbehave.slow_log=" + (dir / "slow.log").string(),
           "--output=" + output.string(), "--work-dir=" + (dir / "work").string()});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  const auto result = nlohmann::json::parse(storh::test::read_text(output));
  CHECK(result["experiment"]["repeat"] == 3);
  CHECK(result["experiment"]["repeat_until"] ==
        nlohmann::json{{"min", 3}, {"max", 20}, {"until", 0.5}});

  const nlohmann::json* steady = metric_of(result, "alternate=1]");
  const nlohmann::json* noisy = metric_of(result, "alternate=5]");
  REQUIRE(steady != nullptr);
  REQUIRE(noisy != nullptr);
  // The steady cell: the rule, checked on the figures it reported, not on how quiet this
  // machine was. It stopped at the first count from min whose median was stable (never
  // before 6: no 95% interval of a median exists with fewer), or ran to max, marked.
  const auto taken = (*steady)["repeats"]["taken"].get<std::size_t>();
  std::vector<double> seconds;
  for (const auto& sample : (*steady)["samples"]) seconds.push_back(sample["seconds"]);
  REQUIRE(seconds.size() == taken);
  CHECK(taken >= 6);
  for (std::size_t k = 3; k < taken; ++k) {
    INFO("after " << k << " repeats");
    CHECK_FALSE(storh::stats::median_is_stable(std::span(seconds).first(k), 0.5));
  }
  const bool converged = storh::stats::median_is_stable(seconds, 0.5);
  CHECK((*steady)["repeats"]["converged"] == converged);
  CHECK((*steady)["repeats"]["interval"].size() == 2);
  if (!converged) CHECK(taken == 20);
  // The noisy cell: every second run busy-waits 50 ms rather than 10 (a floor, whatever
  // the load), so its median's interval spans both and never settles.
  CHECK((*noisy)["repeats"]["taken"] == 20);
  CHECK((*noisy)["repeats"]["converged"] == false);
  CHECK((*noisy)["samples"].size() == 20);
  CHECK(contains((*noisy)["warnings"].dump(),
                 "20 repeats (max) and the 95% interval of the median is"));

  const auto report = cli({"report", output.string()});
  INFO(report.out);
  CHECK(report.code == 0);
  CHECK(contains(report.out, "repeat=3..20@50%"));
  CHECK(contains(report.out, "wider than the \u00b150% asked"));
  CHECK(contains(report.out, "! first"));
}

TEST_CASE("cli repeat until: validate prints the plan's bounds", "[cli][repeat]") {
  const auto run = cli({"validate", "--engine=misbehave", "--repeat=5..30@2%", fixture_path_flag});
  INFO(run.out << run.err);
  CHECK(run.code == 0);
  CHECK(contains(run.out, "5..30 repeats per cell until \u00b12%"));
}

TEST_CASE("cli repeat until: a bad form exits 2 and names the valid one", "[cli][repeat]") {
  const auto run = cli({"validate", "--engine=misbehave", "--repeat=30..5@2%", fixture_path_flag});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "--repeat: min 30 is more than max 5 (e.g. --repeat=5..30@2%)"));
}

TEST_CASE("cli repeat until: ab refuses an adaptive repeat as its number of pairs",
          "[cli][repeat][ab]") {
  ScratchDir dir;
  storh::test::write_text(dir / "s.toml",
                          "name = \"adaptive\"\ndatasets = [100]\n"
                          "repeat = { min = 8, max = 30, until = \"2%\" }\n"
                          "[engines.misbehave]\noperations = [\"first\"]\n");
  const std::vector<std::string> ab = {"ab", (dir / "s.toml").string(), fixture_path_flag,
                                       "--head-set", "misbehave.cost=2"};
  auto run = cli(ab);
  INFO(run.out << run.err);
  CHECK(run.code == 2);
  CHECK(contains(run.err, "the suite's repeat is adaptive (8..30 repeats per cell until"));
  CHECK(contains(run.err, "give --pairs=N (or [gate.ab] pairs = N in the suite)"));
  // --pairs says how many: the adaptive repeat is not asked (1 pair is refused for
  // another reason, before anything runs).
  std::vector<std::string> with_pairs = ab;
  with_pairs.push_back("--pairs=1");
  run = cli(with_pairs);
  CHECK(run.code == 2);
  CHECK_FALSE(contains(run.err, "adaptive"));
  CHECK(contains(run.err, "1 pair(s) cannot decide anything"));
}
