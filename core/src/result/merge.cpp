#include "result/merge.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "util/natural_order.h"

namespace storh::result {
namespace {

// Refuses what cannot be merged; the error names the file(s).
std::string check_shards(const std::vector<NamedResult>& shards) {
  if (shards.empty()) return "no shard files given";
  const NamedResult& first = shards.front();
  std::map<std::uint32_t, const std::string*> seen;
  for (const NamedResult& file : shards) {
    const Experiment& e = file.result.experiment;
    if (!e.shard) {
      return fmt::format("{}: not a shard: its experiment has no \"shard\" (run --shard=K/N)",
                         file.name);
    }
    const Experiment& f = first.result.experiment;
    if (e.suite != f.suite || e.fingerprint != f.fingerprint) {
      return fmt::format(
          "{}: suite \"{}\" fingerprint {}, but {} is suite \"{}\" fingerprint {}: shards of "
          "different suites (or of a changed suite) cannot be merged",
          file.name, e.suite, e.fingerprint, first.name, f.suite, f.fingerprint);
    }
    if (e.shard->count != f.shard->count || e.shard->plan_cells != f.shard->plan_cells) {
      return fmt::format("{}: shard {} of {} ({} cells in all), but {} is shard {} of {} ({})",
                         file.name, e.shard->index, e.shard->count, e.shard->plan_cells, first.name,
                         f.shard->index, f.shard->count, f.shard->plan_cells);
    }
    if (e.shard->index < 1 || e.shard->index > e.shard->count) {
      return fmt::format("{}: shard {} of {} is not a shard number", file.name, e.shard->index,
                         e.shard->count);
    }
    const auto [at, fresh] = seen.emplace(e.shard->index, &file.name);
    if (!fresh) {
      return fmt::format("shard {} of {} given twice: {} and {}", e.shard->index, e.shard->count,
                         *at->second, file.name);
    }
  }
  std::vector<std::string> missing;
  for (std::uint32_t k = 1; k <= first.result.experiment.shard->count; ++k) {
    if (!seen.contains(k)) missing.push_back(std::to_string(k));
  }
  if (!missing.empty()) {
    return fmt::format("shard{} {} of {} missing: every shard is needed for the whole suite",
                       missing.size() == 1 ? "" : "s", fmt::join(missing, ", "),
                       first.result.experiment.shard->count);
  }
  std::map<std::string, const std::string*> owner;
  for (const NamedResult& file : shards) {
    for (const Metric& metric : file.result.metrics) {
      const auto [at, fresh] = owner.emplace(metric.key, &file.name);
      if (!fresh) {
        return fmt::format("metric {} is in both {} and {}: the shards overlap", metric.key,
                           *at->second, file.name);
      }
    }
  }
  return "";
}

void add_unique(std::vector<std::string>& list, const std::string& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

// "shards ran on different CPU models: A (shard 1), B (shard 2)" when they differ.
template <typename Get>
void warn_if_different(const std::vector<NamedResult>& shards, std::string_view what, Get get,
                       std::vector<std::string>& warnings) {
  std::vector<std::string> values;
  for (const NamedResult& file : shards) {
    add_unique(values,
               fmt::format("{} (shard {})", get(file.result), file.result.experiment.shard->index));
  }
  std::set<std::string> distinct;
  for (const NamedResult& file : shards) distinct.insert(get(file.result));
  if (distinct.size() > 1) {
    warnings.push_back(
        fmt::format("shards ran on different {}: {}", what, fmt::join(values, ", ")));
  }
}

std::string plugin_hashes(const ResultFile& r) {
  std::vector<std::string> hashes;
  for (const EngineRecord& engine : r.experiment.engines) {
    hashes.push_back(engine.name + "=" + (engine.build ? engine.build->file_hash : "unknown"));
  }
  return fmt::format("{}", fmt::join(hashes, " "));
}

}  // namespace

Expected<ResultFile> merge_shards(const std::vector<NamedResult>& shards) {
  if (std::string problem = check_shards(shards); !problem.empty()) return Error{problem};
  std::vector<const NamedResult*> ordered;
  for (const NamedResult& file : shards) ordered.push_back(&file);
  std::sort(ordered.begin(), ordered.end(), [](const NamedResult* a, const NamedResult* b) {
    return a->result.experiment.shard->index < b->result.experiment.shard->index;
  });

  ResultFile merged;
  merged.schema_version = ordered.front()->result.schema_version;
  merged.experiment = ordered.front()->result.experiment;
  merged.experiment.shard.reset();
  merged.environment = ordered.front()->result.environment;
  for (const NamedResult* file : ordered) {
    const ResultFile& r = file->result;
    for (const std::string& warning : r.environment.warnings) {
      add_unique(merged.environment.warnings, warning);
    }
    for (const std::string& counter : r.experiment.counters) {
      add_unique(merged.experiment.counters, counter);
    }
    merged.interrupted = merged.interrupted || r.interrupted;
    merged.metrics.insert(merged.metrics.end(), r.metrics.begin(), r.metrics.end());
    merged.runs.insert(merged.runs.end(), r.runs.begin(), r.runs.end());
    merged.failures.insert(merged.failures.end(), r.failures.begin(), r.failures.end());
  }
  warn_if_different(
      shards, "CPU models", [](const ResultFile& r) { return r.environment.cpu_model; },
      merged.environment.warnings);
  warn_if_different(
      shards, "commits",
      [](const ResultFile& r) { return r.experiment.git_commit.value_or("unknown"); },
      merged.environment.warnings);
  warn_if_different(shards, "plugin builds", plugin_hashes, merged.environment.warnings);
  std::sort(merged.metrics.begin(), merged.metrics.end(),
            [](const Metric& a, const Metric& b) { return natural_less(a.key, b.key); });
  return merged;
}

std::vector<std::string> warnings_added_by_merge(const std::vector<NamedResult>& shards,
                                                 const ResultFile& merged) {
  const NamedResult* first = nullptr;
  for (const NamedResult& file : shards) {
    const auto& shard = file.result.experiment.shard;
    if (shard && (first == nullptr || shard->index < first->result.experiment.shard->index)) {
      first = &file;
    }
  }
  std::vector<std::string> added;
  for (const std::string& warning : merged.environment.warnings) {
    const std::vector<std::string>* had = first ? &first->result.environment.warnings : nullptr;
    if (had == nullptr || std::find(had->begin(), had->end(), warning) == had->end()) {
      added.push_back(warning);
    }
  }
  return added;
}

}  // namespace storh::result
