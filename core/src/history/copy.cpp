// history/copy.cpp
#include "history/copy.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

namespace storh::history {

Expected<CopyCount> copy_history(const HistoryStore& from, HistoryStore& to) {
  Expected<std::vector<HistoryRun>> runs = from.runs();
  if (!runs) return Error{runs.error()};
  Expected<std::vector<HistoryPoint>> points = from.points();
  if (!points) return Error{points.error()};
  Expected<std::vector<HistoryRun>> present = to.runs();
  if (!present) return Error{present.error()};
  std::set<std::string> stored;
  for (const HistoryRun& run : *present) stored.insert(run.result_hash);

  std::unordered_map<std::int64_t, std::vector<HistoryPoint>> points_of;
  for (HistoryPoint& point : *points) points_of[point.run_id].push_back(std::move(point));
  std::sort(runs->begin(), runs->end(),
            [](const HistoryRun& a, const HistoryRun& b) { return a.id < b.id; });
  CopyCount count;
  for (const HistoryRun& run : *runs) {
    if (stored.count(run.result_hash)) {
      ++count.skipped;
      continue;
    }
    Expected<std::string> text = from.result_json(run.id);
    if (!text) return Error{text.error()};
    Expected<std::int64_t> added = to.add(run, points_of[run.id], *text);
    if (!added) {
      return Error{fmt::format("copying run {} of {} (after {} copied): {}", run.id,
                               from.location(), count.copied, added.error())};
    }
    ++count.copied;
  }
  return count;
}

}  // namespace storh::history
