// Load-mode overrides, as pgbench's -c -t -T -R: --clients, --transactions,
// --duration and --rate replace the [load] table's values (docs/load.md). The first
// three also drop the suite's [[load.bench]] tables: the run is a plain matrix again,
// of the benches' transactions. --transactions=10% instead keeps the benches and
// shortens each point to that share of its transactions.
#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "suite/suite_internal.h"
#include "util/text.h"

namespace storh::suite::detail {
namespace {

void flag_error(std::vector<SuiteError>& errors, std::string_view flag, std::string message) {
  errors.push_back(SuiteError{SourcePos{std::string(flag)}, std::move(message)});
}

// A comma list of values read by `parse` (nullopt: bad), without duplicates. Returns
// nullopt after reporting the first bad or repeated value.
template <typename T, typename Parse>
std::optional<std::vector<Located<T>>> parse_list(std::vector<SuiteError>& errors,
                                                  std::string_view flag, const std::string& text,
                                                  std::string_view expected, Parse parse) {
  std::vector<Located<T>> values;
  for (std::string_view part : split_unquoted(text, ',')) {
    part = trim(part);
    const std::optional<T> value = parse(part);
    if (!value) {
      flag_error(errors, flag, fmt::format("expected {}, got {}", expected, in_quotes(part)));
      return std::nullopt;
    }
    if (std::any_of(values.begin(), values.end(),
                    [&](const auto& v) { return v.value == *value; })) {
      flag_error(errors, flag, fmt::format("{} is given twice in {}", part, in_quotes(text)));
      return std::nullopt;
    }
    values.push_back({*value, SourcePos{std::string(flag)}});
  }
  return values;
}

std::optional<double> positive_seconds(std::string_view text) {
  const std::optional<double> seconds = parse_duration(text);
  if (!seconds || !(*seconds > 0) || !std::isfinite(*seconds)) return std::nullopt;
  return seconds;
}

std::optional<double> positive_number(std::string_view text) {
  const std::optional<double> value = parse_decimal(text);
  if (!value || !(*value > 0)) return std::nullopt;
  return value;
}

}  // namespace

bool has_load_overrides(const Overrides& overrides) {
  return overrides.clients || overrides.transactions || overrides.duration || overrides.rate ||
         overrides.interval || overrides.latency_limit;
}

void apply_load_overrides(const Overrides& overrides, Suite& suite,
                          std::vector<SuiteError>& errors) {
  if (!has_load_overrides(overrides)) return;
  if (!suite.load) {
    const std::string_view flag = overrides.clients        ? "--clients"
                                  : overrides.transactions ? "--transactions"
                                  : overrides.duration     ? "--duration"
                                  : overrides.rate         ? "--rate"
                                  : overrides.interval     ? "--interval"
                                                           : "--latency-limit";
    flag_error(errors, flag,
               fmt::format("the suite has no [load] table; --clients, --transactions, --duration, "
                           "--rate, --interval and --latency-limit set up load runs "
                           "(docs/load.md)"));
    return;
  }
  LoadSetting& load = *suite.load;
  if (overrides.interval) {
    if (const std::optional<double> seconds = positive_seconds(*overrides.interval)) {
      load.interval_seconds = *seconds;
    } else {
      flag_error(errors, "--interval",
                 fmt::format("expected a duration > 0 such as 1s or 500ms, got {}",
                             in_quotes(*overrides.interval)));
    }
  }
  if (overrides.latency_limit) {
    if (*overrides.latency_limit == "0" || *overrides.latency_limit == "none") {
      load.latency_limit.reset();
    } else if (const std::optional<double> seconds = positive_seconds(*overrides.latency_limit)) {
      load.latency_limit = *seconds;
    } else {
      flag_error(errors, "--latency-limit",
                 fmt::format("expected a duration > 0 such as 10ms (0 or none: no limit), got {}",
                             in_quotes(*overrides.latency_limit)));
    }
  }
  if (!(overrides.clients || overrides.transactions || overrides.duration || overrides.rate)) {
    return;
  }
  if (suite.ycsb && (overrides.transactions || overrides.duration)) {
    flag_error(errors, overrides.transactions ? "--transactions" : "--duration",
               "a YCSB suite ([ycsb]) counts its operations with --operationcount (and its "
               "records with --recordcount), docs/ycsb.md");
    return;
  }
  if (overrides.transactions && overrides.duration) {
    flag_error(errors, "--transactions",
               "give --transactions or --duration, not both (transactions per client, or how "
               "long each cell runs)");
    return;
  }
  // --transactions=10% keeps the benches and their tables and runs each point with that
  // share of its transactions (at least 1): the study's shape, shortened.
  if (overrides.transactions && overrides.transactions->ends_with('%') && !overrides.clients &&
      !overrides.duration) {
    const std::optional<double> percent = positive_number(
        std::string_view(*overrides.transactions).substr(0, overrides.transactions->size() - 1));
    if (!percent || *percent > 100 || load.benches.empty()) {
      flag_error(errors, "--transactions",
                 load.benches.empty()
                     ? "a percentage scales the suite's [[load.bench]] points, and it has none: "
                       "give transactions per client (e.g. 100)"
                     : fmt::format("expected a share of each bench point's transactions from "
                                   "0% to 100% such as 10%, got {}",
                                   in_quotes(*overrides.transactions)));
      return;
    }
    for (BenchSetting& bench : load.benches) {
      for (Located<load::Point>& point : bench.points) {
        point.value.transactions = std::max<std::uint64_t>(
            1, static_cast<std::uint64_t>(
                   std::llround(static_cast<double>(point.value.transactions) * *percent / 100)));
      }
    }
    return;
  }
  // The flags ask for the plain clients x transactions matrix: benches would not say
  // which points the flags' values belong to, so they go (docs/load.md, "Benches"). The
  // transactions they ran stay the ones that run: an engine that named none runs the
  // benches' union, not every transaction it has.
  const bool had_benches = !load.benches.empty();
  if ((overrides.clients || overrides.transactions || overrides.duration) && had_benches) {
    std::vector<Located<std::string>> benched;
    for (const BenchSetting& bench : load.benches) {
      for (const Located<std::string>& operation : bench.operations) {
        const auto same = [&](const Located<std::string>& o) { return o.value == operation.value; };
        if (std::none_of(benched.begin(), benched.end(), same)) benched.push_back(operation);
      }
    }
    for (EngineSetting& engine : suite.engines) {
      if (engine.operations.empty()) engine.operations = benched;
    }
    load.benches.clear();
  }
  if (overrides.clients) {
    auto clients =
        parse_list<std::uint32_t>(errors, "--clients", *overrides.clients,
                                  fmt::format("client counts from 1 to {}", kMaxLoadClients),
                                  [](std::string_view text) -> std::optional<std::uint32_t> {
                                    const std::optional<std::uint64_t> count = parse_count(text);
                                    if (!count || *count < 1 || *count > kMaxLoadClients)
                                      return std::nullopt;
                                    return static_cast<std::uint32_t>(*count);
                                  });
    if (clients) load.clients = std::move(*clients);
  }
  if (overrides.transactions) {
    auto transactions =
        parse_list<std::uint64_t>(errors, "--transactions", *overrides.transactions,
                                  "transactions per client >= 1 such as 100, 10k or 100,300",
                                  [](std::string_view text) -> std::optional<std::uint64_t> {
                                    const std::optional<std::uint64_t> count = parse_count(text);
                                    if (!count || *count < 1) return std::nullopt;
                                    return count;
                                  });
    if (transactions) {
      load.transactions = std::move(*transactions);
      load.durations.clear();
    }
  }
  if (overrides.duration) {
    auto durations =
        parse_list<double>(errors, "--duration", *overrides.duration,
                           "durations > 0 such as 10s, 1m or 10s,30s", positive_seconds);
    if (durations) {
      load.durations = std::move(*durations);
      load.transactions.clear();
    }
  }
  if (overrides.rate) {
    if (*overrides.rate == "0" || *overrides.rate == "none") {
      load.rate.reset();
    } else if (const std::optional<double> rate = positive_number(*overrides.rate)) {
      load.rate = rate;
    } else {
      flag_error(errors, "--rate",
                 fmt::format("expected transactions per second of all clients > 0 (0 or none: "
                             "as fast as possible), got {}",
                             in_quotes(*overrides.rate)));
    }
  }
  if (load.clients.empty()) load.clients.push_back({1, load.pos});
  if (suite.ycsb) return;  // its amounts are YCSB properties
  if (load.benches.empty() && load.transactions.empty() && load.durations.empty()) {
    flag_error(errors, overrides.clients ? "--clients" : "--rate",
               had_benches ? "replaces the suite's [[load.bench]] points with a clients x "
                             "transactions matrix, which needs --transactions (per client, e.g. "
                             "100) or --duration (e.g. 10s) too"
                           : "a load run needs --transactions (per client, e.g. 100) or "
                             "--duration (e.g. 10s)");
  }
}

}  // namespace storh::suite::detail
