// gate/render_gate.h: the gate's output. Pure functions of a GateOutcome.
#pragma once

#include <string>

#include "compare/render.h"
#include "gate/gate.h"

namespace storh::gate {

// What goes to stdout and what to stderr.
struct GateReport {
  std::string out;
  std::string err;
};

// Text (the storh gate.php line shape, with the report's units):
//   stdout: one line per checked metric, in checked order:
//     "%-36s base <value> current <value> %+0.2f%%" plus " FAIL" when it fails, where a
//     time reads as the report shows it ("412.3 us", report::format_seconds) rather
//     than storh's "%.6fs" (0.000000s for anything under a microsecond), or
//     "%-36s missing in baseline" / "%-36s missing in current";
//     any notes follow in brackets: " [threshold +20.00%; p=0.008 significant]";
//     then one line per counter check:
//     "%-36s base %g current %g %+0.2f%%" (key "doc.put fsync/item") plus " FAIL",
//     and " [counter tolerance +0.00%]";
//     then, when passed, "Benchmark regression gate passed at threshold +10.00%.";
//   stderr: "warning: ..." lines, then, when failed,
//     "Benchmark regression gate failed at threshold +10.00%.".
// A value that is not a time (higher_is_better) prints with 4 significant digits.
//
// Markdown (stdout): heading, files and threshold, warnings as quotes, a table
// (metric | base | current | delta | threshold | result | note), counter checks as
// rows of their own ("`doc.put` fsync/item"), and the verdict in bold.
// JSON (stdout): the whole outcome. For both, stderr gets the warnings and,
// when failed, the verdict line, so a CI log shows why the step failed.
// CSV is not a gate format; it renders as text.
GateReport render_gate(const GateOutcome& outcome, compare::OutputFormat format);

}  // namespace storh::gate
