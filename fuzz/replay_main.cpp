// fuzz/replay_main.cpp: runs a fuzz target over saved inputs, without libFuzzer, so a
// normal (g++) build replays the committed corpora as regression tests.
//
//   fuzz_replay_<name> PATH...
//
// Each PATH is a file or a directory (its regular files, in name order). Every input is
// passed to LLVMFuzzerTestOneInput once; the target aborts on a finding, so a clean run
// exits 0 and prints how many inputs it replayed. No input at all is an error (exit 2):
// a misspelt corpus path must not pass as an empty, clean run.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

bool collect(const std::filesystem::path& path, std::vector<std::filesystem::path>& files) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    std::vector<std::filesystem::path> found;
    for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
      if (entry.is_regular_file(ec)) found.push_back(entry.path());
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
    return !ec;
  }
  if (std::filesystem::is_regular_file(path, ec)) {
    files.push_back(path);
    return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    if (!collect(argv[i], files)) {
      std::fprintf(stderr, "%s: not a readable file or directory\n", argv[i]);
      return 2;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s FILE-OR-DIRECTORY... (no input found)\n", argv[0]);
    return 2;
  }
  for (const std::filesystem::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) {
      std::fprintf(stderr, "%s: read error\n", file.c_str());
      return 2;
    }
    // Named first, so the output of a crash says which input caused it.
    std::fprintf(stderr, "replay %s (%zu bytes)\n", file.c_str(), bytes.size());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("%zu inputs replayed\n", files.size());
  return 0;
}
