// history/record.cpp: a result file as a history run.
#include "history/record.h"

#include <cctype>
#include <filesystem>

#include <fmt/format.h>
#include <xxhash.h>

#include "compare/comparable.h"
#include "env/provenance.h"
#include "result/engine_values.h"
#include "result/json.h"

namespace storh::history {
namespace {

std::string known(const std::string& text) {
  return text.empty() ? "?" : text;
}

struct Provenance {
  std::string commit;
  std::string branch;
};

// The commit (and its branch) from the flags, the result, or the checkouts the suite
// file and the plugin modules live in.
Provenance provenance_of(const result::ResultFile& result, const RunSource& source) {
  std::vector<std::filesystem::path> checkouts;
  if (!result.experiment.suite_file.empty()) {
    checkouts.push_back(std::filesystem::path(result.experiment.suite_file).parent_path());
  }
  for (const result::EngineRecord& engine : result.experiment.engines) {
    if (!engine.plugin.empty()) {
      checkouts.push_back(std::filesystem::path(engine.plugin).parent_path());
      break;
    }
  }
  for (auto& dir : checkouts) {
    if (dir.empty()) dir = ".";
  }
  Provenance found;
  if (source.commit) {
    found.commit = *source.commit;
  } else if (result.experiment.git_commit) {
    found.commit = *result.experiment.git_commit;
  } else if (source.from_checkouts) {
    for (const auto& dir : checkouts) {
      if (std::optional<std::string> commit = env::git_commit_of(dir)) {
        found.commit = *commit;
        break;
      }
    }
  }
  if (source.branch) {
    found.branch = *source.branch;
  } else if (!found.commit.empty()) {
    // A branch only where it still names the recorded commit: a checkout that moved
    // on since the run would otherwise lend the run a branch it did not run on.
    for (const auto& dir : checkouts) {
      if (env::git_commit_of(dir) == found.commit) {
        if (std::optional<std::string> branch = env::git_branch_of(dir)) found.branch = *branch;
        break;
      }
    }
  }
  return found;
}

}  // namespace

bool is_utc_time(const std::string& text) {
  static constexpr std::string_view kShape = "dddd-dd-ddTdd:dd:ddZ";
  if (text.size() != kShape.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool digit = std::isdigit(static_cast<unsigned char>(text[i])) != 0;
    if (kShape[i] == 'd' ? !digit : text[i] != kShape[i]) return false;
  }
  return true;
}

std::string environment_key(const result::ResultFile& result) {
  const result::Environment& env = result.environment;
  const std::string memory =
      env.memory_bytes == 0
          ? "?"
          : fmt::format("{} GiB", (env.memory_bytes + (std::uint64_t{1} << 29)) >> 30);
  return fmt::format("{} | {} CPUs | {} | {} | {} | {} | {} {} | {}", known(env.cpu_model),
                     env.cpu_count, memory, known(env.work_dir_filesystem), known(env.kernel),
                     known(env.os), known(env.compiler), known(env.build_type),
                     known(result.experiment.durability));
}

Expected<NewRun> new_run(const result::ResultFile& result, const std::string& origin,
                         const RunSource& source, const std::string& added_time) {
  if (result.interrupted) {
    return Error{
        fmt::format("{}: the run was interrupted; its numbers are not a history point", origin)};
  }
  if (!result.failures.empty()) {
    const result::Failure& first = result.failures.front();
    return Error{fmt::format(
        "{}: {} run(s) failed (the first: {} {}, {}); a history keeps only clean runs, so its "
        "numbers are not a history point",
        origin, result.failures.size(), first.engine, result::failure_kind_name(first.kind),
        first.message)};
  }
  if (const auto& shard = result.experiment.shard) {
    return Error{fmt::format(
        "{}: shard {} of {} of a sharded run; join the shards first (storh-host merge) and "
        "add the merged file",
        origin, shard->index, shard->count)};
  }
  const std::string time = source.time.value_or(result.environment.time);
  if (!is_utc_time(time)) {
    return Error{
        fmt::format("{}: run time \"{}\" is not ISO-8601 UTC (YYYY-MM-DDTHH:MM:SSZ); pass --time",
                    origin, time)};
  }
  NewRun added;
  const compare::ComparableFile file = compare::comparable_from_result(result, origin);
  for (const compare::ComparableMetric& metric : file.metrics) {
    if (metric.runs == 0) continue;
    added.points.push_back({0, metric.key, metric.median, metric.min, metric.max,
                            static_cast<std::int64_t>(metric.runs), metric.unit, metric.direction});
  }
  if (added.points.empty()) return Error{fmt::format("{}: the result has no metric", origin)};

  added.result_json = result::to_json_text(result);
  const Provenance provenance = provenance_of(result, source);
  HistoryRun& run = added.run;
  run.result_hash =
      fmt::format("{:016x}", XXH3_64bits(added.result_json.data(), added.result_json.size()));
  run.suite = result.experiment.suite;
  run.fingerprint = result.experiment.fingerprint;
  run.environment = environment_key(result);
  run.commit = provenance.commit;
  run.branch = provenance.branch;
  run.run_time = time;
  run.added_time = added_time;
  run.host_version = result.experiment.host_version;
  return added;
}

}  // namespace storh::history
