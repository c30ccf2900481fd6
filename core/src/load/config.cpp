#include "load/config.h"

#include <cmath>

#include <fmt/format.h>

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
    c.clients = j.at("clients").get<std::uint32_t>();
    const std::string mode = j.at("mode").get<std::string>();
    if (mode != "threads" && mode != "processes") {
      return Error{fmt::format("load: \"mode\" must be threads or processes, got \"{}\"", mode)};
    }
    c.mode = mode == "processes" ? ClientMode::processes : ClientMode::threads;
    if (!j.at("transactions_per_client").is_null()) {
      c.transactions = j.at("transactions_per_client").get<std::uint64_t>();
    }
    if (!j.at("duration_seconds").is_null()) {
      c.duration_seconds = j.at("duration_seconds").get<double>();
    }
    if (!j.at("target_rate").is_null()) c.rate = j.at("target_rate").get<double>();
    c.warmup_transactions = j.at("warmup_transactions").get<std::uint64_t>();
    c.warmup_seconds = j.at("warmup_seconds").get<double>();
    c.progress_seconds = j.at("progress_seconds").get<double>();
    if (j.contains("ycsb")) {
      YcsbSpec spec;
      const std::string workload = j.at("ycsb").at("workload").get<std::string>();
      if (workload.size() != 1) return Error{"load: \"ycsb.workload\" must be one letter"};
      spec.workload = workload[0];
      for (const nlohmann::json& p : j.at("ycsb").at("properties")) {
        spec.properties.emplace_back(p.at(0).get<std::string>(), p.at(1).get<std::string>());
      }
      c.ycsb = std::move(spec);
    }
    if (j.contains("interval_seconds")) c.interval_seconds = j.at("interval_seconds").get<double>();
    if (j.contains("latency_limit_seconds")) {
      c.latency_limit = j.at("latency_limit_seconds").get<double>();
    }
  } catch (const nlohmann::json::exception& e) {
    return Error{fmt::format("load: malformed configuration: {}", e.what())};
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
