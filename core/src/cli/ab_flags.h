// cli/ab_flags.h: the flags of `ab`, `calibrate` and `ci --base=DIR` (the command
// table's `ab` entry) over the suite's [gate.ab] table over the defaults, and the
// verdict written as they ask.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ab/ab_runner.h"
#include "ab/calibration.h"
#include "ab/verdict.h"
#include "cli/ab_command.h"
#include "cli/args.h"
#include "compare/render.h"
#include "report/html_assets.h"
#include "suite/suite.h"
#include "util/expected.h"

namespace storh::cli {

struct ResolvedAb {
  std::uint32_t pairs = 1;          // per cell: each side's plan repeats this often
  std::uint32_t confirm_pairs = 2;  // the confirmation set's pairs per cell
  ab::AbRunOptions run;             // order, seed, setups; the runner's fields are unset
  ab::AbGateOptions gate;
  compare::OutputFormat format = compare::OutputFormat::text;
  std::optional<report::HtmlAssets> html;  // --format=html: the page's library
  std::optional<std::string> junit;        // --junit=FILE: the verdict as JUnit XML too
  // --calibration or [gate.ab] calibration, read (not calibrating; else it names the
  // file to write).
  std::optional<ab::CalibrationSetting> calibration;
  std::optional<std::string> output;  // --output
};

// Reads the A/B flags of `flags` (parsed with the command table's `ab` flags) over
// `suite`'s [gate.ab] (a default suite when judging a file). The error names the flag
// and what it takes.
Expected<ResolvedAb> resolve_ab_flags(const ParsedArgs& flags, const suite::Suite& suite,
                                      const AbCommandSettings& settings);

// The verdict in the format the flags asked for.
ab::AbReport render_verdict(const ab::AbResult& result, const ab::AbOutcome& outcome,
                            const ResolvedAb& resolved);

// Writes the verdict's JUnit file when --junit asked for one; `origin` names what was
// judged (the A/B result file). kExitOk, or the write's failure code (said on io.err).
int write_junit_if_asked(const std::string& command, const ResolvedAb& resolved,
                         const ab::AbOutcome& outcome, const std::string& origin,
                         const CommandIo& io);

}  // namespace storh::cli
