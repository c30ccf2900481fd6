// history/schema.h: the history's tables, one definition for both stores.
//
// Portable SQL only: BIGINT, DOUBLE PRECISION, TEXT, explicit keys. The stores differ
// only in the type of the run id (SQLite's INTEGER PRIMARY KEY is its rowid,
// PostgreSQL's BIGSERIAL a sequence) and in where the version is kept, which each
// store writes in the same transaction as the step.
#pragma once

#include <cstdint>
#include <string>

namespace storh::history {

struct SchemaTypes {
  const char* run_id_key;        // runs.id
  const char* run_id_reference;  // metrics.run_id
};
inline constexpr SchemaTypes kSqliteTypes{"INTEGER PRIMARY KEY", "INTEGER"};
inline constexpr SchemaTypes kPostgresTypes{"BIGSERIAL PRIMARY KEY", "BIGINT"};

// The statements that take a history from schema `from` to `from` + 1, separated by
// ';'. Precondition: 0 <= from < kHistorySchema (history/store.h).
std::string migration_step(std::int64_t from, const SchemaTypes& types);

}  // namespace storh::history
