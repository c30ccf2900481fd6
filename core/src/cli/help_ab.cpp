// Help for the paired A/B commands: ab, calibrate, and ci's A/B mode.
#include "cli/help.h"

namespace storh::cli {

std::string ab_help() {
  return R"(Usage: storh-host ab SUITE.toml --base=DIR [--head=DIR] [options] [run options]

Runs the suite's cells for two sides in pairs and judges every metric from the
paired ratios head/base. A side is a plugin directory (two builds of the same
plugins: the merge-base and the pull request) and/or parameter overrides. Each pair
runs one base and one head worker back to back, each in a fresh process; who goes
first alternates (ABBA), so drift of a shared machine cancels in the ratio.

  --base=DIR, --head=DIR   plugin directories searched first for each side; every
                           engine of the suite must be in DIR (default: the usual
                           plugin path)
  --base-set E.P=V, --head-set E.P=V
                           parameter overrides for one side (as --set)
  --pairs=N                pairs per cell (default: [gate.ab] pairs, else repeat;
                           an adaptive repeat needs --pairs)
  --confirm-pairs=N        pairs per cell of the confirmation set (default:
                           [gate.ab] confirm_pairs, else twice --pairs)
  --order=abba|random      who runs first in each pair (default abba)
  --seed=N                 seed of the random order
  --threshold=PCT          smallest slowdown worth failing (default 3; [gate.ab])
  --threshold=KEY=PCT      for one metric or operation
  --metric=ENGINE.OP       gate only these (repeatable)
  --alpha=A                significance level of the signed-rank test (default 0.01)
  --calibration=FILE       noise per metric from `storh-host calibrate`: no
                           threshold goes below what that noise supports; applied
                           only on the machine it was measured on (CPU model,
                           cores, kernel, filesystem), else a warning says why
  --lenient                too few pairs or a missing metric warns, not fails
  --format=FORMAT          the verdict: text, md, json, or html (one self-contained
                           page with ratio charts, on stdout; the result path and the
                           verdict line go to stderr)
  --output=PATH            the A/B result file (default: the suite's output with -ab)
  --junit=FILE             also write the verdict as JUnit XML: a test case per
                           metric, a failure per regression (docs/integrations.md)
  --inject-slowdown=F      make every head step (1+F) times as long, to measure
                           the gate's power (scripts/power.sh); never for real results

A metric regresses when the Wilcoxon signed-rank test on the log ratios is
significant at alpha and the Hodges-Lehmann ratio is slower than the threshold,
which is never below the metric's own noise floor. A regression on wall time
alone (no gated counter rose) is re-run with a fresh set of pairs of its cell
(--confirm-pairs) before the verdict and fails only when that set, judged on its
own, regresses too ("REGRESSION confirmed"; else "not confirmed", a pass); a
metric whose counter rose fails at once. `storh-host gate AB.json` and
`storh-host compare AB.json` judge a written A/B file again, with these flags
(--format=html too), where --output=FILE or -o FILE is the rendered verdict's file.
docs/compare-gate.md.

Exit codes: 0 pass, 1 regression, 2 bad input, 3 a worker run failed or the A/B file
could not be written, 130 interrupted.
)";
}

std::string calibrate_help() {
  return R"(Usage: storh-host calibrate SUITE.toml [--pairs=N] [--calibration=FILE] [run options]

Runs A/A pairs (both sides the same plugins) of the suite on this machine and
writes each metric's noise: the spread of its paired log ratios, the smallest
slowdown an A/B run can call significant (the threshold floor), what it detects
with 80% power, the within-run cv, and warnings for metrics too short or too noisy
to gate a 5% change, with the fix, and the environment it was measured on. `ab`
and `ci --base` read the file (--calibration, or [gate.ab] calibration) so a
threshold never goes below it, on a machine with the same CPU model, core count,
kernel and work-directory filesystem; elsewhere it is not applied.

  --pairs=N            A/A pairs per cell (default 20)
  --calibration=FILE   where to write it (default: [gate.ab] calibration, else the
                       suite's output with -calibration)
  --output=FILE        also write the A/A pairs as an A/B result file (not written
                       otherwise)
  --format=text|md     the table
)";
}

}  // namespace storh::cli
