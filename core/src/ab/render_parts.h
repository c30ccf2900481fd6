// ab/render_parts.h: the pieces every rendering of an A/B verdict shares (text,
// Markdown, HTML): one row per checked metric, the header and the verdict line.
#pragma once

#include <string>

#include "ab/ab_result.h"
#include "ab/verdict.h"

namespace storh::ab {

// A metric's cells: medians of each side, the change (Hodges-Lehmann estimate of
// head/base as a slowdown), its confidence interval, p, detectable slowdown, the
// threshold that applied and the verdict ("REGRESSION FAIL").
struct AbRow {
  std::string key, base, head, change, interval, p, detectable, threshold, verdict;
};

AbRow row_of(const AbResult& result, const AbCheck& check);

// The row of a metric's confirmation set (check.confirmation must be set), keyed
// "KEY (confirmation)": its own medians, change, interval, p and threshold, and whether
// it regressed again.
AbRow confirmation_row_of(const AbResult& result, const AbCheck& check);
std::string confirmation_row_label(const AbCheck& check);

// "A/B: base = DIR, head = DIR; 5 pair(s) per cell, abba order, alpha 0.01"
std::string header_line(const AbResult& result, double alpha);

// "A/B gate passed: 0 of 7 metric(s) regressed."
std::string verdict_line(const AbOutcome& outcome);

}  // namespace storh::ab
