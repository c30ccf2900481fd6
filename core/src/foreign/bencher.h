// foreign/bencher.h: a result as Bencher Metric Format (BMF) JSON, for `bencher run
// --adapter json --file FILE` (https://bencher.dev/docs/reference/bencher-metric-format).
//
// The shape, as Bencher's JSON schema requires: an object with one member per metric
// (its key, "doc.put[n=1000]"), holding one member per measure, each an object with a
// number `value` and the optional numbers `lower_value` and `upper_value`:
//   {"doc.put": {"latency": {"value": 412.5, "lower_value": 401.0, "upper_value": 430.2}}}
// A time is the `latency` measure, per item in nanoseconds (Bencher's Latency unit); a
// higher-is-better value (a load cell's transactions per second) is `throughput`.
// Lower and upper are the smallest and largest sample (foreign/exported_value.h).
// Deterministic: the same result gives the same bytes.
#pragma once

#include <string>

#include "result/result.h"

namespace storh::foreign {

std::string bmf_json(const result::ResultFile& result);

}  // namespace storh::foreign
