// history/sqlite_store.h: the run history in one SQLite file, the default store.
//
// PRAGMA user_version is the history schema and PRAGMA application_id marks the file
// as a storh-host history. Besides the refusals every store makes (history/store.h),
// a file that is not SQLite, a corrupt one (PRAGMA quick_check), a directory or a
// device is refused and left as it is. add() holds SQLite's write lock (BEGIN
// IMMEDIATE); other writers wait for it up to kBusyTimeout. Reading a history of the
// current schema takes no write lock, so it works on a read-only file.
#pragma once

#include <filesystem>
#include <memory>

#include "history/store.h"
#include "util/expected.h"

namespace storh::history {

// Opens the SQLite history at `file`; Mode::create also creates its parent directories.
// Errors start with the file name.
Expected<std::unique_ptr<HistoryStore>> open_sqlite_store(const std::filesystem::path& file,
                                                          HistoryStore::Mode mode);

}  // namespace storh::history
