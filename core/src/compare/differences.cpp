#include "compare/differences.h"

#include <fmt/format.h>

namespace storh::compare {
namespace {

const std::string* fact_of(const ComparableFile& file, const std::string& name) {
  for (const Fact& fact : file.facts) {
    if (fact.first == name) return &fact.second;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> difference_warnings(const std::vector<const ComparableFile*>& files) {
  std::vector<std::string> warnings;
  for (const ComparableFile* file : files) {
    for (const std::string& note : file->notes) {
      warnings.push_back(fmt::format("{}: {}", file->name, note));
    }
  }
  if (files.empty()) return warnings;
  const ComparableFile& first = *files.front();
  for (std::size_t i = 1; i < files.size(); ++i) {
    const ComparableFile& other = *files[i];
    for (const auto& [name, value] : first.facts) {
      const std::string* other_value = fact_of(other, name);
      if (other_value == nullptr || *other_value == value) continue;
      warnings.push_back(fmt::format("different {}: {} has {}, {} has {}", name, first.name, value,
                                     other.name, *other_value));
    }
  }
  return warnings;
}

}  // namespace storh::compare
