// The suite's `counters` key and the --counters override (docs/counters.md).
#include <algorithm>

#include <fmt/format.h>

#include "count/counters.h"
#include "suite/suite_internal.h"

namespace storh::suite::detail {
namespace {

// Adds one instrument name, or says what is wrong with it; true when added.
bool add_instrument(std::string_view name, const SourcePos& pos,
                    std::vector<Located<std::string>>& list, std::vector<SuiteError>& errors) {
  // A file position names no key, so the message does; a flag names itself.
  const std::string_view key = pos.line != 0 ? "counters: " : "";
  if (!count::parse_instrument(name)) {
    errors.push_back(SuiteError{pos, fmt::format("{}unknown instrument {} (valid: {})", key,
                                                 in_quotes(name), count::instrument_choices())});
    return false;
  }
  const auto same = [&](const Located<std::string>& c) { return c.value == name; };
  if (std::any_of(list.begin(), list.end(), same)) {
    errors.push_back(SuiteError{pos, fmt::format("{}{} is given twice", key, in_quotes(name))});
    return false;
  }
  list.push_back({std::string(name), pos});
  return true;
}

}  // namespace

void read_counters(Reader& reader, const toml::node& node,
                   std::vector<Located<std::string>>& instruments) {
  constexpr std::string_view kExpected =
      "a list of instruments, e.g. [\"syscalls\"] or [\"syscalls\", \"instructions\"]";
  const auto* list = node.as_array();
  if (list == nullptr) {
    reader.type_error(node, "counters", kExpected);
    return;
  }
  std::vector<SuiteError> errors;
  for (const toml::node& item : *list) {
    const auto* text = item.as_string();
    if (text == nullptr) {
      reader.type_error(item, "counters", kExpected);
      continue;
    }
    add_instrument(text->get(), reader.pos(item), instruments, errors);
  }
  for (SuiteError& error : errors) reader.error(error.pos, std::move(error.message));
}

void apply_counters(std::string_view text, Suite& suite, std::vector<SuiteError>& errors) {
  const SourcePos flag{"--counters"};
  suite.counters.clear();
  // The flag beats the suite entirely: engines' own lists too.
  for (EngineSetting& engine : suite.engines) engine.counters.reset();
  if (trim(text) == "none") return;
  for (std::string_view part : split_unquoted(text, ',')) {
    part = trim(part);
    if (part.empty()) {
      errors.push_back(SuiteError{
          flag, fmt::format("expected syscalls, instructions, a comma list of them or none, "
                            "got {}",
                            in_quotes(text))});
      return;
    }
    add_instrument(part, flag, suite.counters, errors);
  }
}

}  // namespace storh::suite::detail
