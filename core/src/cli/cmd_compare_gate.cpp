// `storh-host compare` and `storh-host gate`: argument parsing around the compare
// and gate libraries. Every unusable input is exit 2 with a message naming the file
// or flag; warnings go to stderr so stdout stays the requested format.
#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "ab/calibration.h"
#include "ab/stored_calibration.h"
#include "cli/ab_command.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/gate_flags.h"
#include "cli/output.h"
#include "compare/comparable.h"
#include "compare/compare.h"
#include "compare/render.h"
#include "gate/gate.h"
#include "gate/render_gate.h"
#include "publish/junit.h"
#include "result/json.h"

namespace storh::cli {
namespace {

// Loads every file, or says which one is unusable.
Expected<std::vector<compare::ComparableFile>> load_all(const std::vector<std::string>& paths) {
  std::vector<compare::ComparableFile> files;
  for (const std::string& path : paths) {
    Expected<compare::ComparableFile> file = compare::read_comparable(path);
    if (!file) return Error{file.error()};
    files.push_back(std::move(file).value());
  }
  return files;
}

void print_warnings(const std::vector<std::string>& warnings, std::ostream& err) {
  for (const std::string& warning : warnings) err << "warning: " << warning << '\n';
}

}  // namespace

// The threshold and counter flags read as every gating command reads them
// (cli/gate_flags.h), then the gate's own.
Expected<gate::GateOptions> apply_gate_flags(const ParsedArgs& args, gate::GateOptions options) {
  Expected<GateFlagValues> values = read_gate_flags(args.all("threshold"), args.all("counter"));
  if (!values) return Error{values.error()};
  if (values->threshold_percent) options.threshold_percent = *values->threshold_percent;
  options.metric_thresholds.insert(options.metric_thresholds.end(),
                                   values->metric_thresholds.begin(),
                                   values->metric_thresholds.end());
  if (args.has("metric")) options.metrics = args.all("metric");
  if (args.has("significant")) options.require_significance = true;
  if (args.has("lenient-missing")) options.lenient_missing = true;
  if (auto alpha = args.last("alpha")) {
    Expected<double> parsed = number_flag("alpha", *alpha);
    if (!parsed) return Error{parsed.error()};
    options.alpha = *parsed;
  }
  if (auto effect = args.last("min-effect")) {
    Expected<double> parsed = number_flag("min-effect", *effect);
    if (!parsed) return Error{parsed.error()};
    options.min_effect_seconds = *parsed;
  }
  options.counter_tolerances.insert(options.counter_tolerances.end(),
                                    values->counter_tolerances.begin(),
                                    values->counter_tolerances.end());
  if (std::string problem = gate::validate(options); !problem.empty()) return Error{problem};
  return options;
}

int compare_command(const std::vector<std::string>& raw_args, const CommandIo& io) {
  if (std::optional<int> code = judge_ab_file("compare", raw_args, io)) return *code;
  Expected<ParsedArgs> args = parse_command_args("compare", raw_args);
  if (!args || args->positional.size() < 2) {
    io.err << "storh-host compare: "
           << (args ? "expected two or more result files (storh-host compare BASE.json "
                      "NEW.json [MORE.json...])"
                    : args.error())
           << '\n';
    return kExitBadInput;
  }
  // html is compare's alone (gate, ab and calibrate print verdicts), so it is not an
  // OutputFormat: `format` stays text for it and `html` says which page to write.
  const bool html = args->last("format") == "html";
  Expected<compare::OutputFormat> format =
      html ? Expected<compare::OutputFormat>(compare::OutputFormat::text)
           : output_format(*args, true, ", html");
  if (!format) {
    io.err << "storh-host compare: " << format.error() << '\n';
    return kExitBadInput;
  }
  const std::optional<std::string> output = output_flag(*args);
  if (const std::string problem = output_problem("compare", output); !problem.empty()) {
    io.err << problem << '\n';
    return kExitBadInput;
  }
  Expected<report::HtmlAssets> assets = html_assets_for("compare", html);
  if (!assets) {
    io.err << assets.error() << '\n';
    return kExitBadInput;
  }
  compare::CompareOptions options;
  if (auto alpha = args->last("alpha")) {
    Expected<double> parsed = number_flag("alpha", *alpha);
    if (!parsed || !(*parsed > 0 && *parsed < 1)) {
      io.err << "storh-host compare: "
             << (parsed ? fmt::format("--alpha: {} is not in (0, 1), e.g. 0.05", *alpha)
                        : parsed.error())
             << '\n';
      return kExitBadInput;
    }
    options.alpha = *parsed;
  }
  Expected<std::vector<compare::ComparableFile>> files = load_all(args->positional);
  if (!files) {
    io.err << "storh-host compare: " << files.error() << '\n';
    return kExitBadInput;
  }
  std::string text;
  if (files->size() == 2) {
    const compare::PairComparison pair = compare::compare_pair((*files)[0], (*files)[1], options);
    print_warnings(pair.warnings, io.err);
    text = html ? compare::render_pair_html(pair, *assets) : compare::render_pair(pair, *format);
  } else {
    std::vector<const compare::ComparableFile*> pointers;
    for (const compare::ComparableFile& file : *files) pointers.push_back(&file);
    const compare::MatrixComparison matrix = compare::compare_matrix(pointers);
    print_warnings(matrix.warnings, io.err);
    text = html ? compare::render_matrix_html(matrix, *assets)
                : compare::render_matrix(matrix, *format);
  }
  return write_output("compare", text, output, io);
}

int gate_command(const std::vector<std::string>& raw_args, const CommandIo& io) {
  if (std::optional<int> code = judge_ab_file("gate", raw_args, io)) return *code;
  // Confirming re-runs cells, which needs the suite and plugins, not two files.
  if (std::any_of(raw_args.begin(), raw_args.end(),
                  [](const std::string& a) { return a.starts_with("--confirm"); })) {
    io.err << "storh-host gate: --confirm re-runs the failing cells, which needs the suite: "
              "use `storh-host ci [SUITE.toml] --confirm=N` (or `confirm = N` in its [gate] "
              "table)\n";
    return kExitBadInput;
  }
  Expected<ParsedArgs> args = parse_command_args("gate", raw_args);
  if (!args || args->positional.size() != 2) {
    io.err << "storh-host gate: "
           << (args ? fmt::format("expected exactly two result files, got {} (storh-host gate "
                                  "BASE.json NEW.json [--threshold=10] [--metric=engine.op]...)",
                                  args->positional.size())
                    : args.error())
           << '\n';
    return kExitBadInput;
  }
  Expected<compare::OutputFormat> format = output_format(*args, false);
  if (!format) {
    io.err << "storh-host gate: " << format.error() << '\n';
    return kExitBadInput;
  }
  Expected<gate::GateOptions> options = apply_gate_flags(*args, {});
  if (!options) {
    io.err << "storh-host gate: " << options.error() << '\n';
    return kExitBadInput;
  }
  const std::optional<std::string> junit = args->last("junit");
  if (const std::string problem = output_problem("gate", junit, "--junit"); !problem.empty()) {
    io.err << problem << '\n';
    return kExitBadInput;
  }
  Expected<std::vector<compare::ComparableFile>> files = load_all(args->positional);
  if (!files) {
    io.err << "storh-host gate: " << files.error() << '\n';
    return kExitBadInput;
  }
  std::string calibration_warning;
  if (auto file = args->last("calibration")) {
    Expected<ab::Calibration> calibration = ab::read_calibration(*file);
    if (!calibration) {
      io.err << "storh-host gate: --calibration: " << calibration.error() << '\n';
      return kExitBadInput;
    }
    // The machine the current file was measured on; a file of another tool records
    // none, so no calibration matches it.
    Expected<result::ResultFile> current = result::read_result_file(args->positional[1]);
    calibration_warning = ab::apply_stored_calibration(
                              *calibration, *file, current ? current->experiment.suite_file : "",
                              current ? *current : result::ResultFile{}, *options)
                              .warning;
  }
  Expected<gate::GateOutcome> outcome = gate::run_gate((*files)[0], (*files)[1], *options);
  if (!outcome) {
    io.err << "storh-host gate: " << outcome.error() << '\n';
    return kExitBadInput;
  }
  if (!calibration_warning.empty()) outcome->warnings.push_back(calibration_warning);
  const gate::GateReport report = gate::render_gate(*outcome, *format);
  io.out << report.out;
  io.err << report.err;
  if (junit) {
    if (const int code = write_junit("gate", publish::gate_junit(*outcome), *junit, io);
        code != kExitOk) {
      return code;
    }
  }
  return outcome->passed() ? kExitOk : kExitRegression;
}

}  // namespace storh::cli
