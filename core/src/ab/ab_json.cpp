// The A/B file on disk: head's result file plus the "ab" object (ab_result.h).
#include <fmt/format.h>

#include "ab/ab_result.h"
#include "ab/verdict.h"
#include "result/engine_values.h"
#include "result/json.h"
#include "util/files.h"
#include "util/json_input.h"
#include "util/json_node.h"

namespace storh::ab {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

std::vector<std::string> strings(const JsonNode& node) {
  std::vector<std::string> out;
  for (const JsonNode& item : node.items()) out.push_back(item.str());
  return out;
}

ordered_json setup_json(const SideSetup& setup) {
  return {{"plugin_path", setup.plugin_path}, {"sets", setup.sets}};
}

SideSetup read_setup(const JsonNode& node) {
  return {strings(node.at("plugin_path")), strings(node.at("sets"))};
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

PairedMetric read_metric(const JsonNode& node) {
  PairedMetric m;
  m.key = node.at("key").str();
  m.unit = node.at("unit").str();
  const JsonNode direction = node.at("direction");
  const std::optional<result::MetricDirection> parsed = result::parse_direction(direction.str());
  if (!parsed) direction.refuse("expected lower_is_better or higher_is_better");
  m.direction = *parsed;
  for (const JsonNode& pair : node.at("pairs").items()) {
    Pair p;
    p.index = pair.at("index").count32();
    p.base = pair.at("base").number();
    p.head = pair.at("head").number();
    const JsonNode first = pair.at("first");
    const std::string side = first.str();
    if (side != "base" && side != "head") {
      first.refuse(fmt::format("expected \"base\" or \"head\", got \"{}\"", side));
    }
    p.first = side == "base" ? Side::base : Side::head;
    m.pairs.push_back(p);
  }
  return m;
}

std::vector<PairedMetric> read_metrics(const JsonNode& node) {
  std::vector<PairedMetric> metrics;
  for (const JsonNode& metric : node.items()) metrics.push_back(read_metric(metric));
  return metrics;
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
    const JsonNode ab = JsonNode(j, "").at("ab");
    const JsonNode order = ab.at("order");
    const std::string order_text = order.str();
    if (order_text != "abba" && order_text != "random") {
      order.refuse(fmt::format("expected \"abba\" or \"random\", got \"{}\"", order_text));
    }
    r.order = order_text == "abba" ? Order::abba : Order::random;
    r.seed = ab.at("seed").count();
    r.pairs = ab.at("pairs").count32();
    r.base_setup = read_setup(ab.at("base_setup"));
    r.head_setup = read_setup(ab.at("head_setup"));
    r.metrics = read_metrics(ab.at("metrics"));
    // Absent in files without a confirmation set, and in older files.
    if (ab.has("confirmation")) r.confirmation = read_metrics(ab.at("confirmation"));
    Expected<result::ResultFile> base =
        result::from_json(ab.at("base").raw(), origin + " (ab/base)");
    if (!base) return Error{base.error()};
    r.base = std::move(*base);
  } catch (const BadJsonValue& bad) {
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
