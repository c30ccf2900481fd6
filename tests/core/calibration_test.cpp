// Calibration from A/A pairs with fixed samples: noise, floors, advice, the file, and
// when a stored calibration applies to the machine at hand.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ab/calibration.h"
#include "ab/verdict.h"
#include "ab_test_util.h"
#include "test_support.h"

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
