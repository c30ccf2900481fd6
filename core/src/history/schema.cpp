// history/schema.cpp
#include "history/schema.h"

#include <array>

#include <fmt/format.h>

#include "history/store.h"

namespace storh::history {
namespace {

// kSteps[v] takes a history from schema v to v + 1; append, never edit, a step.
constexpr std::array<const char*, kHistorySchema> kSteps = {
    R"sql(
CREATE TABLE runs (
  id           {run_id_key},
  result_hash  TEXT NOT NULL UNIQUE,
  suite        TEXT NOT NULL,
  fingerprint  TEXT NOT NULL,
  environment  TEXT NOT NULL,
  commit_sha   TEXT NOT NULL,
  branch       TEXT NOT NULL,
  run_time     TEXT NOT NULL,
  added_time   TEXT NOT NULL,
  host_version TEXT NOT NULL,
  result_json  TEXT NOT NULL
);
CREATE INDEX runs_by_time ON runs (run_time, id);
CREATE TABLE metrics (
  run_id    {run_id_reference} NOT NULL REFERENCES runs (id),
  metric    TEXT NOT NULL,
  median    DOUBLE PRECISION NOT NULL,
  minimum   DOUBLE PRECISION NOT NULL,
  maximum   DOUBLE PRECISION NOT NULL,
  runs      BIGINT NOT NULL,
  unit      TEXT NOT NULL,
  direction TEXT NOT NULL,
  PRIMARY KEY (run_id, metric)
);
CREATE INDEX metrics_by_metric ON metrics (metric, run_id);
)sql",
};

}  // namespace

std::string migration_step(std::int64_t from, const SchemaTypes& types) {
  return fmt::format(fmt::runtime(kSteps.at(static_cast<std::size_t>(from))),
                     fmt::arg("run_id_key", types.run_id_key),
                     fmt::arg("run_id_reference", types.run_id_reference));
}

}  // namespace storh::history
