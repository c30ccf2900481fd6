// scratch_dir.h: a fresh directory per test and whole-file reads, for the mirror tests
// (test_support.h would pull in the host's CLI headers, which these tests do not use).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

namespace mirror_test {

// A fresh directory under $STORH_TEST_TMP (or the system temp directory), removed when
// the object goes out of scope.
class ScratchDir {
 public:
  ScratchDir() {
    const char* root = std::getenv("STORH_TEST_TMP");
    std::filesystem::path base = root != nullptr ? root : std::filesystem::temp_directory_path();
    std::random_device random;
    path_ = base / ("mirror-" + std::to_string(random()) + std::to_string(random()));
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
  std::filesystem::path path_;
};

inline void write_text(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
}

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace mirror_test
