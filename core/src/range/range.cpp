// Range output: splitting a result into slices and writing them with their index.
// range.h states the rules.
#include "range/range.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "result/engine_values.h"
#include "result/json.h"
#include "result/metric_key.h"
#include "suite/parse.h"  // param_value_text: the one canonical text of a value
#include "util/files.h"

namespace storh::range {
namespace {

using result::Param;
using result::ResultFile;

constexpr std::size_t kUnlisted = static_cast<std::size_t>(-1);

// engine -> parameter name -> every value seen, the experiment's order first.
using ValueTable = std::map<std::string, std::map<std::string, std::vector<ParamValue>>>;

void add_value(std::vector<ParamValue>& values, const ParamValue& value) {
  if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
}

ValueTable collect_values(const ResultFile& result) {
  ValueTable table;
  for (const auto& [engine, params] : result.experiment.params) {
    for (const auto& [name, values] : params) {
      for (const ParamValue& value : values) add_value(table[engine][name], value);
    }
  }
  auto add_record = [&table](const auto& record) {
    for (const auto& [name, value] : record.params) add_value(table[record.engine][name], value);
  };
  std::for_each(result.metrics.begin(), result.metrics.end(), add_record);
  std::for_each(result.failures.begin(), result.failures.end(), add_record);
  std::for_each(result.runs.begin(), result.runs.end(), add_record);
  return table;
}

// Sorts slices as range.h promises: listed before unlisted, then by value.
using SliceKey =
    std::tuple<std::size_t, std::uint64_t, std::size_t, std::string, std::vector<std::size_t>>;

template <typename T, typename Same>
std::size_t rank_in(const std::vector<T>& list, Same same) {
  const auto at = std::find_if(list.begin(), list.end(), same);
  return at == list.end() ? kUnlisted : static_cast<std::size_t>(at - list.begin());
}

class Slicer {
 public:
  explicit Slicer(const ResultFile& result) : result_(result), values_(collect_values(result)) {}

  // The slice a metric, failure or run belongs to, created on first use.
  template <typename Record>
  RangeSlice& slice_of(const Record& record) {
    SliceKey key{
        rank_in(result_.experiment.datasets, [&](std::uint64_t n) { return n == record.dataset; }),
        record.dataset,
        rank_in(result_.experiment.engines,
                [&](const result::EngineRecord& e) { return e.name == record.engine; }),
        record.engine,
        {}};
    std::vector<Param> fixed;
    for (const auto& [name, values] : values_[record.engine]) {
      if (values.size() < 2) continue;
      const auto param = std::find_if(record.params.begin(), record.params.end(),
                                      // A copy: clang 14 cannot capture a structured binding.
                                      [&name = name](const Param& p) { return p.first == name; });
      if (param == record.params.end()) {
        std::get<4>(key).push_back(kUnlisted);
        continue;
      }
      std::get<4>(key).push_back(
          rank_in(values, [&](const ParamValue& v) { return v == param->second; }));
      fixed.push_back(*param);
    }
    auto [at, inserted] = slices_.try_emplace(std::move(key));
    if (inserted) {
      at->second.dataset = record.dataset;
      at->second.engine = record.engine;
      at->second.params = std::move(fixed);
    }
    return at->second;
  }

  std::map<SliceKey, RangeSlice>& slices() { return slices_; }

 private:
  const ResultFile& result_;
  ValueTable values_;
  std::map<SliceKey, RangeSlice> slices_;
};

// The combined experiment narrowed to one slice (range.h says why).
result::Experiment narrowed(const result::Experiment& experiment, const RangeSlice& slice) {
  result::Experiment out = experiment;
  out.datasets = {slice.dataset};
  std::erase_if(out.engines, [&](const auto& e) { return e.name != slice.engine; });
  std::erase_if(out.params, [&](const auto& p) { return p.first != slice.engine; });
  for (auto& [engine, params] : out.params) {
    for (auto& [name, values] : params) {
      for (const auto& [fixed_name, fixed_value] : slice.params) {
        if (fixed_name == name) values = {fixed_value};
      }
    }
  }
  return out;
}

// Keeps file names inside the directory and free of shell-hostile characters.
std::string file_name_part(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '_' || c == '+' || c == '-';
    if (!safe) c = '_';
  }
  return out;
}

std::string slice_text(const RangeSlice& slice) {
  std::vector<std::string> parts;
  for (const auto& [name, value] : slice.params) {
    parts.push_back(name + "=" + suite::param_value_text(value));
  }
  return fmt::format("{} n={}{}{}", slice.engine, slice.dataset, parts.empty() ? "" : " ",
                     fmt::join(parts, " "));
}

}  // namespace

std::string range_file_name(std::uint64_t dataset, std::string_view engine,
                            const std::vector<Param>& params) {
  std::string name = fmt::format("bench-{}-{}", dataset, file_name_part(engine));
  for (const auto& [param, value] : params) {
    name += fmt::format("-{}", file_name_part(suite::param_value_text(value)));
  }
  return name + ".json";
}

Expected<std::vector<RangeSlice>> split_ranges(const ResultFile& result) {
  Slicer slicer(result);
  for (const result::Metric& metric : result.metrics) {
    RangeSlice& slice = slicer.slice_of(metric);
    slice.result.metrics.push_back(metric);
  }
  for (const result::Failure& failure : result.failures) {
    slicer.slice_of(failure).result.failures.push_back(failure);
  }
  for (const result::Run& run : result.runs) slicer.slice_of(run).result.runs.push_back(run);

  std::vector<RangeSlice> slices;
  std::map<std::string, std::size_t> by_file;
  for (auto& [key, slice] : slicer.slices()) {
    slice.file = range_file_name(slice.dataset, slice.engine, slice.params);
    if (auto [at, inserted] = by_file.emplace(slice.file, slices.size()); !inserted) {
      return Error{fmt::format("range output: \"{}\" and \"{}\" would both be written to {}",
                               slice_text(slices[at->second]), slice_text(slice), slice.file)};
    }
    std::vector<std::string> fixed = {fmt::format("n={}", slice.dataset)};
    for (const auto& [name, value] : slice.params) {
      fixed.push_back(name + "=" + suite::param_value_text(value));
    }
    ResultFile& file = slice.result;
    file.schema_version = result.schema_version;
    file.experiment = narrowed(result.experiment, slice);
    file.environment = result.environment;
    file.interrupted = result.interrupted;
    for (result::Metric& metric : file.metrics) {
      metric.key = result::MetricKey::parse(metric.key).without(fixed).to_string();
    }
    std::stable_sort(file.metrics.begin(), file.metrics.end(),
                     [](const auto& a, const auto& b) { return a.key < b.key; });
    slices.push_back(std::move(slice));
  }
  return slices;
}

nlohmann::ordered_json range_index_json(const result::ResultFile& result,
                                        const std::vector<RangeSlice>& slices) {
  using nlohmann::ordered_json;
  ordered_json files = ordered_json::array();
  for (const RangeSlice& slice : slices) {
    ordered_json params = ordered_json::object();
    for (const auto& [name, value] : slice.params) params[name] = result::param_value_json(value);
    files.push_back({{"file", slice.file},
                     {"dataset", slice.dataset},
                     {"engine", slice.engine},
                     {"params", params}});
  }
  return {{"schema_version", result::kSchemaVersion},
          {"tool", "storh-host"},
          {"layout", "range"},
          {"suite", result.experiment.suite},
          {"fingerprint", result.experiment.fingerprint},
          {"time", result.environment.time},
          {"files", files}};
}

Expected<std::filesystem::path> write_range_output(const std::filesystem::path& dir,
                                                   const result::ResultFile& result) {
  Expected<std::vector<RangeSlice>> slices = split_ranges(result);
  if (!slices) return Error{slices.error()};
  for (const RangeSlice& slice : *slices) {
    if (std::string error = result::write_result_file(dir / slice.file, slice.result);
        !error.empty()) {
      return Error{std::move(error)};
    }
  }
  // Last, so every file the new index names is complete by the time it appears.
  const std::filesystem::path index = dir / kIndexFileName;
  // Formatted as result files are: two-space indentation and a final newline.
  const std::string text =
      range_index_json(result, *slices)
          .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
      "\n";
  if (std::string error = write_file_atomically(index, text); !error.empty()) {
    return Error{std::move(error)};
  }
  return index;
}

}  // namespace storh::range
