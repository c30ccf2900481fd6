// Hand-built result files for the compare and gate tests: a storh-host result from a
// list of metrics with their samples, and the storh PHP reference files.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "compare/comparable.h"
#include "foreign/read_result.h"
#include "result/json.h"
#include "stats/stats.h"
#include "test_support.h"

namespace storh::test {

struct MetricSpec {
  std::string key;  // "doc.put", "cache.cold[validation=hash]"
  std::vector<double> samples;
  result::MetricDirection direction = result::MetricDirection::lower_is_better;
  std::string unit = "records";
};

// Everything a comparison looks at besides the metrics.
struct RunSpec {
  std::string fingerprint = "0123456789abcdef";
  std::string build_type = "Release";
  std::string cpu_model = "Test CPU @ 2.0GHz";
  std::string doc_version = "1.0.0";
  std::size_t failures = 0;
};

inline result::ResultFile make_result(const std::vector<MetricSpec>& metrics,
                                      const RunSpec& run = {}) {
  result::ResultFile r;
  result::Experiment& e = r.experiment;
  e.suite = "ci";
  e.suite_file = "suites/ci.toml";
  e.fingerprint = run.fingerprint;
  e.datasets = {1000};
  e.repeat = 8;
  e.host_version = "0.1.0";
  e.engines = {{"doc", run.doc_version, "plugins/storh_doc.so", {}},
               {"log", "1.0.0", "plugins/storh_log.so", {}}};
  e.work_dir = "/tmp/work";
  e.work_dir_cleanup = "removed";
  r.environment.os = "Debian GNU/Linux 12 (bookworm)";
  r.environment.cpu_model = run.cpu_model;
  r.environment.cpu_count = 2;
  r.environment.build_type = run.build_type;
  r.environment.time = "2026-11-30T03:22:07Z";
  for (const MetricSpec& spec : metrics) {
    result::Metric m;
    m.key = spec.key;
    m.engine = spec.key.substr(0, spec.key.find('.'));
    m.operation = spec.key.substr(m.engine.size() + 1);
    m.dataset = 1000;
    m.unit = spec.unit;
    m.direction = spec.direction;
    for (double seconds : spec.samples) m.samples.push_back({seconds, 1000});
    m.seconds = stats::summarize(spec.samples);
    m.rate = m.seconds.median > 0 ? 1000 / m.seconds.median : 0;
    r.metrics.push_back(m);
  }
  for (std::size_t i = 0; i < run.failures; ++i) {
    result::Failure f;
    f.engine = "log";
    f.dataset = 1000;
    f.repeat = static_cast<int>(i);
    f.operation = "recover";
    f.kind = storh::result::Failure::Kind::failed;
    f.message = "recover: counted 3 records, expected 4";
    r.failures.push_back(f);
  }
  return r;
}

inline compare::ComparableFile make_comparable(const std::vector<MetricSpec>& metrics,
                                               const std::string& name, const RunSpec& run = {}) {
  return compare::comparable_from_result(make_result(metrics, run), name);
}

// Writes a storh-host result file into `dir` and returns its path.
inline std::string write_result(const ScratchDir& dir, const std::string& name,
                                const std::vector<MetricSpec>& metrics, const RunSpec& run = {}) {
  const std::filesystem::path path = dir / name;
  const std::string error = result::write_result_file(path, make_result(metrics, run));
  if (!error.empty()) throw std::runtime_error(error);
  return path.string();
}

// A file under tests/fixtures ("gbench/base.json"), by its absolute path.
inline std::string fixture_file(const std::string& path) {
  return std::string(STORH_TEST_SOURCE_DIR) + "/tests/fixtures/" + path;
}

// A result file under tests/fixtures read as report and history read one
// (foreign/read_result.h: storh-host or Google Benchmark); a failure throws.
inline result::ResultFile read_fixture_result(const std::string& path) {
  auto read = foreign::read_result(fixture_file(path));
  if (!read) throw std::runtime_error(read.error());
  return *std::move(read);
}

inline std::string storh_php_fixture(const std::string& file) {
  return std::string(STORH_TEST_SOURCE_DIR) + "/tests/fixtures/storh-php/" + file;
}

// A storh PHP reference file, named by its file name only so output is the same in
// every checkout.
inline compare::ComparableFile load_storh_php(const std::string& file) {
  auto loaded = compare::read_comparable(storh_php_fixture(file));
  if (!loaded) throw std::runtime_error(loaded.error());
  loaded->name = file;
  return std::move(loaded).value();
}

// A result file under tests/fixtures/ ("golden/result-v1.json"), read as the host
// reads it; throws when it cannot be read.
inline result::ResultFile result_fixture(const std::string& name) {
  auto result =
      result::read_result_file(std::string(STORH_TEST_SOURCE_DIR) + "/tests/fixtures/" + name);
  if (!result) throw std::runtime_error(result.error());
  return std::move(result).value();
}

// Compares `text` with a golden file in tests/fixtures/golden/, or rewrites the
// golden file when STORH_UPDATE_GOLDEN is set. Returns whether they are equal.
inline bool matches_golden(const std::string& name, const std::string& text) {
  const std::string path = std::string(STORH_TEST_SOURCE_DIR) + "/tests/fixtures/golden/" + name;
  if (std::getenv("STORH_UPDATE_GOLDEN") != nullptr) write_text(path, text);
  return text == read_text(path);
}

}  // namespace storh::test
