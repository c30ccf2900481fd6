// history/store.h: the run history on disk, an SQLite database (docs/history.md).
//
// One row per run in `runs` (where the code came from, the environment, the result
// file itself) and one row per metric of the run in `metrics` (its median and spread).
// The schema uses only portable SQL types, so the same tables serve PostgreSQL.
//
// Versioning: PRAGMA user_version is the history schema (kHistorySchema), and
// PRAGMA application_id marks the file as a storh-host history. Opening a database
// of an older schema migrates it forward, one transaction per step; a newer schema,
// a file that is not SQLite, a corrupt one (PRAGMA quick_check) or another
// application's database is refused with a message naming the file, and left as it is.
//
// Writers take the database's write lock for the whole of add(), so concurrent `ci`
// jobs adding runs to one file wait their turn (up to kBusyTimeout) instead of failing.
// A HistoryStore is one connection: use it from one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "util/expected.h"

struct sqlite3;

namespace storh::history {

inline constexpr int kHistorySchema = 1;
inline constexpr std::int32_t kApplicationId = 0x53544f48;  // "STOH"
inline constexpr std::chrono::milliseconds kBusyTimeout{30000};

// One stored run. Strings that are unknown are empty, never absent.
struct HistoryRun {
  std::int64_t id = 0;       // assigned by add()
  std::string result_hash;   // XXH3-64 of the result file's canonical text: duplicates refused
  std::string suite;         // experiment.suite
  std::string fingerprint;   // experiment.fingerprint: which plan ran
  std::string environment;   // the environment key (history/record.h)
  std::string commit;        // from git (40 hex digits) or as --commit gave it; or empty
  std::string branch;        // or empty
  std::string run_time;      // ISO-8601 UTC, when the run started
  std::string added_time;    // ISO-8601 UTC, when it was added
  std::string host_version;  // experiment.host_version
};

// One metric of one run.
struct HistoryPoint {
  std::int64_t run_id = 0;
  std::string metric;  // the metric key: "doc.put", "log.scan[n=1000]"
  double median = 0;   // seconds for times, the score for higher_is_better metrics
  double minimum = 0;
  double maximum = 0;
  std::int64_t runs = 0;  // repeats the median is of
  std::string unit;
  std::string direction;  // "lower_is_better" or "higher_is_better"
};

class HistoryStore {
 public:
  enum class Mode {
    create,    // create the file (and its parent directories) when missing; `history add`
    existing,  // the file must exist; the read commands
  };

  // Opens (and when needed creates or migrates) the history at `file`.
  static Expected<HistoryStore> open(const std::filesystem::path& file, Mode mode);

  HistoryStore(HistoryStore&&) noexcept;
  HistoryStore& operator=(HistoryStore&&) noexcept;
  ~HistoryStore();

  // Stores `run` (its id is ignored) with its metrics and result text, in one
  // transaction: all or nothing. Refuses a run whose result_hash is already stored,
  // naming the stored run. Returns the new run's id.
  Expected<std::int64_t> add(const HistoryRun& run, const std::vector<HistoryPoint>& points,
                             const std::string& result_json);

  // Every run, oldest first (run_time, then id).
  Expected<std::vector<HistoryRun>> runs() const;
  // Every metric of every run, by run id then metric.
  Expected<std::vector<HistoryPoint>> points() const;
  // The result file a run was added from, as stored.
  Expected<std::string> result_json(std::int64_t run_id) const;

  const std::filesystem::path& file() const { return file_; }

 private:
  HistoryStore(std::filesystem::path file, sqlite3* db);

  std::filesystem::path file_;
  sqlite3* db_ = nullptr;
};

}  // namespace storh::history
