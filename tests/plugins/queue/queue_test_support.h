// Helpers shared by the queue tests: a scratch queue root, raw access to queue.log, and
// the fixture id. (tests/support/test_support.h needs the host's CLI headers, which
// engine tests do not link, hence this small copy.)
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace queue_test {

// A fresh directory under $STORH_TEST_TMP (or the system temp directory), removed when
// the object goes out of scope.
class ScratchDir {
 public:
  ScratchDir() {
    const char* root = std::getenv("STORH_TEST_TMP");
    const std::filesystem::path base =
        root != nullptr ? root : std::filesystem::temp_directory_path();
    std::random_device random;
    path_ = base / ("queue-" + std::to_string(random()) + std::to_string(random()));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

inline constexpr const char* kId = "018bcfe5-6800-76fb-95af-d92c554e7dcd";

inline std::filesystem::path log_file(const std::filesystem::path& root,
                                      const std::string& name = "q") {
  return root / name / "queue.log";
}

inline void append_raw(const std::filesystem::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary | std::ios::app) << bytes;
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

}  // namespace queue_test
