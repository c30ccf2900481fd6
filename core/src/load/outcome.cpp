#include "load/outcome.h"

#include <cmath>

#include <fmt/format.h>

#include "result/json.h"

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

TryCounts try_counts_from_json(const nlohmann::json& j) {
  TryCounts t;
  t.retried = j.value("retried", std::uint64_t{0});
  t.retries = j.value("retries", std::uint64_t{0});
  t.serialization_failures = j.value("serialization_failures", std::uint64_t{0});
  t.deadlock_failures = j.value("deadlock_failures", std::uint64_t{0});
  t.connect_ns = j.value("connect_ns", std::int64_t{0});
  t.reconnects = j.value("reconnects", std::uint64_t{0});
  return t;
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

nlohmann::json latency_json(const LatencyRecord& latency) {
  return {{"histogram", latency.histogram.to_json()}, {"sum_squares", latency.sum_squares}};
}

Expected<LatencyRecord> latency_from_json(const nlohmann::json& json) {
  Expected<stats::LatencyHistogram> histogram =
      stats::LatencyHistogram::from_json(json.at("histogram"));
  if (!histogram) return Error{histogram.error()};
  LatencyRecord record;
  record.histogram = std::move(*histogram);
  record.sum_squares = json.at("sum_squares").get<double>();
  return record;
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

Expected<ClientOutcome> client_outcome_from_json(const nlohmann::json& j) {
  try {
    ClientOutcome o;
    o.open_error = j.at("open_error").get<std::string>();
    o.open_seconds = j.at("open_seconds").get<double>();
    o.processed = j.at("processed").get<std::uint64_t>();
    o.failed = j.at("failed").get<std::uint64_t>();
    o.warmup = j.at("warmup").get<std::uint64_t>();
    o.intended = j.at("intended").get<std::uint64_t>();
    o.first_error = j.at("first_error").get<std::string>();
    o.end_ns = j.at("end_ns").get<std::int64_t>();
    Expected<LatencyRecord> latency = latency_from_json(j.at("latency"));
    if (!latency) return Error{latency.error()};
    o.latency = std::move(*latency);
    if (j.contains("kinds")) {
      for (const nlohmann::json& k : j.at("kinds")) {
        Expected<LatencyRecord> kind_latency = latency_from_json(k.at("latency"));
        if (!kind_latency) return Error{kind_latency.error()};
        o.kinds.push_back({k.at("processed").get<std::uint64_t>(),
                           k.at("failed").get<std::uint64_t>(), std::move(*kind_latency),
                           try_counts_from_json(k)});
      }
    }
    o.tries = try_counts_from_json(j);
    Expected<IntervalSeries> intervals = IntervalSeries::from_json(j.at("intervals"));
    if (!intervals) return Error{fmt::format("client outcome: {}", intervals.error())};
    o.intervals = std::move(*intervals);
    o.lag_count = j.at("lag").at(0).get<std::uint64_t>();
    o.lag_sum_ns = j.at("lag").at(1).get<std::uint64_t>();
    o.lag_max_ns = j.at("lag").at(2).get<std::uint64_t>();
    o.late = j.at("late").get<std::uint64_t>();
    o.skipped = j.at("skipped").get<std::uint64_t>();
    return o;
  } catch (const nlohmann::json::exception& e) {
    return Error{fmt::format("client outcome: {}", e.what())};
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

Expected<LoadOutcome> load_outcome_from_json(const nlohmann::json& j) {
  try {
    LoadOutcome o;
    o.clients = j.at("clients").get<std::uint32_t>();
    if (!j.at("intended").is_null()) o.intended = j.at("intended").get<std::uint64_t>();
    o.processed = j.at("processed").get<std::uint64_t>();
    o.failed = j.at("failed").get<std::uint64_t>();
    o.warmup = j.at("warmup").get<std::uint64_t>();
    o.first_error = j.at("first_error").get<std::string>();
    o.setup_seconds = j.at("setup_seconds").get<double>();
    o.run_seconds = j.at("run_seconds").get<double>();
    Expected<LatencyRecord> latency = latency_from_json(j.at("latency"));
    if (!latency) return Error{latency.error()};
    o.latency = std::move(*latency);
    o.tries = try_counts_from_json(j);
    if (j.contains("intervals")) {
      Expected<result::LoadIntervals> intervals =
          result::load_intervals_from_json(j.at("intervals"));
      if (!intervals) return Error{fmt::format("load outcome: {}", intervals.error())};
      o.intervals = std::move(*intervals);
    }
    if (j.contains("lag")) {
      o.lag = result::LoadLag{j.at("lag").at(0).get<double>(), j.at("lag").at(1).get<double>()};
    }
    if (j.contains("late")) o.late = j.at("late").get<std::uint64_t>();
    if (j.contains("skipped")) o.skipped = j.at("skipped").get<std::uint64_t>();
    if (j.contains("statements")) {
      Expected<std::vector<result::StatementLatency>> rows =
          result::statements_from_json(j.at("statements"));
      if (!rows) return Error{fmt::format("load outcome: {}", rows.error())};
      o.statements = std::move(*rows);
    }
    return o;
  } catch (const nlohmann::json::exception& e) {
    return Error{fmt::format("load outcome: {}", e.what())};
  }
}

}  // namespace storh::load
