// Scratch directories and small file helpers for tests. Needs nothing but the standard
// library, so engine tests can use it without linking the host.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

namespace storh::test {

// A fresh directory under $STORH_TEST_TMP (or the system temp directory), removed
// when the object goes out of scope.
class ScratchDir {
 public:
  ScratchDir() : ScratchDir(default_base()) {}
  // A fresh directory under `base` instead.
  explicit ScratchDir(const std::filesystem::path& base) {
    std::random_device random;
    path_ = base / ("scratch-" + std::to_string(random()) + std::to_string(random()));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  static std::filesystem::path default_base() {
    const char* root = std::getenv("STORH_TEST_TMP");
    return root != nullptr ? root : std::filesystem::temp_directory_path();
  }

  std::filesystem::path path_;
};

inline void write_text(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

inline void append_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary | std::ios::app) << text;
}

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace storh::test
