// The A/B verdict, pairing, file and calibration with fixed samples: no processes,
// no clocks, so every expectation is exact.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ab/ab_runner.h"
#include "ab/calibration.h"
#include "ab/verdict.h"
#include "test_support.h"

using storh::ab::AbResult;
using storh::ab::AbState;
using storh::ab::Pair;
using storh::ab::PairedMetric;
using storh::ab::Side;
using storh::result::MetricDirection;

namespace {

// A metric of n pairs: base 1 ms with a small, fixed wobble; head = base * ratio with
// its own wobble, so the pairs are not all equal (ties would change the test).
PairedMetric metric(const std::string& key, std::size_t n, double ratio, double wobble = 0.004,
                    MetricDirection direction = MetricDirection::lower_is_better) {
  PairedMetric m{key, "items", direction, {}};
  for (std::size_t i = 0; i < n; ++i) {
    const double b = 1e-3 * (1 + wobble * static_cast<double>((i * 7) % 5));
    const double h = b * ratio * (1 + wobble * (static_cast<double>((i * 3) % 4) - 1.5) / 2);
    m.pairs.push_back({static_cast<std::uint32_t>(i), b, h, i % 2 == 0 ? Side::base : Side::head});
  }
  return m;
}

AbResult result_with(std::vector<PairedMetric> metrics) {
  AbResult r;
  r.pairs = metrics.empty() ? 0 : static_cast<std::uint32_t>(metrics.front().pairs.size());
  r.metrics = std::move(metrics);
  return r;
}

const storh::ab::AbCheck& only_check(const storh::ab::AbOutcome& outcome) {
  REQUIRE(outcome.checks.size() == 1);
  return outcome.checks.front();
}

}  // namespace

TEST_CASE("ab: a 10% slowdown in every pair is a regression", "[ab]") {
  auto outcome = storh::ab::judge(result_with({metric("kv.put", 12, 1.10)}), {});
  REQUIRE(outcome);
  const auto& check = only_check(*outcome);
  CHECK(check.state == AbState::regression);
  CHECK(check.failed);
  CHECK_FALSE(outcome->passed());
  CHECK(check.summary.slowdown_percent == Approx(10).margin(0.6));
  CHECK(check.summary.test.ci_low > 1.0);
  CHECK(check.summary.test.ci_low <= 1.10);
  CHECK(check.summary.test.ci_high >= 1.09);
}

TEST_CASE("ab: equal sides are no change", "[ab]") {
  auto outcome = storh::ab::judge(result_with({metric("kv.put", 12, 1.0)}), {});
  REQUIRE(outcome);
  CHECK(only_check(*outcome).state == AbState::no_change);
  CHECK(outcome->passed());
}

TEST_CASE("ab: a significant slowdown under the threshold passes, with a note", "[ab]") {
  storh::ab::AbGateOptions options;
  options.threshold_percent = 20;
  auto outcome = storh::ab::judge(result_with({metric("kv.put", 12, 1.10)}), options);
  REQUIRE(outcome);
  const auto& check = only_check(*outcome);
  CHECK(check.state == AbState::no_change);
  CHECK_FALSE(check.failed);
  REQUIRE(check.notes.size() == 1);
  CHECK(storh::test::contains(check.notes[0], "significant but within the threshold 20.00%"));
}

TEST_CASE("ab: a faster head is an improvement, never a failure", "[ab]") {
  auto outcome = storh::ab::judge(result_with({metric("kv.put", 12, 0.8)}), {});
  REQUIRE(outcome);
  CHECK(only_check(*outcome).state == AbState::improvement);
  CHECK(outcome->passed());
}

TEST_CASE("ab: a higher-is-better value that drops is a slowdown", "[ab]") {
  auto outcome = storh::ab::judge(
      result_with({metric("kv.score", 12, 0.8, 0.004, MetricDirection::higher_is_better)}), {});
  REQUIRE(outcome);
  const auto& check = only_check(*outcome);
  CHECK(check.state == AbState::regression);
  CHECK(check.summary.slowdown_percent == Approx(25).margin(1));
}

TEST_CASE("ab: too few pairs fail unless lenient, and say how many are needed", "[ab]") {
  const AbResult few = result_with({metric("kv.put", 4, 2.0)});
  auto outcome = storh::ab::judge(few, {});
  REQUIRE(outcome);
  CHECK(only_check(*outcome).state == AbState::too_few_pairs);
  CHECK(only_check(*outcome).failed);
  CHECK(storh::test::contains(only_check(*outcome).notes.at(0), "need >= 8"));
  storh::ab::AbGateOptions lenient;
  lenient.lenient_too_few = true;
  outcome = storh::ab::judge(few, lenient);
  REQUIRE(outcome);
  CHECK(outcome->passed());
  CHECK(outcome->warnings.size() == 1);
}

TEST_CASE("ab: calibrated noise raises a metric's threshold above the configured one", "[ab]") {
  storh::ab::AbGateOptions options;
  options.calibrated_noise["kv.put"] = 0.2;  // 20% noise per pair
  auto outcome = storh::ab::judge(result_with({metric("kv.put", 12, 1.10)}), options);
  REQUIRE(outcome);
  const auto& check = only_check(*outcome);
  CHECK(check.threshold_from == "calibration");
  CHECK(check.threshold_percent > 10);
  CHECK(check.state == AbState::no_change);  // 10% is inside what 20% noise supports

  // A run noisier than its calibration: the floor is the run's own, and says so.
  options.calibrated_noise["kv.put"] = 0.001;
  outcome = storh::ab::judge(result_with({metric("kv.put", 12, 1.10, 0.2)}), options);
  REQUIRE(outcome);
  CHECK(only_check(*outcome).threshold_from == "noise floor");
  CHECK(only_check(*outcome).threshold_percent > 3);
}

TEST_CASE("ab: a metric on one side only is missing, and --metric typos are errors", "[ab]") {
  AbResult r = result_with({metric("kv.put", 12, 1.0)});
  storh::result::Metric only_head;
  only_head.key = "kv.get";
  r.head.metrics.push_back(only_head);
  auto outcome = storh::ab::judge(r, {});
  REQUIRE(outcome);
  REQUIRE(outcome->checks.size() == 2);
  CHECK(outcome->checks[0].key == "kv.get");
  CHECK(outcome->checks[0].state == AbState::missing);
  CHECK_FALSE(outcome->passed());

  storh::ab::AbGateOptions options;
  options.metrics = {"kv.pot"};
  outcome = storh::ab::judge(r, options);
  REQUIRE_FALSE(outcome);
  CHECK(storh::test::contains(outcome.error(), "no metric \"kv.pot\""));
  CHECK(storh::test::contains(outcome.error(), "did you mean \"kv.put\"?"));
}

TEST_CASE("ab: bad options are refused with the valid range", "[ab]") {
  storh::ab::AbGateOptions options;
  options.alpha = 1.5;
  CHECK(storh::test::contains(storh::ab::validate(options), "--alpha: 1.5 is outside (0, 1)"));
  options = {};
  options.threshold_percent = -1;
  CHECK(storh::test::contains(storh::ab::validate(options), "--threshold: -1 is negative"));
}

TEST_CASE("ab: pairs match runs by pair index, a run without the sample drops its pair only",
          "[ab]") {
  auto run_with = [](std::optional<double> seconds) {
    storh::run::CellRun run;
    if (seconds) run.samples.push_back({"put", *seconds, 10, nullptr});
    return run;
  };
  const std::vector<storh::run::CellRun> base = {run_with(1.0), run_with(2.0), run_with(3.0)};
  const std::vector<storh::run::CellRun> head = {run_with(1.5), run_with(std::nullopt),
                                                 run_with(3.5)};
  const storh::OperationSpec op{"put", "records", storh::Direction::lower_is_better, ""};
  const PairedMetric m =
      storh::ab::pair_samples("kv.put", op, base, head, {Side::base, Side::head, Side::base});
  REQUIRE(m.pairs.size() == 2);
  CHECK(m.pairs[0].index == 0);
  CHECK(m.pairs[0].base == 1.0);
  CHECK(m.pairs[0].head == 1.5);
  CHECK(m.pairs[1].index == 2);
  CHECK(m.pairs[1].base == 3.0);
  CHECK(m.pairs[1].first == Side::base);
}

TEST_CASE("ab: plans whose cells differ cannot be paired", "[ab]") {
  storh::plan::Plan base, head;
  base.cells.resize(1);
  head.cells.resize(1);
  base.cells[0].engine = head.cells[0].engine = "kv";
  base.cells[0].dataset = 1000;
  head.cells[0].dataset = 2000;
  CHECK(storh::test::contains(storh::ab::check_pairable(base, head), "cell 1 differs"));
  head.cells[0].dataset = 1000;
  CHECK(storh::ab::check_pairable(base, head).empty());
  head.cells.resize(2);
  CHECK(storh::test::contains(storh::ab::check_pairable(base, head), "base has 1 cell(s)"));
}

TEST_CASE("ab: the A/B file keeps both sides and the pairing", "[ab]") {
  AbResult r = result_with({metric("kv.put", 8, 1.1)});
  r.order = storh::ab::Order::random;
  r.seed = 42;
  r.base_setup = {{"build-base/plugins"}, {}};
  r.head_setup = {{"build/plugins"}, {"kv.mode=fast"}};
  r.base.experiment.suite = "s";
  r.head.experiment.suite = "s";
  const nlohmann::json written = storh::ab::to_json(r, 0.01);
  CHECK(storh::ab::is_ab_json(written));
  CHECK(written["ab"]["metrics"][0]["analysis"]["pairs"] == 8);
  const auto read = storh::ab::ab_from_json(written, "ab.json");
  REQUIRE(read);
  CHECK(read->order == storh::ab::Order::random);
  CHECK(read->seed == 42);
  CHECK(read->head_setup.sets == std::vector<std::string>{"kv.mode=fast"});
  REQUIRE(read->metrics.size() == 1);
  CHECK(read->metrics[0].pairs.size() == 8);
  CHECK(read->metrics[0].pairs[1].first == Side::head);
  CHECK(read->metrics[0].pairs[3].head == r.metrics[0].pairs[3].head);

  nlohmann::json broken = written;
  broken["ab"]["metrics"][0]["pairs"][2]["first"] = "both";
  const auto bad = storh::ab::ab_from_json(broken, "ab.json");
  REQUIRE_FALSE(bad);
  CHECK(storh::test::contains(bad.error(), "ab.json: /ab/metrics/0/pairs/2/first"));
  broken = written;
  broken["ab"].erase("base");
  CHECK_FALSE(storh::ab::ab_from_json(broken, "ab.json"));
}

TEST_CASE("calibrate: noise, floors and advice from A/A pairs, and the file round-trips",
          "[ab][calibrate]") {
  AbResult aa = result_with({metric("kv.put", 20, 1.0, 0.002), metric("kv.get", 20, 1.0, 0.12)});
  storh::result::Metric get;
  get.key = "kv.get";
  get.seconds.median = 20e-6;  // too short to time reliably
  get.seconds.runs = 20;
  aa.head.metrics.push_back(get);
  const storh::ab::Calibration c = storh::ab::calibrate(aa, 0.01);
  REQUIRE(c.metrics.size() == 2);
  const auto& quiet = c.metrics[1].key == "kv.put" ? c.metrics[1] : c.metrics[0];
  const auto& noisy = c.metrics[1].key == "kv.put" ? c.metrics[0] : c.metrics[1];
  CHECK(quiet.detectable_percent < noisy.detectable_percent);
  CHECK(quiet.floor_percent < quiet.detectable_percent);
  CHECK(quiet.warnings.empty());
  REQUIRE(noisy.warnings.size() == 2);
  CHECK(storh::test::contains(noisy.warnings[0], "too short to time reliably"));
  CHECK(storh::test::contains(noisy.warnings[1], "pairs, a longer step"));

  storh::test::ScratchDir dir;
  REQUIRE(storh::ab::write_calibration(dir / "c.json", c).empty());
  const auto read = storh::ab::read_calibration(dir / "c.json");
  REQUIRE(read);
  CHECK(storh::ab::noise_by_key(*read).at("kv.get") == noisy.noise);
  storh::test::write_text(dir / "bad.json", "{\"format\": \"something\"}");
  const auto bad = storh::ab::read_calibration(dir / "bad.json");
  REQUIRE_FALSE(bad);
  CHECK(storh::test::contains(bad.error(), "not a calibration file"));
}

TEST_CASE("calibrate: a min_time step is not too short, whatever one call takes",
          "[ab][calibrate][min_time]") {
  AbResult aa = result_with({metric("kv.get", 20, 1.0, 0.002)});
  storh::result::Metric get;
  get.key = "kv.get";
  get.seconds.median = 2e-6;           // one call
  get.samples = {{2e-6, 100, 10000}};  // ... of a 20 ms batch
  aa.head.metrics.push_back(get);
  const storh::ab::Calibration c = storh::ab::calibrate(aa, 0.01);
  REQUIRE(c.metrics.size() == 1);
  CHECK(c.metrics[0].warnings.empty());
}

TEST_CASE("calibrate: the stored-baseline gate is raised to each metric's calibrated floor",
          "[ab][calibrate]") {
  storh::ab::Calibration c;
  c.metrics.push_back({"doc.put", 10, 1e-3, 0.05, 12.0, 8.0, 4.0, 25.0, {}});
  c.metrics.push_back({"uuid.validate", 10, 1e-3, 0.01, 2.0, 1.0, 1.0, 4.0, {}});
  storh::gate::GateOptions options;
  options.threshold_percent = 10;
  const auto raised = storh::ab::raise_to_calibrated_floors(options, c);
  CHECK(raised == std::vector<std::string>{"doc.put"});
  CHECK(storh::gate::threshold_for(options, "doc.put").first == 25.0);
  CHECK(storh::gate::threshold_for(options, "uuid.validate").first == 10.0);
  // A configured per-metric threshold above the floor stays.
  options.metric_thresholds = {{"doc.put", 40}};
  CHECK(storh::ab::raise_to_calibrated_floors(options, c).empty());
}

namespace {

storh::result::Environment machine(const std::string& cpu, unsigned cores) {
  storh::result::Environment e;
  e.cpu_model = cpu;
  e.cpu_count = cores;
  e.kernel = "Linux 6.1.0";
  e.work_dir_filesystem = "ext4";
  return e;
}

const storh::ab::Recalibration how_to_calibrate{
    "storh-host calibrate s.toml --pairs=20 --calibration=c.json",
    "about 2m00s at this run's pace"};

}  // namespace

TEST_CASE("calibrate: a calibration from another machine is not applied, and says why",
          "[ab][calibrate]") {
  storh::ab::Calibration c;
  c.environment = machine("AMD EPYC", 2);
  CHECK(storh::ab::calibration_mismatch(c, "c.json", machine("AMD EPYC", 2), "run noise",
                                        how_to_calibrate)
            .empty());
  storh::result::Environment here = machine("Intel Xeon", 4);
  here.kernel = "Linux 6.18.0";
  here.work_dir_filesystem = "tmpfs";
  here.os = "another OS";  // not a reason: the noise does not depend on it
  CHECK(storh::ab::calibration_mismatch(c, "c.json", here, "the run's own noise decides",
                                        how_to_calibrate) ==
        "calibration c.json was measured on another machine (cpu_model \"AMD EPYC\" there, "
        "\"Intel Xeon\" here; cpu_count 2 there, 4 here; kernel \"Linux 6.1.0\" there, "
        "\"Linux 6.18.0\" here; work_dir_filesystem \"ext4\" there, \"tmpfs\" here): not applied, "
        "the run's own noise decides; calibrate this machine with `storh-host calibrate s.toml "
        "--pairs=20 --calibration=c.json` (about 2m00s at this run's pace)");
  // Without an estimate, no duration.
  CHECK(storh::ab::calibration_mismatch(c, "c.json", machine("AMD EPYC", 4), "x",
                                        {"storh-host calibrate s.toml", ""})
            .ends_with("with `storh-host calibrate s.toml`"));
}

TEST_CASE("calibrate: a file without an environment is from an unknown machine",
          "[ab][calibrate]") {
  storh::test::ScratchDir dir;
  storh::ab::Calibration c;
  c.environment = machine("AMD EPYC", 2);
  REQUIRE(storh::ab::write_calibration(dir / "c.json", c).empty());
  auto read = storh::ab::read_calibration(dir / "c.json");
  REQUIRE(read);
  REQUIRE(read->environment);
  CHECK(read->environment->cpu_count == 2);
  nlohmann::json old = storh::test::read_json(dir / "c.json");
  old.erase("environment");  // as written before calibrations recorded it
  storh::test::write_text(dir / "old.json", old.dump());
  read = storh::ab::read_calibration(dir / "old.json");
  REQUIRE(read);
  CHECK_FALSE(read->environment);
  CHECK(storh::ab::calibration_mismatch(*read, "old.json", machine("AMD EPYC", 2), "x",
                                        how_to_calibrate)
            .starts_with("calibration old.json records no environment (written before "
                         "calibrations recorded one), so it is from an unknown machine: not "
                         "applied, x; calibrate this machine with `storh-host calibrate"));
  old["environment"] = {{"cpu_model", 7}};
  storh::test::write_text(dir / "bad.json", old.dump());
  read = storh::ab::read_calibration(dir / "bad.json");
  REQUIRE_FALSE(read);
  CHECK(storh::test::contains(read.error(), "bad.json: /environment"));
}

TEST_CASE("calibrate: the time to calibrate scales this run's worker time to the pairs",
          "[ab][calibrate]") {
  storh::result::ResultFile base, head;
  head.experiment.repeat = base.experiment.repeat = 10;  // pairs
  head.experiment.warmup = base.experiment.warmup = 0;
  for (int i = 0; i < 10; ++i) {
    base.runs.push_back({"kv", 10, {}, i, true, 1.0, 0, 0});
    head.runs.push_back({"kv", 10, {}, i, true, 1.0, 0, 0});
  }
  // 20 runs of 1 s for 10 pairs: 20 pairs take 40 s.
  CHECK(storh::ab::calibration_seconds({&base, &head}, 20) == Approx(40));
  // One run of 5 repeats (5 s): 20 pairs are 40 runs.
  head.experiment.repeat = 5;
  head.runs.resize(5);
  CHECK(storh::ab::calibration_seconds({&head}, 20) == Approx(40));
  CHECK(storh::ab::calibration_seconds({}, 20) == 0);
}

TEST_CASE("ab: a wall-time regression fails only when the confirmation set agrees", "[ab]") {
  AbResult r = result_with({metric("kv.put", 12, 1.10)});
  auto outcome = storh::ab::judge(r, {});
  REQUIRE(outcome);
  CHECK(only_check(*outcome).state == AbState::regression);
  CHECK(storh::ab::unconfirmed_regressions(*outcome) == std::set<std::string>{"kv.put"});

  r.confirmation = {metric("kv.put", 12, 1.10)};
  outcome = storh::ab::judge(r, {});
  REQUIRE(outcome);
  const auto& confirmed = only_check(*outcome);
  CHECK(confirmed.state == AbState::regression);
  CHECK(confirmed.failed);
  REQUIRE(confirmed.confirmation);
  CHECK(confirmed.confirmation->agreed);
  CHECK(storh::test::contains(confirmed.notes.at(0), "confirmed: the confirmation set regressed"));
  CHECK(storh::ab::unconfirmed_regressions(*outcome).empty());
  auto report = storh::ab::render(r, *outcome, storh::compare::OutputFormat::text, 0.01);
  CHECK(storh::test::contains(report.out, "REGRESSION confirmed FAIL"));

  r.confirmation = {metric("kv.put", 12, 1.0)};
  outcome = storh::ab::judge(r, {});
  REQUIRE(outcome);
  const auto& unconfirmed = only_check(*outcome);
  CHECK(unconfirmed.state == AbState::unconfirmed);
  CHECK_FALSE(unconfirmed.failed);
  CHECK(outcome->passed());
  CHECK(storh::test::contains(unconfirmed.notes.at(0),
                              "not confirmed: the confirmation set did "
                              "not regress (12 fresh pair(s)"));
  report = storh::ab::render(r, *outcome, storh::compare::OutputFormat::markdown, 0.01);
  CHECK(storh::test::contains(report.out, "| not confirmed |"));
  CHECK(storh::test::contains(report.out, "Confirmation:\n\n- `kv.put`: not confirmed"));
  report = storh::ab::render(r, *outcome, storh::compare::OutputFormat::json, 0.01);
  const auto verdict = nlohmann::json::parse(report.out.substr(0, report.out.rfind("A/B gate")));
  CHECK(verdict["checks"][0]["state"] == "not confirmed");
  CHECK(verdict["checks"][0]["confirmation"]["agreed"] == false);
  CHECK(verdict["checks"][0]["confirmation"]["pairs"] == 12);
}

TEST_CASE("ab: the reports show both sets of a confirmed metric, each with its own change",
          "[ab]") {
  AbResult r = result_with({metric("kv.put", 12, 1.10)});
  r.confirmation = {metric("kv.put", 12, 1.0)};
  const auto outcome = storh::ab::judge(r, {});
  REQUIRE(outcome);
  const auto text = storh::ab::render(r, *outcome, storh::compare::OutputFormat::text, 0.01);
  const auto first = text.out.find("\nkv.put ");
  const auto second = text.out.find("\nkv.put (confirmation) ");
  REQUIRE(first != std::string::npos);
  REQUIRE(second != std::string::npos);
  CHECK(first < second);
  // Each row its own set's change: about +10% for the first, about 0 for the second.
  const std::string first_row = text.out.substr(first + 1, text.out.find('\n', first + 1) - first);
  const std::string second_row =
      text.out.substr(second + 1, text.out.find('\n', second + 1) - second);
  CHECK(storh::test::contains(first_row, "+10."));
  CHECK(storh::test::contains(second_row, "did not regress"));
  CHECK_FALSE(storh::test::contains(second_row, "+10."));

  const storh::report::HtmlAssets assets{"/* chart.js */", "3.9.1"};
  const auto html = storh::ab::render_html(r, *outcome, 0.01, assets);
  // The chart's labels: one bar per set, the confirmation's right after its metric's;
  // and a table row for each.
  CHECK(storh::test::contains(html.out, R"x("labels":["kv.put","kv.put (confirmation)"])x"));
  const auto body = html.out.substr(html.out.find("<tbody>"));
  CHECK(storh::test::contains(body, "(confirmation)</td>"));
  CHECK(storh::test::contains(body, "did not regress</td>"));

  // Without a confirmation set, no such row or bar.
  r.confirmation.clear();
  const auto plain = storh::ab::judge(r, {});
  REQUIRE(plain);
  CHECK_FALSE(
      storh::test::contains(storh::ab::render_html(r, *plain, 0.01, assets).out, "(confirmation)"));
}

TEST_CASE("ab: a metric whose counter rose fails at once, without confirmation", "[ab]") {
  AbResult r = result_with({metric("kv.put", 12, 1.10)});
  storh::result::Metric put;
  put.key = "kv.put";
  put.engine = "kv";
  put.operation = "put";
  put.counters = {{"fsync", 1}};
  r.base.metrics.push_back(put);
  put.counters = {{"fsync", 2}};
  r.head.metrics.push_back(put);
  storh::ab::AbGateOptions options;
  options.counter_tolerances = {{"fsync", 0}};
  auto outcome = storh::ab::judge(r, options);
  REQUIRE(outcome);
  const auto& check = only_check(*outcome);
  CHECK(check.state == AbState::regression);
  CHECK(check.counters_rose);
  CHECK(check.failed);
  CHECK(outcome->failures == 2);  // the time and the counter
  CHECK(storh::ab::unconfirmed_regressions(*outcome).empty());
  CHECK(storh::test::contains(check.notes.at(0), "a counter rose: failed without a confirmation"));
  // A set that would not confirm changes nothing: the counter decided.
  r.confirmation = {metric("kv.put", 12, 1.0)};
  outcome = storh::ab::judge(r, options);
  REQUIRE(outcome);
  CHECK(only_check(*outcome).failed);
  CHECK_FALSE(only_check(*outcome).confirmation);
}

TEST_CASE("ab: the confirmation set round-trips through the file, and older files read", "[ab]") {
  AbResult r = result_with({metric("kv.put", 8, 1.1)});
  const nlohmann::json without = storh::ab::to_json(r, 0.01);
  CHECK_FALSE(without["ab"].contains("confirmation"));  // an older file looks the same
  auto read = storh::ab::ab_from_json(without, "ab.json");
  REQUIRE(read);
  CHECK(read->confirmation.empty());
  r.confirmation = {metric("kv.put", 8, 1.0)};
  nlohmann::json with = storh::ab::to_json(r, 0.01);
  CHECK(with["ab"]["confirmation"][0]["key"] == "kv.put");
  CHECK(with["ab"]["confirmation"][0]["analysis"]["pairs"] == 8);
  read = storh::ab::ab_from_json(with, "ab.json");
  REQUIRE(read);
  REQUIRE(read->confirmation.size() == 1);
  CHECK(read->confirmation[0].pairs[5].head == r.confirmation[0].pairs[5].head);
  with["ab"]["confirmation"] = 3;
  read = storh::ab::ab_from_json(with, "ab.json");
  REQUIRE_FALSE(read);
  CHECK(storh::test::contains(read.error(), "/ab/confirmation: expected an array"));
}
