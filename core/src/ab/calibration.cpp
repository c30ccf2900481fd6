#include "ab/calibration.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ab/verdict.h"
#include "report/format.h"
#include "result/json.h"
#include "run/progress_line.h"
#include "util/files.h"
#include "util/json_input.h"
#include "util/json_node.h"
#include "util/secrets.h"

namespace storh::ab {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr double kShortStepSeconds = 100e-6;
constexpr double kGateTargetPercent = 5.0;  // the slowdown a CI gate should catch

const result::Metric* find_metric(const result::ResultFile& file, const std::string& key) {
  for (const result::Metric& m : file.metrics) {
    if (m.key == key) return &m;
  }
  return nullptr;
}

// Pairs needed for `noise` to detect kGateTargetPercent with 80% power at alpha.
std::size_t pairs_for_target(double noise, double alpha) {
  const double z = stats::normal_quantile(1 - alpha / 2) + stats::normal_quantile(kDetectablePower);
  const double effect = std::log(1 + kGateTargetPercent / 100);
  return static_cast<std::size_t>(std::ceil(std::pow(z * noise / effect, 2) / 0.955));
}

// `repeated`: the samples were min_time batches (measure_repeated), which last long
// enough whatever one call takes.
std::vector<std::string> advice(const CalibratedMetric& m, double alpha, bool repeated) {
  std::vector<std::string> warnings;
  if (!repeated && m.median_seconds > 0 && m.median_seconds < kShortStepSeconds) {
    warnings.push_back(fmt::format(
        "step lasts {}: too short to time reliably; use ctx.measure_repeated (min_time) "
        "or a larger dataset",
        report::format_seconds(m.median_seconds)));
  }
  if (m.detectable_percent > kGateTargetPercent) {
    warnings.push_back(fmt::format(
        "detectable {:.1f}% with {} pairs: a {:.0f}% slowdown needs about {} pairs, a longer "
        "step (larger dataset, min_time) or a quieter machine",
        m.detectable_percent, m.pairs, kGateTargetPercent, pairs_for_target(m.noise, alpha)));
  }
  return warnings;
}

}  // namespace

Calibration calibrate(const AbResult& aa, double alpha) {
  Calibration c;
  c.suite = aa.head.experiment.suite;
  c.fingerprint = aa.head.experiment.fingerprint;
  c.cpu_model = aa.head.environment.cpu_model;
  c.kernel = aa.head.environment.kernel;
  c.time = aa.head.environment.time;
  c.environment = aa.head.environment;
  c.pairs = aa.pairs;
  c.alpha = alpha;
  for (const PairedMetric& paired : aa.metrics) {
    if (paired.pairs.empty()) continue;
    const PairedSummary summary = summarize(paired, alpha);
    CalibratedMetric m;
    m.key = paired.key;
    m.pairs = summary.test.pairs;
    m.noise = summary.test.noise;
    m.detectable_percent = summary.detectable_percent;
    m.floor_percent = summary.noise_floor_percent;
    const result::Metric* head = find_metric(aa.head, paired.key);
    if (head != nullptr) {
      m.median_seconds = head->seconds.median;
      m.cv_percent =
          head->seconds.median > 0 ? head->seconds.stddev / head->seconds.median * 100 : 0;
      // Two independent runs of n samples: the variance of their log difference doubles.
      m.baseline_detectable_percent =
          stats::detectable_percent(std::sqrt(2.0) * std::log1p(m.cv_percent / 100),
                                    head->seconds.runs, alpha, kDetectablePower);
    }
    const bool repeated =
        head != nullptr && std::any_of(head->samples.begin(), head->samples.end(),
                                       [](const result::Sample& s) { return s.calls > 1; });
    m.warnings = advice(m, alpha, repeated);
    c.metrics.push_back(std::move(m));
  }
  return c;
}

std::vector<std::string> raise_to_calibrated_floors(gate::GateOptions& options,
                                                    const Calibration& calibration) {
  std::vector<std::string> raised;
  for (const CalibratedMetric& m : calibration.metrics) {
    if (m.baseline_detectable_percent > gate::threshold_for(options, m.key).first) {
      options.metric_thresholds.push_back({m.key, m.baseline_detectable_percent});
      raised.push_back(m.key);
    }
  }
  return raised;
}

std::string write_calibration(const std::filesystem::path& file, const Calibration& c) {
  ordered_json metrics = ordered_json::array();
  for (const CalibratedMetric& m : c.metrics) {
    metrics.push_back({{"key", m.key},
                       {"pairs", m.pairs},
                       {"median_seconds", m.median_seconds},
                       {"noise", m.noise},
                       {"detectable_percent", m.detectable_percent},
                       {"floor_percent", m.floor_percent},
                       {"cv_percent", m.cv_percent},
                       {"baseline_detectable_percent", m.baseline_detectable_percent},
                       {"warnings", m.warnings}});
  }
  ordered_json j = {{"format", "storh-calibration"},
                    {"version", 1},
                    {"suite", c.suite},
                    {"fingerprint", c.fingerprint},
                    {"cpu_model", c.cpu_model},
                    {"kernel", c.kernel},
                    {"time", c.time},
                    {"pairs", c.pairs},
                    {"alpha", c.alpha},
                    {"metrics", metrics}};
  if (c.environment) j["environment"] = result::environment_json(*c.environment);
  return write_file_atomically(file, j.dump(2, ' ', false, json::error_handler_t::replace) + "\n");
}

Expected<Calibration> read_calibration(const std::filesystem::path& file) {
  Expected<std::string> text = read_input_file(file);
  if (!text) return Error{text.error()};
  Expected<json> document = parse_json_input<json>(*text, file.string());
  if (!document) return Error{document.error()};
  const json& j = *document;
  if (!j.is_object() || !j.contains("format") || j.at("format") != "storh-calibration") {
    return Error{
        fmt::format("{}: not a calibration file (no \"format\": \"storh-calibration\"; "
                    "make one with storh-host calibrate SUITE)",
                    file.string())};
  }
  if (const json version = j.contains("version") ? j.at("version") : json(0); version != 1) {
    return Error{fmt::format("{}: calibration version {} is not supported (this host reads 1)",
                             file.string(), version.dump())};
  }
  try {
    const JsonNode n(j, "");
    Calibration c;
    c.suite = n.at("suite").str();
    c.fingerprint = n.at("fingerprint").str();
    c.cpu_model = n.at("cpu_model").str();
    c.kernel = n.at("kernel").str();
    c.time = n.at("time").str();
    c.pairs = static_cast<std::uint32_t>(n.at("pairs").count());
    c.alpha = n.at("alpha").number();
    for (const JsonNode& m : n.at("metrics").items()) {
      CalibratedMetric cm;
      cm.key = m.at("key").str();
      cm.pairs = m.at("pairs").count();
      cm.median_seconds = m.at("median_seconds").number();
      cm.noise = m.at("noise").number();
      cm.detectable_percent = m.at("detectable_percent").number();
      cm.floor_percent = m.at("floor_percent").number();
      cm.cv_percent = m.at("cv_percent").number();
      cm.baseline_detectable_percent = m.at("baseline_detectable_percent").number();
      cm.warnings = m.at("warnings").strings();
      if (!std::isfinite(cm.noise) || cm.noise < 0) {
        return Error{
            fmt::format("{}: metric \"{}\": noise must be a number >= 0", file.string(), cm.key)};
      }
      c.metrics.push_back(std::move(cm));
    }
    if (n.has("environment")) {
      Expected<result::Environment> environment =
          result::environment_from_json(j.at("environment"), "/environment");
      if (!environment) return Error{fmt::format("{}: {}", file.string(), environment.error())};
      c.environment = std::move(*environment);
    }
    return c;
  } catch (const BadJsonValue& bad) {
    return Error{fmt::format("{}: bad calibration file: {}", file.string(), bad.message)};
  }
}

std::string calibration_mismatch(const Calibration& calibration, const std::string& file,
                                 const result::Environment& here, std::string_view instead,
                                 const Recalibration& how) {
  std::string why;
  if (!calibration.environment) {
    why =
        "records no environment (written before calibrations recorded one), so it is from an "
        "unknown machine";
  } else {
    const result::Environment& there = *calibration.environment;
    std::vector<std::string> differences;
    auto differ = [&](const char* field, const std::string& a, const std::string& b) {
      if (a != b) differences.push_back(fmt::format("{} \"{}\" there, \"{}\" here", field, a, b));
    };
    differ("cpu_model", there.cpu_model, here.cpu_model);
    if (there.cpu_count != here.cpu_count) {
      differences.push_back(
          fmt::format("cpu_count {} there, {} here", there.cpu_count, here.cpu_count));
    }
    differ("kernel", there.kernel, here.kernel);
    differ("work_dir_filesystem", there.work_dir_filesystem, here.work_dir_filesystem);
    if (differences.empty()) return {};
    why = fmt::format("was measured on another machine ({})", fmt::join(differences, "; "));
  }
  return fmt::format("calibration {} {}: not applied, {}; calibrate this machine with `{}`{}", file,
                     why, instead, how.command,
                     how.duration.empty() ? "" : fmt::format(" ({})", how.duration));
}

double calibration_seconds(const std::vector<const result::ResultFile*>& sides,
                           std::uint32_t pairs) {
  if (sides.empty()) return 0;
  double wall = 0;
  for (const result::ResultFile* side : sides) {
    for (const result::Run& run : side->runs) wall += run.wall_seconds;
  }
  const result::Experiment& e = sides.front()->experiment;
  const double runs_per_cell = static_cast<double>(sides.size()) * (e.repeat + e.warmup);
  if (runs_per_cell <= 0) return 0;
  return wall * 2 * (pairs + e.warmup) / runs_per_cell;
}

Recalibration recalibration_for(std::vector<std::string> calibrate_args, std::uint32_t pairs,
                                const std::string& file,
                                const std::vector<const result::ResultFile*>& sides) {
  calibrate_args.insert(calibrate_args.begin(), {"storh-host", "calibrate"});
  calibrate_args.push_back(fmt::format("--pairs={}", pairs));
  calibrate_args.push_back("--calibration=" + file);
  const double seconds = calibration_seconds(sides, pairs);
  return {
      mask_secrets(fmt::format("{}", fmt::join(calibrate_args, " "))),
      seconds > 0 ? fmt::format("about {} at this run's pace", run::duration_text(seconds)) : ""};
}

std::map<std::string, double> noise_by_key(const Calibration& calibration) {
  std::map<std::string, double> noise;
  for (const CalibratedMetric& m : calibration.metrics) noise[m.key] = m.noise;
  return noise;
}

std::string render_calibration(const Calibration& c, compare::OutputFormat format) {
  const bool md = format == compare::OutputFormat::markdown;
  std::string out = fmt::format(
      "{}calibration of suite \"{}\" ({} A/A pairs per cell, alpha {}) on {}, {}\n{}",
      md ? "### " : "", c.suite, c.pairs, c.alpha, c.cpu_model, c.kernel, md ? "\n" : "");
  out += md ? "| metric | step | noise | A/B floor | A/B detectable | cv | baseline detectable |\n"
              "|---|---:|---:|---:|---:|---:|---:|\n"
            : fmt::format("{:<44} {:>10} {:>7} {:>9} {:>10} {:>7} {:>10}\n", "metric", "step",
                          "noise", "A/B floor", "detectable", "cv", "baseline");
  std::string warnings;
  for (const CalibratedMetric& m : c.metrics) {
    const std::string step = report::format_seconds(m.median_seconds);
    const std::string noise = fmt::format("{:.2f}%", std::expm1(m.noise) * 100);
    if (md) {
      out += fmt::format("| `{}` | {} | {} | {:.1f}% | {:.1f}% | {:.1f}% | {:.1f}% |\n", m.key,
                         step, noise, m.floor_percent, m.detectable_percent, m.cv_percent,
                         m.baseline_detectable_percent);
    } else {
      out += fmt::format("{:<44} {:>10} {:>7} {:>8.1f}% {:>9.1f}% {:>6.1f}% {:>9.1f}%\n", m.key,
                         step, noise, m.floor_percent, m.detectable_percent, m.cv_percent,
                         m.baseline_detectable_percent);
    }
    for (const std::string& w : m.warnings) warnings += fmt::format("warning: {}: {}\n", m.key, w);
  }
  return out + warnings;
}

}  // namespace storh::ab
