// Result files for history tests: one real result (a fixture from a real run) repeated
// as a series of runs, each with its own commit and time, its samples scaled by a
// deterministic noise of up to +-3%, and one metric made `factor` times slower from
// run `step_at` (1-based) on. Used by the history tests and, through
// write_stepped_results, by the browser test's history page.
#pragma once

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "result/json.h"
#include "stats/stats.h"

namespace storh::test {

struct SteppedSeries {
  std::filesystem::path base;  // a storh-host result file
  int runs = 20;
  int step_at = 11;
  double factor = 1.2;
  std::string metric = "uuid.monotonic";
  double base_scale = 1;  // every run's samples times this, before the step
  std::uint32_t seed = 7;
};

// The commit of run `run` (1-based): 40 hex digits, the run number in the first 8.
inline std::string stepped_commit(int run) {
  return fmt::format("{:08x}{:032x}", 0xc0ffee00 + run, 0);
}

// The results in run order. Throws std::runtime_error when the base cannot be read.
inline std::vector<result::ResultFile> stepped_results(const SteppedSeries& spec) {
  Expected<result::ResultFile> base = result::read_result_file(spec.base);
  if (!base) throw std::runtime_error(base.error());
  std::mt19937 random(spec.seed);
  std::uniform_real_distribution<double> noise(0.97, 1.03);
  std::vector<result::ResultFile> out;
  for (int run = 1; run <= spec.runs; ++run) {
    result::ResultFile one = *base;
    one.experiment.git_commit = stepped_commit(run);
    one.environment.time = fmt::format("2026-11-{:02}T10:00:00Z", run);
    for (result::Metric& metric : one.metrics) {
      const double scale = spec.base_scale * noise(random) *
                           (metric.key == spec.metric && run >= spec.step_at ? spec.factor : 1);
      std::vector<double> seconds;
      for (result::Sample& sample : metric.samples) {
        sample.seconds *= scale;
        seconds.push_back(sample.seconds);
      }
      metric.seconds = stats::summarize(seconds);
      metric.rate /= scale;
    }
    out.push_back(std::move(one));
  }
  return out;
}

// Writes stepped_results as DIR/run-01.json, ...; returns the paths in run order.
inline std::vector<std::filesystem::path> write_stepped_results(const SteppedSeries& spec,
                                                                const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::vector<std::filesystem::path> files;
  int run = 0;
  for (const result::ResultFile& one : stepped_results(spec)) {
    files.push_back(dir / fmt::format("run-{:02}.json", ++run));
    if (std::string error = result::write_result_file(files.back(), one); !error.empty()) {
      throw std::runtime_error(error);
    }
  }
  return files;
}

}  // namespace storh::test
