// The A/B file on disk: head's result file plus the "ab" object (ab_result.h).
#include <fmt/format.h>

#include "ab/ab_result.h"
#include "ab/verdict.h"
#include "result/engine_values.h"
#include "result/json.h"
#include "util/files.h"
#include "util/json_input.h"

namespace storh::ab {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// A bad value in an A/B file: where it is and what was expected.
struct BadAbValue {
  std::string message;
};

const json& member(const json& object, const std::string& key, const std::string& path) {
  if (!object.is_object()) throw BadAbValue{fmt::format("{}: expected an object", path)};
  auto it = object.find(key);
  if (it == object.end()) throw BadAbValue{fmt::format("{}: missing key \"{}\"", path, key)};
  return *it;
}

template <typename T>
T typed(const json& value, const std::string& path, const char* expected) {
  const bool ok = [&] {
    if constexpr (std::is_same_v<T, std::string>) return value.is_string();
    if constexpr (std::is_same_v<T, double>) return value.is_number();
    if constexpr (std::is_same_v<T, std::uint64_t> || std::is_same_v<T, std::uint32_t>) {
      return value.is_number_unsigned();
    }
    return false;
  }();
  if (!ok)
    throw BadAbValue{fmt::format("{}: expected {}, got {}", path, expected, value.type_name())};
  return value.get<T>();
}

std::vector<std::string> strings(const json& value, const std::string& path) {
  if (!value.is_array()) throw BadAbValue{fmt::format("{}: expected an array", path)};
  std::vector<std::string> out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    out.push_back(typed<std::string>(value[i], fmt::format("{}/{}", path, i), "a string"));
  }
  return out;
}

ordered_json setup_json(const SideSetup& setup) {
  return {{"plugin_path", setup.plugin_path}, {"sets", setup.sets}};
}

SideSetup read_setup(const json& value, const std::string& path) {
  return {strings(member(value, "plugin_path", path), path + "/plugin_path"),
          strings(member(value, "sets", path), path + "/sets")};
}

ordered_json metric_json(const PairedMetric& m, double alpha) {
  ordered_json pairs = ordered_json::array();
  for (const Pair& p : m.pairs) {
    pairs.push_back(
        {{"index", p.index}, {"base", p.base}, {"head", p.head}, {"first", side_name(p.first)}});
  }
  const PairedSummary summary = summarize(m, alpha);
  ordered_json analysis = {{"pairs", summary.test.pairs},
                           {"ratio", summary.test.ratio},
                           {"ci_low", summary.test.ci_low},
                           {"ci_high", summary.test.ci_high},
                           {"confidence", summary.test.confidence},
                           {"p_value", summary.test.p_value ? ordered_json(*summary.test.p_value)
                                                            : ordered_json(nullptr)},
                           {"noise", summary.test.noise},
                           {"detectable_percent", summary.detectable_percent}};
  return {{"key", m.key},
          {"unit", m.unit},
          {"direction", result::direction_name(m.direction)},
          {"pairs", pairs},
          {"analysis", analysis}};
}

PairedMetric read_metric(const json& value, const std::string& path) {
  PairedMetric m;
  m.key = typed<std::string>(member(value, "key", path), path + "/key", "a string");
  m.unit = typed<std::string>(member(value, "unit", path), path + "/unit", "a string");
  const std::string direction =
      typed<std::string>(member(value, "direction", path), path + "/direction", "a string");
  const std::optional<result::MetricDirection> parsed = result::parse_direction(direction);
  if (!parsed) {
    throw BadAbValue{
        fmt::format("{}/direction: expected lower_is_better or higher_is_better", path)};
  }
  m.direction = *parsed;
  const json& pairs = member(value, "pairs", path);
  if (!pairs.is_array()) throw BadAbValue{fmt::format("{}/pairs: expected an array", path)};
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::string at = fmt::format("{}/pairs/{}", path, i);
    Pair p;
    p.index =
        typed<std::uint32_t>(member(pairs[i], "index", at), at + "/index", "a whole number >= 0");
    p.base = typed<double>(member(pairs[i], "base", at), at + "/base", "a number");
    p.head = typed<double>(member(pairs[i], "head", at), at + "/head", "a number");
    const std::string first =
        typed<std::string>(member(pairs[i], "first", at), at + "/first", "a string");
    if (first != "base" && first != "head") {
      throw BadAbValue{
          fmt::format("{}/first: expected \"base\" or \"head\", got \"{}\"", at, first)};
    }
    p.first = first == "base" ? Side::base : Side::head;
    m.pairs.push_back(p);
  }
  return m;
}

}  // namespace

const char* side_name(Side side) {
  return side == Side::base ? "base" : "head";
}

const char* order_name(Order order) {
  return order == Order::abba ? "abba" : "random";
}

ordered_json to_json(const AbResult& r, double alpha) {
  ordered_json metrics = ordered_json::array();
  for (const PairedMetric& m : r.metrics) metrics.push_back(metric_json(m, alpha));
  ordered_json file = result::to_json(r.head);
  file["ab"] = {{"order", order_name(r.order)},
                {"seed", r.seed},
                {"pairs", r.pairs},
                {"alpha", alpha},
                {"base_setup", setup_json(r.base_setup)},
                {"head_setup", setup_json(r.head_setup)},
                {"metrics", metrics},
                {"base", result::to_json(r.base)}};
  // Only when a confirmation ran, so files without one keep their bytes.
  if (!r.confirmation.empty()) {
    ordered_json confirmation = ordered_json::array();
    for (const PairedMetric& m : r.confirmation) confirmation.push_back(metric_json(m, alpha));
    file["ab"]["confirmation"] = confirmation;
  }
  result::mask_json_secrets(file);
  return file;
}

std::string write_ab_file(const std::filesystem::path& file, const AbResult& result, double alpha) {
  return write_file_atomically(
      file, to_json(result, alpha).dump(2, ' ', false, json::error_handler_t::replace) + "\n");
}

bool is_ab_json(const json& json) {
  return json.is_object() && json.contains("ab") && json["ab"].is_object();
}

Expected<AbResult> ab_from_json(const json& j, const std::string& origin) {
  Expected<result::ResultFile> head = result::from_json(j, origin);
  if (!head) return Error{head.error()};
  AbResult r;
  r.head = std::move(*head);
  try {
    const json& ab = member(j, "ab", "");
    const std::string order =
        typed<std::string>(member(ab, "order", "/ab"), "/ab/order", "a string");
    if (order != "abba" && order != "random") {
      throw BadAbValue{
          fmt::format("/ab/order: expected \"abba\" or \"random\", got \"{}\"", order)};
    }
    r.order = order == "abba" ? Order::abba : Order::random;
    r.seed = typed<std::uint64_t>(member(ab, "seed", "/ab"), "/ab/seed", "a whole number >= 0");
    r.pairs = typed<std::uint32_t>(member(ab, "pairs", "/ab"), "/ab/pairs", "a whole number >= 0");
    r.base_setup = read_setup(member(ab, "base_setup", "/ab"), "/ab/base_setup");
    r.head_setup = read_setup(member(ab, "head_setup", "/ab"), "/ab/head_setup");
    const json& metrics = member(ab, "metrics", "/ab");
    if (!metrics.is_array()) throw BadAbValue{"/ab/metrics: expected an array"};
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      r.metrics.push_back(read_metric(metrics[i], fmt::format("/ab/metrics/{}", i)));
    }
    if (ab.contains("confirmation")) {  // absent in files without one, and older files
      const json& confirmation = ab.at("confirmation");
      if (!confirmation.is_array()) throw BadAbValue{"/ab/confirmation: expected an array"};
      for (std::size_t i = 0; i < confirmation.size(); ++i) {
        r.confirmation.push_back(
            read_metric(confirmation[i], fmt::format("/ab/confirmation/{}", i)));
      }
    }
    Expected<result::ResultFile> base =
        result::from_json(member(ab, "base", "/ab"), origin + " (ab/base)");
    if (!base) return Error{base.error()};
    r.base = std::move(*base);
  } catch (const BadAbValue& bad) {
    return Error{fmt::format("{}: {}", origin, bad.message)};
  }
  return r;
}

Expected<AbResult> read_ab_file(const std::filesystem::path& file) {
  Expected<std::string> text = read_input_file(file);
  if (!text) return Error{text.error()};
  Expected<json> document = parse_json_input<json>(*text, file.string());
  if (!document) return Error{document.error()};
  const json& parsed = *document;
  if (!is_ab_json(parsed)) {
    return Error{fmt::format("{}: not an A/B result file (no \"ab\" object)", file.string())};
  }
  return ab_from_json(parsed, file.string());
}

}  // namespace storh::ab
