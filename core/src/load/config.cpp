#include "load/config.h"

#include <cmath>

#include <fmt/format.h>

#include "util/json_node.h"

namespace storh::load {

const char* client_mode_name(ClientMode mode) {
  return mode == ClientMode::processes ? "processes" : "threads";
}

std::string duration_text(double seconds) {
  return fmt::format("{}s", seconds);
}

std::vector<std::string> LoadConfig::qualifiers() const {
  std::vector<std::string> list = {fmt::format("clients={}", clients)};
  if (ycsb) return list;
  if (transactions) {
    list.push_back(fmt::format("transactions={}", *transactions));
  } else if (duration_seconds) {
    list.push_back(fmt::format("duration={}", duration_text(*duration_seconds)));
  }
  return list;
}

std::string LoadConfig::amount_text() const {
  if (transactions) return std::to_string(*transactions);
  if (duration_seconds) return duration_text(*duration_seconds);
  return "-";
}

std::string Point::text() const {
  return fmt::format("{}/{}", clients, transactions);
}

nlohmann::ordered_json to_json(const LoadConfig& c) {
  auto optional = [](const auto& value) {
    return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
  };
  nlohmann::ordered_json j = {{"clients", c.clients},
                              {"mode", client_mode_name(c.mode)},
                              {"transactions_per_client", optional(c.transactions)},
                              {"duration_seconds", optional(c.duration_seconds)},
                              {"target_rate", optional(c.rate)},
                              {"warmup_transactions", c.warmup_transactions},
                              {"warmup_seconds", c.warmup_seconds},
                              {"progress_seconds", c.progress_seconds}};
  // Only YCSB cells have the key, so other load cells' fingerprints stay as they were.
  if (c.ycsb) {
    nlohmann::ordered_json properties = nlohmann::ordered_json::array();
    for (const auto& [name, value] : c.ycsb->properties) properties.push_back({name, value});
    j["ycsb"] = {{"workload", std::string(1, c.ycsb->workload)}, {"properties", properties}};
  }
  // Likewise only when not the default, so cells without them keep their fingerprints.
  if (c.interval_seconds != 1) j["interval_seconds"] = c.interval_seconds;
  if (c.latency_limit) j["latency_limit_seconds"] = *c.latency_limit;
  return j;
}

Expected<LoadConfig> config_from_json(const nlohmann::json& j) {
  LoadConfig c;
  try {
    const JsonNode n(j, "");
    c.clients = n.at("clients").count32();
    const JsonNode mode = n.at("mode");
    if (mode.str() != "threads" && mode.str() != "processes") {
      mode.refuse(fmt::format("expected threads or processes, got \"{}\"", mode.str()));
    }
    c.mode = mode.str() == "processes" ? ClientMode::processes : ClientMode::threads;
    c.transactions = n.optional("transactions_per_client", &JsonNode::count);
    c.duration_seconds = n.optional("duration_seconds", &JsonNode::number);
    c.rate = n.optional("target_rate", &JsonNode::number);
    c.warmup_transactions = n.at("warmup_transactions").count();
    c.warmup_seconds = n.at("warmup_seconds").number();
    c.progress_seconds = n.at("progress_seconds").number();
    if (n.has("ycsb")) {
      YcsbSpec spec;
      const JsonNode workload = n.at("ycsb").at("workload");
      if (workload.str().size() != 1) workload.refuse("expected one letter");
      spec.workload = workload.str()[0];
      for (const JsonNode& p : n.at("ycsb").at("properties").items()) {
        const std::vector<std::string> pair = p.strings();
        if (pair.size() != 2) p.refuse("expected [name, value]");
        spec.properties.emplace_back(pair[0], pair[1]);
      }
      c.ycsb = std::move(spec);
    }
    if (n.has("interval_seconds")) c.interval_seconds = n.at("interval_seconds").number();
    c.latency_limit = n.optional("latency_limit_seconds", &JsonNode::number);
  } catch (const BadJsonValue& bad) {
    return Error{fmt::format("load: malformed configuration: {}", bad.message)};
  }
  if (c.clients == 0) return Error{"load: \"clients\" must be >= 1"};
  if (c.ycsb && (c.transactions || c.duration_seconds)) {
    return Error{
        "load: a YCSB cell takes its amounts from its properties, not "
        "\"transactions_per_client\" or \"duration_seconds\""};
  }
  if (!c.ycsb && c.transactions.has_value() == c.duration_seconds.has_value()) {
    return Error{"load: exactly one of \"transactions_per_client\" and \"duration_seconds\""};
  }
  if (c.duration_seconds && !(*c.duration_seconds > 0 && std::isfinite(*c.duration_seconds))) {
    return Error{"load: \"duration_seconds\" must be > 0"};
  }
  if (!(c.interval_seconds > 0 && std::isfinite(c.interval_seconds))) {
    return Error{"load: \"interval_seconds\" must be > 0"};
  }
  if (c.latency_limit && !(*c.latency_limit > 0 && std::isfinite(*c.latency_limit))) {
    return Error{"load: \"latency_limit_seconds\" must be > 0"};
  }
  if (c.rate && !(*c.rate > 0 && std::isfinite(*c.rate))) {
    return Error{"load: \"target_rate\" must be > 0"};
  }
  return c;
}

}  // namespace storh::load
