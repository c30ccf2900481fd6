#include "load/outcome.h"

#include <cmath>

#include <fmt/format.h>

#include "result/json.h"
#include "util/json_node.h"

namespace storh::load {

void LatencyRecord::record(double seconds) {
  histogram.record(seconds);
  sum_squares += seconds * seconds;
}

void LatencyRecord::merge(const LatencyRecord& other) {
  histogram.merge(other.histogram);
  sum_squares += other.sum_squares;
}

void KindOutcome::merge(const KindOutcome& other) {
  processed += other.processed;
  failed += other.failed;
  latency.merge(other.latency);
  tries.merge(other.tries);
}

void TryCounts::merge(const TryCounts& other) {
  retried += other.retried;
  retries += other.retries;
  serialization_failures += other.serialization_failures;
  deadlock_failures += other.deadlock_failures;
  connect_ns += other.connect_ns;
  reconnects += other.reconnects;
}

bool TryCounts::empty() const {
  return retried == 0 && retries == 0 && serialization_failures == 0 && deadlock_failures == 0 &&
         reconnects == 0;
}

void add_try_counts(nlohmann::json& j, const TryCounts& t) {
  const auto put = [&](const char* name, auto value) {
    if (value != 0) j[name] = value;
  };
  put("retried", t.retried);
  put("retries", t.retries);
  put("serialization_failures", t.serialization_failures);
  put("deadlock_failures", t.deadlock_failures);
  put("connect_ns", t.connect_ns);
  put("reconnects", t.reconnects);
}

LoadOutcome kind_outcome(const LoadOutcome& mix, const KindOutcome& kind) {
  LoadOutcome out;
  out.clients = mix.clients;
  out.processed = kind.processed;
  out.failed = kind.failed;
  out.setup_seconds = mix.setup_seconds;
  out.run_seconds = mix.run_seconds;
  out.latency = kind.latency;
  out.tries = kind.tries;
  return out;
}

double LatencyRecord::stddev() const {
  const std::uint64_t n = histogram.count();
  if (n < 2) return 0;
  const double mean = histogram.mean();
  const double count = static_cast<double>(n);
  // Rounding can make the difference slightly negative for identical values.
  const double variance = (sum_squares - count * mean * mean) / (count - 1);
  return variance > 0 ? std::sqrt(variance) : 0;
}

namespace {

// The fields add_try_counts wrote; absent ones are zero.
TryCounts read_try_counts(const JsonNode& n) {
  TryCounts t;
  t.retried = n.optional("retried", &JsonNode::count).value_or(0);
  t.retries = n.optional("retries", &JsonNode::count).value_or(0);
  t.serialization_failures = n.optional("serialization_failures", &JsonNode::count).value_or(0);
  t.deadlock_failures = n.optional("deadlock_failures", &JsonNode::count).value_or(0);
  t.connect_ns = n.optional("connect_ns", &JsonNode::integer).value_or(0);
  t.reconnects = n.optional("reconnects", &JsonNode::count).value_or(0);
  return t;
}

nlohmann::json latency_json(const LatencyRecord& latency) {
  return {{"histogram", latency.histogram.to_json()}, {"sum_squares", latency.sum_squares}};
}

Expected<LatencyRecord> read_latency(const JsonNode& n) {
  Expected<stats::LatencyHistogram> histogram =
      stats::LatencyHistogram::from_json(n.at("histogram").raw());
  if (!histogram) return Error{histogram.error()};
  LatencyRecord record;
  record.histogram = std::move(*histogram);
  record.sum_squares = n.at("sum_squares").number();
  return record;
}

// The `count` numbers of the array `n`.
std::vector<JsonNode> fixed_items(const JsonNode& n, std::size_t count) {
  std::vector<JsonNode> items = n.items();
  if (items.size() != count)
    n.refuse(fmt::format("expected {} numbers, got {}", count, items.size()));
  return items;
}

}  // namespace

nlohmann::json to_json(const ClientOutcome& o) {
  nlohmann::json j = {{"open_error", o.open_error},
                      {"open_seconds", o.open_seconds},
                      {"processed", o.processed},
                      {"failed", o.failed},
                      {"warmup", o.warmup},
                      {"intended", o.intended},
                      {"first_error", o.first_error},
                      {"end_ns", o.end_ns},
                      {"latency", latency_json(o.latency)}};
  if (!o.kinds.empty()) {
    nlohmann::json kinds = nlohmann::json::array();
    for (const KindOutcome& k : o.kinds) {
      nlohmann::json kind = {
          {"processed", k.processed}, {"failed", k.failed}, {"latency", latency_json(k.latency)}};
      add_try_counts(kind, k.tries);
      kinds.push_back(std::move(kind));
    }
    j["kinds"] = std::move(kinds);
  }
  add_try_counts(j, o.tries);
  j["intervals"] = o.intervals.to_json();
  j["lag"] = {o.lag_count, o.lag_sum_ns, o.lag_max_ns};
  j["late"] = o.late;
  j["skipped"] = o.skipped;
  return j;
}

Expected<ClientOutcome> client_outcome_from_json(const nlohmann::json& json) {
  try {
    const JsonNode n(json, "");
    ClientOutcome o;
    o.open_error = n.at("open_error").str();
    o.open_seconds = n.at("open_seconds").number();
    o.processed = n.at("processed").count();
    o.failed = n.at("failed").count();
    o.warmup = n.at("warmup").count();
    o.intended = n.at("intended").count();
    o.first_error = n.at("first_error").str();
    o.end_ns = n.at("end_ns").integer();
    Expected<LatencyRecord> latency = read_latency(n.at("latency"));
    if (!latency) return Error{latency.error()};
    o.latency = std::move(*latency);
    if (n.has("kinds")) {
      for (const JsonNode& k : n.at("kinds").items()) {
        Expected<LatencyRecord> kind_latency = read_latency(k.at("latency"));
        if (!kind_latency) return Error{kind_latency.error()};
        o.kinds.push_back({k.at("processed").count(), k.at("failed").count(),
                           std::move(*kind_latency), read_try_counts(k)});
      }
    }
    o.tries = read_try_counts(n);
    o.intervals = IntervalSeries::read(n.at("intervals"));
    const std::vector<JsonNode> lag = fixed_items(n.at("lag"), 3);
    o.lag_count = lag[0].count();
    o.lag_sum_ns = lag[1].count();
    o.lag_max_ns = lag[2].count();
    o.late = n.at("late").count();
    o.skipped = n.at("skipped").count();
    return o;
  } catch (const BadJsonValue& bad) {
    return Error{fmt::format("client outcome: {}", bad.message)};
  }
}

std::vector<std::string> part_operations(const std::string& type,
                                         const std::vector<std::string>& parts) {
  std::vector<std::string> names;
  names.reserve(parts.size());
  for (const std::string& part : parts) names.push_back(fmt::format("{}.{}", type, part));
  return names;
}

double LoadOutcome::tps_excluding_setup() const {
  return run_seconds > 0 ? static_cast<double>(processed) / run_seconds : 0;
}

double LoadOutcome::tps_including_setup() const {
  const double total = setup_seconds + run_seconds;
  return total > 0 ? static_cast<double>(processed) / total : 0;
}

nlohmann::json to_json(const LoadOutcome& o) {
  nlohmann::json j = {
      {"clients", o.clients},
      {"intended", o.intended ? nlohmann::json(*o.intended) : nlohmann::json(nullptr)},
      {"processed", o.processed},
      {"failed", o.failed},
      {"warmup", o.warmup},
      {"first_error", o.first_error},
      {"setup_seconds", o.setup_seconds},
      {"run_seconds", o.run_seconds},
      {"latency", latency_json(o.latency)}};
  add_try_counts(j, o.tries);
  if (o.intervals) j["intervals"] = nlohmann::json(result::load_intervals_json(*o.intervals));
  if (o.lag) j["lag"] = {o.lag->mean, o.lag->max};
  if (o.late > 0) j["late"] = o.late;
  if (o.skipped > 0) j["skipped"] = o.skipped;
  if (!o.statements.empty()) j["statements"] = result::statements_json(o.statements);
  return j;
}

Expected<LoadOutcome> load_outcome_from_json(const nlohmann::json& json) {
  try {
    const JsonNode n(json, "");
    LoadOutcome o;
    o.clients = static_cast<std::uint32_t>(n.at("clients").count());
    if (!n.at("intended").is_null()) o.intended = n.at("intended").count();
    o.processed = n.at("processed").count();
    o.failed = n.at("failed").count();
    o.warmup = n.at("warmup").count();
    o.first_error = n.at("first_error").str();
    o.setup_seconds = n.at("setup_seconds").number();
    o.run_seconds = n.at("run_seconds").number();
    Expected<LatencyRecord> latency = read_latency(n.at("latency"));
    if (!latency) return Error{latency.error()};
    o.latency = std::move(*latency);
    o.tries = read_try_counts(n);
    if (n.has("intervals")) o.intervals = result::read_load_intervals(n.at("intervals"));
    if (n.has("lag")) {
      const std::vector<JsonNode> lag = fixed_items(n.at("lag"), 2);
      o.lag = result::LoadLag{lag[0].number(), lag[1].number()};
    }
    if (n.has("late")) o.late = n.at("late").count();
    if (n.has("skipped")) o.skipped = n.at("skipped").count();
    if (n.has("statements")) o.statements = result::read_statements(n.at("statements"));
    return o;
  } catch (const BadJsonValue& bad) {
    return Error{fmt::format("load outcome: {}", bad.message)};
  }
}

}  // namespace storh::load
