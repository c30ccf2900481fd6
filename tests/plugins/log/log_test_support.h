// Helpers for the log engine's tests: the shared scratch directories and whole-file
// access (tests/support/scratch_dir.h) under the names these tests use, and the small
// log options most tests open with.
#pragma once

#include <string>
#include <vector>

#include "log/segmented_log.h"
#include "scratch_dir.h"

namespace log_test {

// Tiny segments (256 bytes) and a sparse-index interval of 4, so a few records roll
// several segments; fsync skipped unless asked.
inline storh::engines::log::LogOptions small(
    storh::engines::Sync sync = storh::engines::Sync::none) {
  return {256, 4, sync};
}

// The ids of `records`, in order.
inline std::vector<std::string> ids_of(const std::vector<storh::engines::Record>& records) {
  std::vector<std::string> ids;
  for (const storh::engines::Record& record : records) ids.push_back(record.id);
  return ids;
}

using Scratch = storh::test::ScratchDir;
using storh::test::append_text;
using storh::test::read_text;
using storh::test::write_text;

}  // namespace log_test
