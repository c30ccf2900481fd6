// history/store.h: the run history, behind one interface with two stores
// (docs/history.md): an SQLite file (history/sqlite_store.h), the default, and a
// PostgreSQL database that many writers share (history/pg_store.h).
//
// One row per run in `runs` (where the code came from, the environment, the result
// file itself) and one row per metric of the run in `metrics` (its median and spread).
// Both stores have the same tables and the same behaviour: a schema version that an
// older history is migrated from, one transaction per step; refusals that leave the
// database as it was (a newer schema, another application's tables); duplicate runs
// refused by their result hash; each add all or nothing, and concurrent writers each
// get their runs in.
//
// A HistoryStore is one connection: use it from one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "result/result.h"
#include "util/expected.h"

namespace storh::history {

// The history schema both stores are at (SQLite's user_version, PostgreSQL's meta row).
inline constexpr int kHistorySchema = 1;
// Marks a database as a storh-host history: SQLite's application_id, and PostgreSQL's
// advisory lock key for schema changes.
inline constexpr std::int32_t kApplicationId = 0x53544f48;  // "STOH"
// How long a writer waits for another's lock before giving up.
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
  result::MetricDirection direction = result::MetricDirection::lower_is_better;
};

class HistoryStore {
 public:
  enum class Mode {
    create,    // create the history when missing (an SQLite file and its parent
               // directories, or the tables in a PostgreSQL database); `history add`
    existing,  // the history must exist; the read commands
  };

  // Opens (and when needed creates or migrates) the history at `location`: a
  // postgresql:// or postgres:// URI or a libpq keyword/value string selects
  // PostgreSQL, anything else is an SQLite file name. Errors name the location, with a URI's
  // password masked.
  static Expected<std::unique_ptr<HistoryStore>> open(const std::string& location, Mode mode);

  HistoryStore() = default;
  HistoryStore(const HistoryStore&) = delete;
  HistoryStore& operator=(const HistoryStore&) = delete;
  virtual ~HistoryStore() = default;

  // Stores `run` (its id is ignored) with its metrics and result text, in one
  // transaction: all or nothing. Refuses a run whose result_hash is already stored,
  // naming the stored run ("already in the history as run N"), also when another writer
  // stores the same result at the same moment. Returns the new run's id.
  virtual Expected<std::int64_t> add(const HistoryRun& run, const std::vector<HistoryPoint>& points,
                                     const std::string& result_json) = 0;

  // Every run, oldest first (run_time, then id).
  virtual Expected<std::vector<HistoryRun>> runs() const = 0;
  // Every metric of every run, by run id then metric.
  virtual Expected<std::vector<HistoryPoint>> points() const = 0;
  // The result file a run was added from, as stored.
  virtual Expected<std::string> result_json(std::int64_t run_id) const = 0;

  // Where the history is, for messages: the file name, or the URI with its password
  // masked (never the password itself).
  virtual const std::string& location() const = 0;
};

// Whether `location` names a PostgreSQL database: a postgresql:// or postgres:// URI,
// or a libpq keyword/value string ("host=/run/postgresql dbname=hist").
bool is_postgres_location(std::string_view location);

// The refusal of a duplicate, the same from both stores: "this result is already in
// the history as run 3 (added 2026-12-02T00:00:00Z, commit c0ffee010000); nothing was
// added".
std::string duplicate_message(std::int64_t id, const std::string& added_time,
                              const std::string& commit);

// A stored metric row's direction column read back; an error naming `location`, the
// run and the metric for any text but the two direction names.
Expected<result::MetricDirection> stored_direction(const std::string& text,
                                                   const std::string& location, std::int64_t run_id,
                                                   const std::string& metric);

}  // namespace storh::history
