// The load parts of a result file that only some cells have: the interval series,
// schedule lag, late and skipped counts (result/json.h).
#include <algorithm>

#include <fmt/format.h>

#include "result/json.h"

namespace storh::result {

using nlohmann::json;
using nlohmann::ordered_json;

ordered_json load_intervals_json(const LoadIntervals& c) {
  ordered_json j = {{"seconds", c.seconds},
                    {"transactions", c.transactions},
                    {"failed", c.failed},
                    {"retries", c.retries}};
  const auto any = [](const std::vector<std::uint64_t>& v) {
    return std::any_of(v.begin(), v.end(), [](std::uint64_t x) { return x != 0; });
  };
  if (any(c.skipped)) j["skipped"] = c.skipped;
  if (any(c.late)) j["late"] = c.late;
  j["latency_mean"] = c.latency_mean;
  j["latency_stddev"] = c.latency_stddev;
  j["latency_p50"] = c.latency_p50;
  j["latency_p90"] = c.latency_p90;
  j["latency_p99"] = c.latency_p99;
  j["latency_max"] = c.latency_max;
  if (!c.lag_mean.empty()) {
    j["lag_mean"] = c.lag_mean;
    j["lag_max"] = c.lag_max;
  }
  return j;
}

Expected<LoadIntervals> load_intervals_from_json(const json& j) {
  LoadIntervals c;
  try {
    c.seconds = j.at("seconds").get<double>();
    if (!(c.seconds > 0)) return Error{"intervals: \"seconds\" must be > 0"};
    c.transactions = j.at("transactions").get<std::vector<std::uint64_t>>();
    const std::size_t n = c.transactions.size();
    const auto counts = [&](const char* key, std::vector<std::uint64_t>& out) -> bool {
      out = j.contains(key) ? j.at(key).get<std::vector<std::uint64_t>>()
                            : std::vector<std::uint64_t>(n, 0);
      return out.size() == n;
    };
    const auto figures = [&](const char* key, std::vector<double>& out) -> bool {
      out = j.at(key).get<std::vector<double>>();
      return out.size() == n;
    };
    for (auto [key, out] : {std::pair{"failed", &c.failed}, std::pair{"retries", &c.retries},
                            std::pair{"skipped", &c.skipped}, std::pair{"late", &c.late}}) {
      if (!counts(key, *out))
        return Error{fmt::format("intervals: \"{}\" has not {} values", key, n)};
    }
    for (auto [key, out] :
         {std::pair{"latency_mean", &c.latency_mean},
          std::pair{"latency_stddev", &c.latency_stddev}, std::pair{"latency_p50", &c.latency_p50},
          std::pair{"latency_p90", &c.latency_p90}, std::pair{"latency_p99", &c.latency_p99},
          std::pair{"latency_max", &c.latency_max}}) {
      if (!figures(key, *out))
        return Error{fmt::format("intervals: \"{}\" has not {} values", key, n)};
    }
    if (j.contains("lag_mean")) {
      if (!figures("lag_mean", c.lag_mean) || !figures("lag_max", c.lag_max)) {
        return Error{fmt::format("intervals: the lag columns have not {} values", n)};
      }
    }
  } catch (const json::exception& e) {
    return Error{fmt::format("intervals: {}", e.what())};
  }
  return c;
}

std::string load_extras_from_json(const json& j, std::optional<LoadLag>& lag, std::uint64_t& late,
                                  std::uint64_t& skipped, std::optional<LoadIntervals>* intervals) {
  try {
    if (j.contains("lag"))
      lag = LoadLag{j.at("lag").at("mean").get<double>(), j.at("lag").at("max").get<double>()};
    if (j.contains("late")) late = j.at("late").get<std::uint64_t>();
    if (j.contains("skipped")) skipped = j.at("skipped").get<std::uint64_t>();
  } catch (const json::exception& e) {
    return fmt::format("lag, late or skipped: {}", e.what());
  }
  if (intervals != nullptr && j.contains("intervals")) {
    Expected<LoadIntervals> read = load_intervals_from_json(j.at("intervals"));
    if (!read) return read.error();
    *intervals = std::move(*read);
  }
  return "";
}

ordered_json statements_json(const std::vector<StatementLatency>& statements) {
  ordered_json rows = ordered_json::array();
  for (const StatementLatency& s : statements) {
    rows.push_back({{"script", s.script},
                    {"line", s.line},
                    {"command", s.command},
                    {"count", s.count},
                    {"seconds", s.seconds},
                    {"mean", s.count > 0 ? s.seconds / static_cast<double>(s.count) : 0.0},
                    {"failures", s.failures},
                    {"retries", s.retries}});
  }
  return rows;
}

Expected<std::vector<StatementLatency>> statements_from_json(const json& j) {
  std::vector<StatementLatency> rows;
  if (!j.is_array()) return Error{"statements: expected an array"};
  for (std::size_t i = 0; i < j.size(); ++i) {
    const json& row = j[i];
    try {
      rows.push_back({row.at("script").get<std::string>(), row.at("line").get<std::uint32_t>(),
                      row.at("command").get<std::string>(), row.at("count").get<std::uint64_t>(),
                      row.at("seconds").get<double>(), row.at("failures").get<std::uint64_t>(),
                      row.at("retries").get<std::uint64_t>()});
    } catch (const json::exception& e) {
      return Error{fmt::format("statements[{}]: {}", i, e.what())};
    }
  }
  return rows;
}

void merge_statements(std::vector<StatementLatency>& sum,
                      const std::vector<StatementLatency>& more) {
  for (const StatementLatency& row : more) {
    const auto same = std::find_if(sum.begin(), sum.end(), [&](const StatementLatency& s) {
      return s.script == row.script && s.line == row.line && s.command == row.command;
    });
    if (same == sum.end()) {
      sum.push_back(row);
      continue;
    }
    same->count += row.count;
    same->seconds += row.seconds;
    same->failures += row.failures;
    same->retries += row.retries;
  }
}

}  // namespace storh::result
