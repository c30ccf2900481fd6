// Helpers shared by the queue tests: a scratch queue root (tests/support/scratch_dir.h),
// raw access to queue.log, and the fixture id.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "common/bench/bench_row.h"
#include "queue/log_queue.h"
#include "scratch_dir.h"

namespace queue_test {

using storh::test::append_text;
using storh::test::read_text;
using storh::test::ScratchDir;

inline constexpr const char* kId = "018bcfe5-6800-76fb-95af-d92c554e7dcd";

inline std::filesystem::path log_file(const std::filesystem::path& root,
                                      const std::string& name = "q") {
  return root / name / "queue.log";
}

// The lines of a file, each with its LF.
inline std::vector<std::string> raw_lines(const std::filesystem::path& file) {
  const std::string text = read_text(file);
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    const std::size_t stop = end == std::string::npos ? text.size() : end + 1;
    lines.push_back(text.substr(at, stop - at));
    at = stop;
  }
  return lines;
}

// A job payload, n rows of the benchmark's shape, and the id of the next claimed job.
inline storh::engines::Json payload_of(int value) {
  return storh::engines::Json{{"n", value}};
}

inline std::vector<storh::engines::Json> rows(std::uint64_t n) {
  std::vector<storh::engines::Json> out;
  for (std::uint64_t i = 0; i < n; ++i) out.push_back(storh::engines::bench_row(i));
  return out;
}

inline std::string claimed_id(storh::engines::LogQueue& queue) {
  auto job = queue.claim();
  REQUIRE(job.has_value());
  return job->id.str();
}

}  // namespace queue_test
