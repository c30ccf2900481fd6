#include "foreign/google_benchmark_context.h"

#include <chrono>
#include <filesystem>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "env/environment.h"

namespace storh::foreign {
namespace {

// Digits [at, at + count) of `text` as a number; nullopt unless all are digits.
std::optional<int> digits_at(const std::string& text, std::size_t at, std::size_t count) {
  if (at + count > text.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

// "2026-12-04T21:08:52+01:00" (what Google Benchmark writes since 1.6) or "...Z" as
// "2026-12-04T20:08:52Z"; nullopt for any other form (older versions wrote local
// time without an offset, which cannot be placed in UTC).
std::optional<std::string> utc_time(const std::string& date) {
  const auto year = digits_at(date, 0, 4), month = digits_at(date, 5, 2),
             day = digits_at(date, 8, 2), hour = digits_at(date, 11, 2),
             minute = digits_at(date, 14, 2), second = digits_at(date, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second || date.size() < 20 ||
      date[4] != '-' || date[7] != '-' || date[10] != 'T' || date[13] != ':' || date[16] != ':') {
    return std::nullopt;
  }
  std::chrono::minutes offset{0};
  if (date.size() == 20 && date[19] == 'Z') {
    offset = std::chrono::minutes{0};
  } else if (date.size() == 25 && (date[19] == '+' || date[19] == '-') && date[22] == ':') {
    const auto offset_hours = digits_at(date, 20, 2), offset_minutes = digits_at(date, 23, 2);
    if (!offset_hours || !offset_minutes) return std::nullopt;
    offset = std::chrono::minutes{*offset_hours * 60 + *offset_minutes};
    if (date[19] == '-') offset = -offset;
  } else {
    return std::nullopt;
  }
  const std::chrono::year_month_day ymd{std::chrono::year{*year},
                                        std::chrono::month{static_cast<unsigned>(*month)},
                                        std::chrono::day{static_cast<unsigned>(*day)}};
  if (!ymd.ok() || *hour > 23 || *minute > 59 || *second > 60) return std::nullopt;
  const std::chrono::sys_seconds local = std::chrono::sys_days{ymd} + std::chrono::hours{*hour} +
                                         std::chrono::minutes{*minute} +
                                         std::chrono::seconds{*second};
  return env::format_utc(local - offset);
}

// "L1 Data 32 KiB": one entry of context.caches ({type, level, size, num_sharing}).
std::string cache_text(const JsonNode& cache) {
  const std::optional<double> level = cache.optional("level", &JsonNode::finite);
  const std::optional<std::string> type = cache.optional("type", &JsonNode::str);
  const std::optional<double> size = cache.optional("size", &JsonNode::finite);
  std::string text = level ? fmt::format("L{}", *level) : "cache";
  if (type) text += " " + *type;
  if (size) {
    text += *size >= 1024 * 1024 ? fmt::format(" {} MiB", *size / (1024 * 1024))
                                 : fmt::format(" {} KiB", *size / 1024);
  }
  return text;
}

std::string cpu_text(const JsonNode& context) {
  std::vector<std::string> parts;
  if (const std::optional<double> mhz = context.optional("mhz_per_cpu", &JsonNode::finite)) {
    parts.push_back(fmt::format("{} MHz", *mhz));
  }
  if (const std::optional<JsonNode> caches = context.find("caches")) {
    for (const JsonNode& cache : caches->items()) parts.push_back(cache_text(cache));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

GoogleBenchmarkContext read_google_benchmark_context(const JsonNode& context) {
  GoogleBenchmarkContext read;
  result::Experiment& experiment = read.experiment;
  result::Environment& environment = read.environment;
  experiment.durability.clear();  // not a storage run: nothing was made durable

  const std::optional<std::string> executable = context.optional("executable", &JsonNode::str);
  read.executable_name = executable && !executable->empty()
                             ? std::filesystem::path(*executable).filename().string()
                             : "google-benchmark";
  experiment.suite = read.executable_name;
  if (executable) {
    experiment.suite_file = *executable;
    experiment.command_line = {*executable};
  }
  experiment.hostname = context.optional("host_name", &JsonNode::str).value_or("");
  read.library_version = context.optional("library_version", &JsonNode::str).value_or("unknown");

  const std::string date = context.optional("date", &JsonNode::str).value_or("");
  environment.time = utc_time(date).value_or(date);
  if (const std::optional<double> cpus = context.optional("num_cpus", &JsonNode::finite)) {
    environment.cpu_count = *cpus >= 0 ? static_cast<unsigned>(*cpus) : 0;
  }
  environment.cpu_model = cpu_text(context);
  environment.build_type = context.optional("library_build_type", &JsonNode::str).value_or("");
  if (environment.build_type == "debug") {
    environment.warnings.push_back(
        "the Google Benchmark library was built as debug (context.library_build_type): its "
        "timing loop may add more overhead than a release build's");
  }
  if (context.optional("cpu_scaling_enabled", &JsonNode::boolean).value_or(false)) {
    environment.warnings.push_back(
        "CPU frequency scaling was enabled (context.cpu_scaling_enabled): timings may be noisy");
  }
  return read;
}

}  // namespace storh::foreign
