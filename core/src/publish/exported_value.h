// publish/exported_value.h: one metric of a result as the dashboards' formats take it
// (publish/dashboard.h): a name, a centre, a spread, which way is
// better and in what unit.
//
// A time (lower is better) is per item in nanoseconds, as Bencher's `latency` measure
// and the report's "per item" column: the median step's time divided by its items, its
// min and max and standard deviation scaled the same way. A metric without a rate (no
// items recorded) keeps its whole step's time. A higher-is-better value is what compare
// judges (compare/comparable.h): a load cell's transactions per second excluding set-up
// over its repeats, or a score as the plugin reported it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "result/result.h"

namespace storh::publish {

struct ExportedValue {
  std::string name;  // the metric key: "doc.put[n=1000]", "BM_sort/64"
  result::MetricDirection direction = result::MetricDirection::lower_is_better;
  std::string unit;   // "ns" for times; "tps" or "<unit>/s" for higher-is-better values
  double value = 0;   // the median
  double lower = 0;   // the smallest sample
  double upper = 0;   // the largest sample
  double stddev = 0;  // sample standard deviation; 0 for one sample
  std::size_t runs = 0;
};

// Every metric of `result`, in file order.
std::vector<ExportedValue> exported_values(const result::ResultFile& result);

}  // namespace storh::publish
