// The A/B tests' fixed samples: paired metrics whose ratios are known exactly, and the
// results that hold them, and the names the A/B test files use unqualified. No
// processes, no clocks.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "ab/ab_result.h"
#include "ab/verdict.h"
#include "test_support.h"

namespace storh::test {

// A metric of n pairs: base 1 ms with a small, fixed wobble; head = base * ratio with
// its own wobble, so the pairs are not all equal (ties would change the test).
inline ab::PairedMetric metric(
    const std::string& key, std::size_t n, double ratio, double wobble = 0.004,
    result::MetricDirection direction = result::MetricDirection::lower_is_better) {
  ab::PairedMetric m{key, "items", direction, {}};
  for (std::size_t i = 0; i < n; ++i) {
    const double b = 1e-3 * (1 + wobble * static_cast<double>((i * 7) % 5));
    const double h = b * ratio * (1 + wobble * (static_cast<double>((i * 3) % 4) - 1.5) / 2);
    m.pairs.push_back(
        {static_cast<std::uint32_t>(i), b, h, i % 2 == 0 ? ab::Side::base : ab::Side::head});
  }
  return m;
}

inline ab::AbResult result_with(std::vector<ab::PairedMetric> metrics) {
  ab::AbResult r;
  r.pairs = metrics.empty() ? 0 : static_cast<std::uint32_t>(metrics.front().pairs.size());
  r.metrics = std::move(metrics);
  return r;
}

inline const ab::AbCheck& only_check(const ab::AbOutcome& outcome) {
  REQUIRE(outcome.checks.size() == 1);
  return outcome.checks.front();
}

}  // namespace storh::test

using storh::ab::AbResult;
using storh::ab::AbState;
using storh::ab::Pair;
using storh::ab::PairedMetric;
using storh::ab::Side;
using storh::result::MetricDirection;
using storh::test::metric;
using storh::test::only_check;
using storh::test::result_with;
