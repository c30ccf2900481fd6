// The load parts of a result file that only some cells have: the interval series,
// schedule lag, late and skipped counts (result/json.h).
#include <algorithm>
#include <cstdint>

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

namespace {

std::vector<std::uint64_t> counts_of(const JsonNode& node) {
  std::vector<std::uint64_t> values;
  for (const JsonNode& item : node.items()) values.push_back(item.count());
  return values;
}

std::vector<double> numbers_of(const JsonNode& node) {
  std::vector<double> values;
  for (const JsonNode& item : node.items()) values.push_back(item.number());
  return values;
}

}  // namespace

LoadIntervals read_load_intervals(const JsonNode& node) {
  LoadIntervals c;
  const JsonNode seconds = node.at("seconds");
  c.seconds = seconds.number();
  if (!(c.seconds > 0)) seconds.refuse("must be > 0");
  c.transactions = counts_of(node.at("transactions"));
  const std::size_t n = c.transactions.size();
  const auto same_length = [&](const JsonNode& column, std::size_t size) {
    if (size != n) column.refuse(fmt::format("has {} values, not {} (as transactions)", size, n));
  };
  for (auto [key, out] : {std::pair{"failed", &c.failed}, std::pair{"retries", &c.retries},
                          std::pair{"skipped", &c.skipped}, std::pair{"late", &c.late}}) {
    if (!node.has(key)) {
      out->assign(n, 0);
      continue;
    }
    const JsonNode column = node.at(key);
    *out = counts_of(column);
    same_length(column, out->size());
  }
  for (auto [key, out] :
       {std::pair{"latency_mean", &c.latency_mean}, std::pair{"latency_stddev", &c.latency_stddev},
        std::pair{"latency_p50", &c.latency_p50}, std::pair{"latency_p90", &c.latency_p90},
        std::pair{"latency_p99", &c.latency_p99}, std::pair{"latency_max", &c.latency_max}}) {
    const JsonNode column = node.at(key);
    *out = numbers_of(column);
    same_length(column, out->size());
  }
  if (node.has("lag_mean")) {
    for (auto [key, out] : {std::pair{"lag_mean", &c.lag_mean}, std::pair{"lag_max", &c.lag_max}}) {
      const JsonNode column = node.at(key);
      *out = numbers_of(column);
      same_length(column, out->size());
    }
  }
  return c;
}

void read_load_extras(const JsonNode& node, std::optional<LoadLag>& lag, std::uint64_t& late,
                      std::uint64_t& skipped, std::optional<LoadIntervals>* intervals) {
  if (node.has("lag")) {
    const JsonNode l = node.at("lag");
    lag = LoadLag{l.at("mean").number(), l.at("max").number()};
  }
  if (node.has("late")) late = node.at("late").count();
  if (node.has("skipped")) skipped = node.at("skipped").count();
  if (intervals != nullptr && node.has("intervals")) {
    *intervals = read_load_intervals(node.at("intervals"));
  }
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

std::vector<StatementLatency> read_statements(const JsonNode& node) {
  std::vector<StatementLatency> rows;
  for (const JsonNode& row : node.items()) {
    rows.push_back({row.at("script").str(), row.at("line").count32(), row.at("command").str(),
                    row.at("count").count(), row.at("seconds").number(), row.at("failures").count(),
                    row.at("retries").count()});
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
