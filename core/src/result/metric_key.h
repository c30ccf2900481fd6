// result/metric_key.h: a metric's key, "engine.operation[qualifier,...]", as a value.
//
// Every metric of a result file has a key that tells it apart from its siblings:
// "doc.put", or "cache.cold[n=1000,validation=hash]" when the cell's dataset size or
// parameters vary (plan/plan.h says which qualifiers a cell gets). This type is the
// one place that writes a key (to_string) and reads one back (parse); the result JSON
// stores the text unchanged.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace storh::result {

struct MetricKey {
  std::string engine;
  std::string operation;
  // "n=1000", "validation=hash", ... in key order; a value may itself hold commas.
  std::vector<std::string> qualifiers;

  // Reads any text and never fails, so keys from older or foreign files (storh-php)
  // still group and match:
  // - the qualifiers are the text between the first '[' and a final ']'; without a
  //   final ']' there are none and the brackets stay in the operation;
  // - a comma separates two qualifiers only when "name=" follows it (no comma before
  //   the next '='), so "a=x,y,b=2" is {"a=x,y", "b=2"};
  // - the engine is the text before the first '.', the operation the rest; a key
  //   without a dot is all engine, with an empty operation.
  // parse(k).to_string() == k for every key to_string writes; "doc." reads as "doc".
  static MetricKey parse(std::string_view key);

  // "cache.cold[n=1000,validation=hash]"; no brackets without qualifiers, no dot
  // without an operation.
  std::string to_string() const;
  // "cache.cold": engine and operation, without the qualifiers.
  std::string base() const;
  // "cold[n=1000,validation=hash]": the key without its engine, as a report labels a
  // metric under its engine's heading.
  std::string label() const;

  // This key without the listed qualifiers ("n=1000"): each is removed where it
  // matches a whole qualifier; ones not in the key are ignored. The brackets go when
  // nothing is left.
  MetricKey without(const std::vector<std::string>& listed) const;

  bool operator==(const MetricKey&) const = default;
};

}  // namespace storh::result
