#include "publish/exported_value.h"

#include "compare/comparable.h"
#include "stats/stats.h"

namespace storh::publish {

std::vector<ExportedValue> exported_values(const result::ResultFile& result) {
  // comparable_from_result turns load cells into their throughput, as compare and
  // gate judge them; its metrics are the result's, one for one and in order.
  const compare::ComparableFile comparable = compare::comparable_from_result(result, "");
  std::vector<ExportedValue> values;
  values.reserve(result.metrics.size());
  for (std::size_t i = 0; i < result.metrics.size(); ++i) {
    const result::Metric& metric = result.metrics[i];
    const compare::ComparableMetric& judged = comparable.metrics[i];
    ExportedValue value;
    value.name = metric.key;
    value.direction = judged.direction;
    value.runs = judged.runs;
    if (value.direction == result::MetricDirection::higher_is_better) {
      value.unit = metric.load ? "tps" : metric.unit + "/s";
      value.value = judged.median;
      value.lower = judged.min;
      value.upper = judged.max;
      value.stddev = judged.samples.empty() ? 0 : stats::summarize(judged.samples).stddev;
    } else {
      // Seconds of one step -> nanoseconds of one item: rate is items per second at
      // the median step, so the step's items are rate * median.
      const double items = metric.rate * metric.seconds.median;
      const double scale = 1e9 / (items > 0 ? items : 1);
      value.unit = "ns";
      value.value = metric.seconds.median * scale;
      value.lower = metric.seconds.min * scale;
      value.upper = metric.seconds.max * scale;
      value.stddev = metric.seconds.stddev * scale;
    }
    values.push_back(std::move(value));
  }
  return values;
}

}  // namespace storh::publish
