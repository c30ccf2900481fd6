#include "cli/ab_flags.h"

#include <algorithm>

#include <fmt/format.h>

#include "ab/flow.h"
#include "cli/gate_flags.h"
#include "cli/output.h"
#include "publish/junit.h"
#include "util/files.h"

namespace storh::cli {
namespace {

// --pairs over [gate.ab] pairs over the suite's repeat (calibrate: its own default).
Expected<std::uint32_t> pairs_of(const ParsedArgs& flags, const suite::Suite& suite,
                                 const AbCommandSettings& s) {
  const suite::AbGateSetting& suite_ab = suite.gate.ab;
  std::uint32_t pairs = s.calibrating ? ab::kDefaultCalibrationPairs : suite.repeat;
  if (suite_ab.pairs && !s.calibrating) pairs = *suite_ab.pairs;
  // An adaptive repeat is no number of pairs: the signed-rank test's p-value holds for
  // a count fixed before it looks, and stopping once the figures settle would bias it.
  if (suite.repeat_until && !suite_ab.pairs && !flags.has("pairs") && !s.calibrating) {
    return Error{fmt::format(
        "the suite's repeat is adaptive ({}), and ab needs a number of pairs fixed before "
        "it runs: its paired test's p-value does not hold when it stops once the figures "
        "settle; give --pairs=N (or [gate.ab] pairs = N in the suite)",
        suite::repeat_until_text(*suite.repeat_until))};
  }
  if (auto text = flags.last("pairs")) {
    Expected<std::uint64_t> value = whole_flag("pairs", *text, 1, ab::kMaxPairs);
    if (!value) return Error{value.error()};
    pairs = static_cast<std::uint32_t>(*value);
  }
  return pairs;
}

// --order, --seed and --inject-slowdown, and each side's setup.
Expected<ab::AbRunOptions> run_options(const ParsedArgs& flags) {
  ab::AbRunOptions run;
  if (auto order = flags.last("order")) {
    if (*order != "abba" && *order != "random") {
      return Error{fmt::format("--order: unknown order \"{}\" (valid: abba, random)", *order)};
    }
    run.order = *order == "abba" ? ab::Order::abba : ab::Order::random;
  }
  if (auto text = flags.last("seed")) {
    Expected<std::uint64_t> seed = whole_flag("seed", *text, 0, UINT64_MAX);
    if (!seed) return Error{seed.error()};
    run.seed = *seed;
  }
  const std::optional<std::string> inject = flags.last("inject-slowdown");
  if (inject) {
    Expected<double> fraction = number_flag("inject-slowdown", *inject);
    if (!fraction) return Error{fraction.error()};
    if (*fraction < 0 || *fraction > 10) {
      return Error{"--inject-slowdown: a fraction from 0 to 10 (0.05 = 5% slower)"};
    }
    run.head_inject_slowdown = *fraction;
  }
  auto setup = [&](const char* dir, const char* sets) {
    const std::optional<std::string> path = flags.last(dir);
    return ab::SideSetup{path ? std::vector<std::string>{*path} : std::vector<std::string>{},
                         flags.all(sets)};
  };
  run.base_setup = setup("base", "base-set");
  run.head_setup = setup("head", "head-set");
  if (inject) run.head_setup.sets.push_back("inject-slowdown=" + *inject);
  return run;
}

// --threshold, --metric, --alpha, --lenient and --counter over [gate.ab] and [gate].
Expected<ab::AbGateOptions> gate_options(const ParsedArgs& flags, const suite::Suite& suite,
                                         const AbCommandSettings& s) {
  ab::AbGateOptions gate;
  const suite::AbGateSetting& suite_ab = suite.gate.ab;
  if (suite_ab.threshold) gate.threshold_percent = *suite_ab.threshold;
  if (suite_ab.alpha) gate.alpha = *suite_ab.alpha;
  if (flags.has("metric")) {
    gate.metrics = flags.all("metric");
  } else if (s.use_suite_metrics) {
    for (const auto& metric : suite.gate.metrics) gate.metrics.push_back(metric.value);
  }
  Expected<GateFlagValues> values = read_gate_flags(flags.all("threshold"), flags.all("counter"));
  if (!values) return Error{values.error()};
  if (values->threshold_percent) gate.threshold_percent = *values->threshold_percent;
  gate.metric_thresholds = std::move(values->metric_thresholds);
  if (auto text = flags.last("alpha")) {
    Expected<double> alpha = number_flag("alpha", *text);
    if (!alpha) return Error{alpha.error()};
    gate.alpha = *alpha;
  }
  gate.lenient_too_few = flags.has("lenient");
  for (const auto& [counter, percent] : suite.gate.counter_tolerances) {
    gate.counter_tolerances.push_back({counter.value, percent});
  }
  gate.counter_tolerances.insert(gate.counter_tolerances.end(), values->counter_tolerances.begin(),
                                 values->counter_tolerances.end());
  if (std::string problem = ab::validate(gate); !problem.empty()) return Error{problem};
  return gate;
}

// --junit and --format: what the verdict is written as.
Expected<ResolvedAb> output_options(const ParsedArgs& flags, const AbCommandSettings& s,
                                    ResolvedAb r) {
  const std::optional<std::string> junit = flags.last("junit");
  if (junit && s.calibrating) {
    return Error{"--junit: calibrate has no verdict to report (ab and gate take --junit)"};
  }
  if (junit) {
    if (std::string problem = check_output_file(*junit); !problem.empty()) {
      return Error{"--junit: " + problem};
    }
    r.junit = junit;
  }
  const std::optional<std::string> format = flags.last("format");
  if (format && *format == "html" && !s.calibrating) {
    Expected<report::HtmlAssets> assets = report::load_html_assets();
    if (!assets) return Error{assets.error()};
    r.html = std::move(*assets);
  } else {
    Expected<compare::OutputFormat> parsed =
        output_format(flags, false, s.calibrating ? "" : ", html");
    if (!parsed) return Error{parsed.error()};
    r.format = *parsed;
  }
  return r;
}

}  // namespace

Expected<ResolvedAb> resolve_ab_flags(const ParsedArgs& flags, const suite::Suite& suite,
                                      const AbCommandSettings& s) {
  ResolvedAb r;
  Expected<std::uint32_t> pairs = pairs_of(flags, suite, s);
  if (!pairs) return Error{pairs.error()};
  r.pairs = *pairs;
  // Twice the first set's pairs by default: only cells that regressed run them, and the
  // confirmation must reach alpha on its own (ab/verdict.h), which more pairs make
  // likelier for a real slowdown and no likelier for noise.
  r.confirm_pairs = std::min<std::uint32_t>(2 * r.pairs, ab::kMaxPairs);
  if (suite.gate.ab.confirm_pairs) r.confirm_pairs = *suite.gate.ab.confirm_pairs;
  if (auto text = flags.last("confirm-pairs")) {
    Expected<std::uint64_t> value = whole_flag("confirm-pairs", *text, 1, ab::kMaxPairs);
    if (!value) return Error{value.error()};
    r.confirm_pairs = static_cast<std::uint32_t>(*value);
  }
  Expected<ab::AbRunOptions> run = run_options(flags);
  if (!run) return Error{run.error()};
  r.run = std::move(*run);
  r.run.counting_pass = !s.calibrating;  // noise is about time: counts add nothing
  Expected<ab::AbGateOptions> gate = gate_options(flags, suite, s);
  if (!gate) return Error{gate.error()};
  r.gate = std::move(*gate);
  std::optional<std::string> calibration = flags.last("calibration");
  if (!calibration && suite.gate.ab.calibration && !s.calibrating) {
    calibration = suite.gate.ab.calibration->value;
  }
  if (calibration && !s.calibrating) {
    Expected<ab::Calibration> loaded = ab::read_calibration(*calibration);
    if (!loaded) return Error{loaded.error() + " (make one with: storh-host calibrate SUITE)"};
    r.calibration = ab::CalibrationSetting{std::move(*loaded), *calibration};
  }
  r.output = flags.last("output");
  return output_options(flags, s, std::move(r));
}

ab::AbReport render_verdict(const ab::AbResult& result, const ab::AbOutcome& outcome,
                            const ResolvedAb& resolved) {
  if (resolved.html) return ab::render_html(result, outcome, resolved.gate.alpha, *resolved.html);
  return ab::render(result, outcome, resolved.format, resolved.gate.alpha);
}

int write_junit_if_asked(const std::string& command, const ResolvedAb& resolved,
                         const ab::AbOutcome& outcome, const std::string& origin,
                         const CommandIo& io) {
  if (!resolved.junit) return kExitOk;
  return write_junit(command, publish::ab_junit(outcome, origin), *resolved.junit, io);
}

}  // namespace storh::cli
