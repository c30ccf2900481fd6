// Helpers for the log engine's tests: scratch directories and whole-file access.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

namespace log_test {

// A fresh directory under $STORH_TEST_TMP (or the system temp directory), removed
// when the object goes out of scope.
class Scratch {
 public:
  Scratch() {
    const char* root = std::getenv("STORH_TEST_TMP");
    const std::filesystem::path base =
        root != nullptr ? root : std::filesystem::temp_directory_path();
    std::random_device random;
    path_ = base / ("log-" + std::to_string(random()) + std::to_string(random()));
    std::filesystem::create_directories(path_);
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string read_all(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

inline void write_all_text(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
}

inline void append_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary | std::ios::app) << text;
}

}  // namespace log_test
