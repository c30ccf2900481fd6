// Helpers shared by the host's tests: scratch directories, files, and running the
// CLI with captured streams.
#pragma once

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"

namespace storh::test {

// A fresh directory under $STORH_TEST_TMP (or the system temp directory), removed
// when the object goes out of scope.
class ScratchDir {
 public:
  ScratchDir() {
    const char* root = std::getenv("STORH_TEST_TMP");
    std::filesystem::path base = root != nullptr ? root : std::filesystem::temp_directory_path();
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
  std::filesystem::path path_;
};

inline void write_text(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

struct CliResult {
  int code = -1;
  std::string out;
  std::string err;
};

// Runs the CLI in-process; workers are the built storh-host binary.
inline CliResult cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  cli::CliEnvironment environment{STORH_TEST_HOST, false};
  CliResult result;
  result.code = cli::run_cli(args, out, err, environment);
  result.out = out.str();
  result.err = err.str();
  return result;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace storh::test
