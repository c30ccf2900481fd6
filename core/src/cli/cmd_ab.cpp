// `storh-host ab`, `storh-host calibrate` and `storh-host ci --base=DIR`: a suite run
// for two sides in pairs (ab/ab_runner.h), judged from the paired ratios
// (ab/verdict.h), or, with both sides the same plugins, a calibration of the noise.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "ab/ab_runner.h"
#include "ab/calibration.h"
#include "ab/verdict.h"
#include "cli/ab_command.h"
#include "cli/execute.h"
#include "cli/gate_flags.h"
#include "cli/output.h"
#include "publish/junit.h"
#include "run/progress_line.h"
#include "stats/paired.h"
#include "util/files.h"
#include "util/json_input.h"
#include "util/secrets.h"

namespace storh::cli {
namespace {

constexpr std::uint32_t kDefaultCalibrationPairs = 20;

// Removes every `--name=V` and `--name V` from `args` and returns the values in order,
// so the rest can go to prepare() unchanged.
std::vector<std::string> take_valued(std::vector<std::string>& args, const std::string& name) {
  std::vector<std::string> values;
  const std::string flag = "--" + name;
  for (std::size_t i = 0; i < args.size();) {
    if (args[i] == "--") break;
    if (args[i].starts_with(flag + "=")) {
      values.push_back(args[i].substr(flag.size() + 1));
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (args[i] == flag && i + 1 < args.size()) {
      values.push_back(args[i + 1]);
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
                 args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
    } else {
      ++i;
    }
  }
  return values;
}

std::optional<std::string> take_last(std::vector<std::string>& args, const std::string& name) {
  std::vector<std::string> values = take_valued(args, name);
  if (values.empty()) return std::nullopt;
  return values.back();
}

bool take_switch(std::vector<std::string>& args, const std::string& name) {
  const auto before = args.size();
  std::erase(args, "--" + name);
  return args.size() != before;
}

// What the A/B flags said; everything else goes to prepare() as a run's flags.
struct AbFlags {
  std::optional<std::string> base_dir, head_dir;
  std::vector<std::string> base_sets, head_sets;
  std::optional<std::string> pairs, confirm_pairs, order, seed, alpha, calibration, format, output,
      inject, junit;
  std::vector<std::string> thresholds, metrics, counters;
  bool lenient = false;
};

AbFlags take_ab_flags(std::vector<std::string>& args) {
  AbFlags f;
  f.base_dir = take_last(args, "base");
  f.head_dir = take_last(args, "head");
  f.base_sets = take_valued(args, "base-set");
  f.head_sets = take_valued(args, "head-set");
  f.pairs = take_last(args, "pairs");
  f.confirm_pairs = take_last(args, "confirm-pairs");
  f.order = take_last(args, "order");
  f.seed = take_last(args, "seed");
  f.alpha = take_last(args, "alpha");
  f.calibration = take_last(args, "calibration");
  f.format = take_last(args, "format");
  f.output = take_last(args, "output");
  f.inject = take_last(args, "inject-slowdown");
  f.junit = take_last(args, "junit");
  f.thresholds = take_valued(args, "threshold");
  f.metrics = take_valued(args, "metric");
  f.counters = take_valued(args, "counter");
  f.lenient = take_switch(args, "lenient");
  return f;
}

// One side: the run's flags with this side's plugin directory searched first and
// its parameter overrides last (so they win).
std::optional<Prepared> prepare_side(const std::vector<std::string>& args,
                                     const std::optional<std::string>& dir,
                                     const std::vector<std::string>& sets, const char* side,
                                     const AbCommandSettings& settings, const CommandIo& io) {
  // Checked here so that the message names the flag the user gave (--base / --head).
  if (std::vector<suite::SuiteError> errors;
      dir && !check_plugin_dirs({{*dir, suite::SourcePos{fmt::format("--{}", side)}}}, errors)) {
    print_errors(errors, io.err);
    return std::nullopt;
  }
  std::vector<std::string> side_args;
  if (dir) side_args.push_back("--plugin-path=" + *dir);
  side_args.insert(side_args.end(), args.begin(), args.end());
  for (const std::string& set : sets) {
    side_args.push_back("--set");
    side_args.push_back(set);
  }
  PrepareOptions options;
  options.default_suite = settings.default_suite;
  std::optional<Prepared> prepared = prepare(side_args, io, options);
  if (!prepared) return std::nullopt;
  for (const auto& [engine, message] : prepared->load_errors) {
    io.err << fmt::format("storh-host {}: {}: engine \"{}\": {}\n", settings.command, side, engine,
                          message);
  }
  if (!prepared->load_errors.empty()) return std::nullopt;
  if (dir) {
    std::error_code ec;
    const auto wanted = std::filesystem::weakly_canonical(*dir, ec);
    for (const auto& [engine, description] : prepared->descriptions) {
      const auto found = std::filesystem::weakly_canonical(description.file.parent_path(), ec);
      if (found != wanted) {
        io.err << fmt::format(
            "storh-host {}: {}: {} has no storh_{}.so (the only one found is {}); each side must "
            "bring every engine of the suite\n",
            settings.command, side, *dir, engine, description.file.string());
        return std::nullopt;
      }
    }
  }
  return prepared;
}

// "build/bench-ci.json" -> "build/bench-ci-ab.json" (or "-calibration").
std::filesystem::path with_suffix(const std::filesystem::path& output, const std::string& suffix) {
  std::filesystem::path path = output;
  const std::string extension = path.has_extension() ? path.extension().string() : ".json";
  path.replace_filename(path.stem().string() + suffix + extension);
  return path;
}

struct Resolved {
  ab::AbRunOptions run;
  std::uint32_t pairs = 1;          // per cell: each side's plan repeats this often
  std::uint32_t confirm_pairs = 2;  // the confirmation set's pairs per cell
  ab::AbGateOptions gate;
  compare::OutputFormat format = compare::OutputFormat::text;
  std::optional<report::HtmlAssets> html;  // --format=html: the page's library
  std::optional<std::string> junit;        // --junit=FILE: the verdict as JUnit XML too
  // --calibration or [gate.ab] calibration, applied once the run's machine is known.
  std::optional<ab::Calibration> calibration;
  std::string calibration_file;
};

// `storh-host calibrate ...` for the suite and plugins at hand, writing `file`.
std::string calibrate_command_line(std::vector<std::string> run_args, std::uint32_t pairs,
                                   const std::string& file) {
  run_args.insert(run_args.begin(), {"storh-host", "calibrate"});
  run_args.push_back(fmt::format("--pairs={}", pairs));
  run_args.push_back("--calibration=" + file);
  return mask_secrets(fmt::format("{}", fmt::join(run_args, " ")));
}

// Gives the gate the calibrated noise when the calibration was measured on the machine
// `result` ran on. Else the gate keeps the run's own paired noise and the returned
// warning says why and how to calibrate here (empty when it applies, or there is none).
std::string apply_calibration(Resolved& resolved, const ab::AbResult& result,
                              const std::vector<std::string>& run_args) {
  if (!resolved.calibration) return {};
  const ab::Calibration& calibration = *resolved.calibration;
  const double seconds = ab::calibration_seconds({&result.base, &result.head}, calibration.pairs);
  const ab::Recalibration how{
      calibrate_command_line(run_args, calibration.pairs, resolved.calibration_file),
      seconds > 0 ? fmt::format("about {} at this run's pace", run::duration_text(seconds)) : ""};
  std::string warning = ab::calibration_mismatch(
      calibration, resolved.calibration_file, result.head.environment,
      "each metric's threshold comes from this run's own paired noise", how);
  if (warning.empty()) resolved.gate.calibrated_noise = ab::noise_by_key(calibration);
  return warning;
}

// Writes the verdict's JUnit file when --junit asked for one; `origin` names what was
// judged (the A/B result file). kExitOk, or the write's failure code.
int write_junit_if_asked(const std::string& command, const Resolved& resolved,
                         const ab::AbOutcome& outcome, const std::string& origin,
                         const CommandIo& io) {
  if (!resolved.junit) return kExitOk;
  return write_junit(command, publish::ab_junit(outcome, origin), *resolved.junit, io);
}

// The verdict in the format asked for.
ab::AbReport render_verdict(const ab::AbResult& result, const ab::AbOutcome& outcome,
                            const Resolved& resolved) {
  if (resolved.html) return ab::render_html(result, outcome, resolved.gate.alpha, *resolved.html);
  return ab::render(result, outcome, resolved.format, resolved.gate.alpha);
}

// Said before anything runs: pairs that the signed-rank test cannot decide on would
// only end in "too few pairs" for every metric. Empty when the pairs can decide (or
// --lenient asked to run without gating them).
std::string undecidable_pairs(const Resolved& r) {
  const std::size_t needed = stats::min_pairs_for(r.gate.alpha);
  if (r.gate.lenient_too_few || r.pairs >= needed) return {};
  return fmt::format(
      "{} pair(s) cannot decide anything at alpha {}: the paired test's smallest p-value with "
      "{} pair(s) is {:.3g}, so it needs at least {} (use --pairs={}, or --alpha, or --lenient "
      "to run without gating them)",
      r.pairs, r.gate.alpha, r.pairs, 2.0 / std::pow(2.0, r.pairs), needed, needed);
}

// Flags over the suite's [gate.ab] over the defaults.
Expected<Resolved> resolve(const AbFlags& flags, const Prepared& head, const AbCommandSettings& s) {
  Resolved r;
  const suite::AbGateSetting& suite_ab = head.suite.gate.ab;
  r.pairs = s.calibrating ? kDefaultCalibrationPairs : head.suite.repeat;
  if (suite_ab.pairs && !s.calibrating) r.pairs = *suite_ab.pairs;
  // An adaptive repeat is no number of pairs: the signed-rank test's p-value holds for
  // a count fixed before it looks, and stopping once the figures settle would bias it.
  if (head.suite.repeat_until && !suite_ab.pairs && !flags.pairs && !s.calibrating) {
    return Error{fmt::format(
        "the suite's repeat is adaptive ({}), and ab needs a number of pairs fixed before "
        "it runs: its paired test's p-value does not hold when it stops once the figures "
        "settle; give --pairs=N (or [gate.ab] pairs = N in the suite)",
        suite::repeat_until_text(*head.suite.repeat_until))};
  }
  if (flags.pairs) {
    Expected<std::uint64_t> pairs = whole_flag("pairs", *flags.pairs, 1, ab::kMaxPairs);
    if (!pairs) return Error{pairs.error()};
    r.pairs = static_cast<std::uint32_t>(*pairs);
  }
  // Twice the first set's pairs by default: only cells that regressed run them, and the
  // confirmation must reach alpha on its own (ab/verdict.h), which more pairs make
  // likelier for a real slowdown and no likelier for noise.
  r.confirm_pairs = std::min<std::uint32_t>(2 * r.pairs, ab::kMaxPairs);
  if (suite_ab.confirm_pairs) r.confirm_pairs = *suite_ab.confirm_pairs;
  if (flags.confirm_pairs) {
    Expected<std::uint64_t> pairs =
        whole_flag("confirm-pairs", *flags.confirm_pairs, 1, ab::kMaxPairs);
    if (!pairs) return Error{pairs.error()};
    r.confirm_pairs = static_cast<std::uint32_t>(*pairs);
  }
  r.run.counting_pass = !s.calibrating;  // noise is about time: counts add nothing
  if (flags.order) {
    if (*flags.order != "abba" && *flags.order != "random") {
      return Error{
          fmt::format("--order: unknown order \"{}\" (valid: abba, random)", *flags.order)};
    }
    r.run.order = *flags.order == "abba" ? ab::Order::abba : ab::Order::random;
  }
  if (flags.seed) {
    Expected<std::uint64_t> seed = whole_flag("seed", *flags.seed, 0, UINT64_MAX);
    if (!seed) return Error{seed.error()};
    r.run.seed = *seed;
  }
  if (flags.inject) {
    Expected<double> fraction = number_flag("inject-slowdown", *flags.inject);
    if (!fraction) return Error{fraction.error()};
    if (*fraction < 0 || *fraction > 10) {
      return Error{"--inject-slowdown: a fraction from 0 to 10 (0.05 = 5% slower)"};
    }
    r.run.head_inject_slowdown = *fraction;
  }
  if (suite_ab.threshold) r.gate.threshold_percent = *suite_ab.threshold;
  if (suite_ab.alpha) r.gate.alpha = *suite_ab.alpha;
  if (!flags.metrics.empty()) {
    r.gate.metrics = flags.metrics;
  } else if (s.use_suite_metrics) {
    for (const auto& metric : head.suite.gate.metrics) r.gate.metrics.push_back(metric.value);
  }
  Expected<GateFlagValues> gate_flags = read_gate_flags(flags.thresholds, flags.counters);
  if (!gate_flags) return Error{gate_flags.error()};
  if (gate_flags->threshold_percent) r.gate.threshold_percent = *gate_flags->threshold_percent;
  r.gate.metric_thresholds = std::move(gate_flags->metric_thresholds);
  if (flags.alpha) {
    Expected<double> alpha = number_flag("alpha", *flags.alpha);
    if (!alpha) return Error{alpha.error()};
    r.gate.alpha = *alpha;
  }
  r.gate.lenient_too_few = flags.lenient;
  for (const auto& [counter, percent] : head.suite.gate.counter_tolerances) {
    r.gate.counter_tolerances.push_back({counter.value, percent});
  }
  r.gate.counter_tolerances.insert(r.gate.counter_tolerances.end(),
                                   gate_flags->counter_tolerances.begin(),
                                   gate_flags->counter_tolerances.end());
  std::optional<std::string> calibration = flags.calibration;
  if (!calibration && suite_ab.calibration && !s.calibrating) {
    calibration = suite_ab.calibration->value;
  }
  if (calibration && !s.calibrating) {
    Expected<ab::Calibration> loaded = ab::read_calibration(*calibration);
    if (!loaded) return Error{loaded.error() + " (make one with: storh-host calibrate SUITE)"};
    r.calibration = std::move(*loaded);
    r.calibration_file = *calibration;
  }
  if (std::string problem = ab::validate(r.gate); !problem.empty()) return Error{problem};
  if (flags.junit && s.calibrating) {
    return Error{"--junit: calibrate has no verdict to report (ab and gate take --junit)"};
  }
  if (flags.junit) {
    if (std::string problem = check_output_file(*flags.junit); !problem.empty()) {
      return Error{"--junit: " + problem};
    }
    r.junit = flags.junit;
  }
  if (flags.format && *flags.format == "html" && !s.calibrating) {
    Expected<report::HtmlAssets> assets = report::load_html_assets();
    if (!assets) return Error{assets.error()};
    r.html = std::move(*assets);
  } else if (flags.format) {
    const auto format = compare::parse_output_format(*flags.format);
    if (!format || *format == compare::OutputFormat::csv) {
      return Error{fmt::format("--format: unknown format \"{}\" (valid: text, md, json{})",
                               *flags.format, s.calibrating ? "" : ", html")};
    }
    r.format = *format;
  }
  r.run.base_setup = {
      flags.base_dir ? std::vector<std::string>{*flags.base_dir} : std::vector<std::string>{},
      flags.base_sets};
  r.run.head_setup = {
      flags.head_dir ? std::vector<std::string>{*flags.head_dir} : std::vector<std::string>{},
      flags.head_sets};
  if (flags.inject) r.run.head_setup.sets.push_back("inject-slowdown=" + *flags.inject);
  return r;
}

// Before the verdict: the metrics that regressed on wall time alone get a fresh set of
// pairs of their cells (ab::confirm), so one noisy set cannot fail them. Empty when
// done or nothing needed it, else why the confirmation could not run.
std::string confirm_wall_time(const std::string& command, const Prepared& head,
                              const Prepared& base, const Resolved& resolved, ab::AbResult& result,
                              const CommandIo& io) {
  if (result.head.interrupted) return {};
  Expected<ab::AbOutcome> first = ab::judge(result, resolved.gate);
  if (!first) return {};  // the verdict reports it
  const std::set<std::string> doubtful = ab::unconfirmed_regressions(*first);
  if (doubtful.empty()) return {};
  io.err << fmt::format(
      "storh-host {}: {} metric(s) regressed on wall time alone ({}); confirming with {} fresh "
      "pair(s) of their cell(s)\n",
      command, doubtful.size(), fmt::join(doubtful, ", "), resolved.confirm_pairs);
  return ab::confirm(head.suite, base.plan, head.plan, resolved.confirm_pairs, resolved.run,
                     doubtful, result);
}

}  // namespace

int run_ab_command(const std::vector<std::string>& raw_args, const CommandIo& io,
                   const AbCommandSettings& settings) {
  InterruptGuard guard;
  std::vector<std::string> args = raw_args;
  const AbFlags flags = take_ab_flags(args);
  if (!settings.calibrating && !flags.base_dir && !flags.head_dir && flags.base_sets.empty() &&
      flags.head_sets.empty() && !flags.inject) {
    io.err << fmt::format(
        "storh-host {}: nothing tells the sides apart: give --base=DIR (and --head=DIR), or "
        "--base-set/--head-set ENGINE.PARAM=V\n",
        settings.command);
    return kExitBadInput;
  }
  std::optional<Prepared> base =
      prepare_side(args, flags.base_dir, flags.base_sets, "base", settings, io);
  if (!base) return kExitBadInput;
  std::optional<Prepared> head =
      prepare_side(args, flags.head_dir, flags.head_sets, "head", settings, io);
  if (!head) return kExitBadInput;
  Expected<Resolved> resolved = resolve(flags, *head, settings);
  if (resolved && !settings.calibrating) {
    if (std::string problem = undecidable_pairs(*resolved); !problem.empty())
      resolved = Error{problem};
  }
  if (!resolved) {
    io.err << fmt::format("storh-host {}: {}\n", settings.command, resolved.error());
    return kExitBadInput;
  }
  resolved->run.runner.host_executable = io.environment.host_executable;
  resolved->run.runner.progress = io.environment.interactive ? &io.err : nullptr;
  resolved->run.runner.cancel = &InterruptGuard::interrupted();
  resolved->run.runner.warnings = &io.err;
  resolved->run.runner.command_line = {"storh-host", settings.command};
  resolved->run.runner.command_line.insert(resolved->run.runner.command_line.end(),
                                           raw_args.begin(), raw_args.end());
  base->plan.repeat = head->plan.repeat = resolved->pairs;

  Expected<ab::AbResult> result = ab::run_ab(head->suite, base->plan, head->plan, resolved->run);
  if (!result) {
    io.err << fmt::format("storh-host {}: {}\n", settings.command, result.error());
    return kExitBadInput;
  }
  std::string calibration_warning;
  if (!settings.calibrating) {
    // calibrate ... as this command was given: its suite and run flags, head's plugins.
    std::vector<std::string> calibrate_args = args;
    if (flags.head_dir)
      calibrate_args.insert(calibrate_args.begin(), "--plugin-path=" + *flags.head_dir);
    if (head->args.positional.empty()) {
      calibrate_args.insert(calibrate_args.begin(), head->suite.file.string());
    }
    calibration_warning = apply_calibration(*resolved, *result, calibrate_args);
    if (const std::string error =
            confirm_wall_time(settings.command, *head, *base, *resolved, *result, io);
        !error.empty()) {
      io.err << fmt::format("storh-host {}: {}\n", settings.command, error);
      return kExitBadInput;
    }
  }
  // calibrate keeps its A/A pairs only when asked (--output): its product is the
  // calibration file.
  const std::filesystem::path output =
      flags.output ? std::filesystem::path(*flags.output) : with_suffix(head->suite.output, "-ab");
  if (!settings.calibrating || flags.output) {
    note_directory_created(settings.command, output, io);
    if (std::string error = ab::write_ab_file(output, *result, resolved->gate.alpha);
        !error.empty()) {
      io.err << fmt::format("storh-host {}: cannot write the result: {}\n", settings.command,
                            error);
      return kExitRunFailed;
    }
    // JSON on stdout stays parseable: the path goes to stderr then.
    (resolved->format == compare::OutputFormat::json || resolved->html ? io.err : io.out)
        << "result: " << output.string() << '\n';
  }
  if (result->head.interrupted) return kExitInterrupted;
  const std::size_t failed = result->base.failures.size() + result->head.failures.size();

  if (settings.calibrating) {
    const ab::Calibration calibration = ab::calibrate(*result, resolved->gate.alpha);
    const std::filesystem::path file =
        head->suite.gate.ab.calibration
            ? std::filesystem::path(head->suite.gate.ab.calibration->value)
            : with_suffix(head->suite.output, "-calibration");
    // The suite's calibration file is usually committed: a new measurement goes beside
    // it, to be compared and moved over on purpose. --calibration=FILE names the file
    // to write, and is consent to replace it.
    std::error_code ec;
    const bool keep_existing = !flags.calibration && std::filesystem::exists(file, ec);
    const std::filesystem::path target = flags.calibration
                                             ? std::filesystem::path(*flags.calibration)
                                         : keep_existing ? with_suffix(file, ".new")
                                                         : file;
    if (std::string error = ab::write_calibration(target, calibration); !error.empty()) {
      io.err << "storh-host calibrate: cannot write the calibration: " << error << '\n';
      return kExitRunFailed;
    }
    io.out << ab::render_calibration(calibration, resolved->format)
           << "calibration: " << target.string() << '\n';
    if (keep_existing) {
      io.err << fmt::format(
          "storh-host calibrate: {} exists and was left as it is; to use the new calibration, "
          "move {} over it (or pass --calibration={} to write it directly)\n",
          file.string(), target.string(), file.string());
    }
    for (const std::string& warning : result->head.environment.warnings) {
      if (warning.find("machine busy") == std::string::npos) continue;
      io.err << "storh-host calibrate: warning: measured while " << warning
             << ": the noise it records is this load's, not the machine's; calibrate again on "
                "a quiet machine before committing it\n";
      break;
    }
    return failed > 0 ? kExitRunFailed : kExitOk;
  }

  Expected<ab::AbOutcome> outcome = ab::judge(*result, resolved->gate);
  if (!outcome) {
    io.err << fmt::format("storh-host {}: {}\n", settings.command, outcome.error());
    return kExitBadInput;
  }
  if (!calibration_warning.empty()) outcome->warnings.push_back(calibration_warning);
  const ab::AbReport report = render_verdict(*result, *outcome, *resolved);
  io.out << report.out;
  io.err << report.err;
  if (const int code =
          write_junit_if_asked(settings.command, *resolved, *outcome, output.string(), io);
      code != kExitOk) {
    return code;
  }
  if (failed > 0) {
    io.err << fmt::format("storh-host {}: {} worker run(s) failed (see the result file)\n",
                          settings.command, failed);
    return kExitRunFailed;
  }
  return outcome->passed() ? kExitOk : kExitRegression;
}

int ab_command(const std::vector<std::string>& args, const CommandIo& io) {
  return run_ab_command(args, io, {"ab", std::nullopt, false, false});
}

int calibrate_command(const std::vector<std::string>& args, const CommandIo& io) {
  return run_ab_command(args, io, {"calibrate", std::nullopt, true, false});
}

}  // namespace storh::cli

namespace storh::cli {

std::optional<int> judge_ab_file(const std::string& command,
                                 const std::vector<std::string>& raw_args, const CommandIo& io) {
  std::vector<std::string> args = raw_args;
  // -o FILE or -o=FILE (as compare and gate take it, the last one winning): where the
  // rendered verdict goes.
  std::optional<std::string> short_output;
  for (auto it = args.begin(); it != args.end();) {
    if (*it == "-o" && it + 1 != args.end()) {
      short_output = *(it + 1);
      it = args.erase(it, it + 2);
    } else if (it->starts_with("-o=")) {
      short_output = it->substr(3);
      it = args.erase(it);
    } else {
      ++it;
    }
  }
  const AbFlags flags = take_ab_flags(args);
  // In this mode --output is the rendered verdict's file (there is no run to write).
  const std::optional<std::string> output = flags.output ? flags.output : short_output;
  std::vector<std::string> files;
  for (const std::string& arg : args) {
    if (!arg.starts_with("-")) files.push_back(arg);
  }
  if (files.size() != 1) return std::nullopt;
  Expected<std::string> text = read_input_file(files[0]);
  if (!text) return std::nullopt;  // the command's own reading reports it
  Expected<nlohmann::json> json = parse_json_input<nlohmann::json>(*text, files[0]);
  if (!json || !ab::is_ab_json(*json)) return std::nullopt;
  const nlohmann::json& parsed = *json;
  if (args.size() != 1) {
    io.err << fmt::format("storh-host {}: unknown argument(s) for an A/B file: {}\n", command,
                          fmt::join(args.begin() + 1, args.end(), " "));
    return kExitBadInput;
  }
  if (const std::string problem = output_problem(command, output); !problem.empty()) {
    io.err << problem << '\n';
    return kExitBadInput;
  }
  Expected<ab::AbResult> result = ab::ab_from_json(parsed, files[0]);
  if (!result) {
    io.err << fmt::format("storh-host {}: {}\n", command, result.error());
    return kExitBadInput;
  }
  AbCommandSettings settings{command, std::nullopt, false, false};
  Prepared none;
  Expected<Resolved> resolved = resolve(flags, none, settings);
  if (!resolved) {
    io.err << fmt::format("storh-host {}: {}\n", command, resolved.error());
    return kExitBadInput;
  }
  const std::string& suite_file = result->head.experiment.suite_file;
  const std::string calibration_warning =
      apply_calibration(*resolved, *result, {suite_file.empty() ? "SUITE.toml" : suite_file});
  Expected<ab::AbOutcome> outcome = ab::judge(*result, resolved->gate);
  if (!outcome) {
    io.err << fmt::format("storh-host {}: {}\n", command, outcome.error());
    return kExitBadInput;
  }
  if (!calibration_warning.empty()) outcome->warnings.push_back(calibration_warning);
  const ab::AbReport report = render_verdict(*result, *outcome, *resolved);
  io.err << report.err;
  if (const int code = write_junit_if_asked(command, *resolved, *outcome, files[0], io);
      code != kExitOk) {
    return code;
  }
  if (output) {
    if (const int code = write_output(command, report.out, output, io); code != kExitOk)
      return code;
  } else {
    io.out << report.out;
  }
  if (command == "compare") return kExitOk;
  return outcome->passed() ? kExitOk : kExitRegression;
}

}  // namespace storh::cli
