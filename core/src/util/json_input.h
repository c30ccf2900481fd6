// util/json_input.h: JSON from files a user hands us (result, A/B and calibration files),
// parsed so that no input can crash the reader.
//
// nlohmann's parser throws more than parse_error (a number beyond a double's range is an
// out_of_range), and copying or dumping a document recurses once per nesting level, so a
// file nested 100,000 deep overflows the stack long after parsing. parse_json_input
// refuses such text up front and turns every parser exception into an Error.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "util/expected.h"

namespace storh {

// Deeper than any file storh writes (results nest about 8 levels) by a wide margin, and
// shallow enough for recursive code on a 1 MiB thread stack.
inline constexpr std::size_t kMaxJsonDepth = 256;

// The deepest array/object nesting of `text`, stopping once it passes `limit`. Brackets
// inside strings do not count. The text need not be valid JSON.
std::size_t json_nesting_depth(std::string_view text, std::size_t limit);

// Follows a parse's events and keeps the JSON path of the first key that appears twice
// in one object ("/metrics/2/key"): nlohmann keeps the last value silently, and two
// values for one field mean the file cannot be trusted.
class DuplicateKeyFinder {
 public:
  void key(const std::string& name);
  void event(nlohmann::json::parse_event_t event);
  // The path of the first duplicate key, empty when none.
  const std::string& found() const { return found_; }

 private:
  struct Frame {
    bool object = false;
    std::vector<std::string> keys;  // seen in this object
    std::size_t index = 0;          // next element of this array
  };
  void value_done();
  std::string path() const;

  std::vector<Frame> frames_;
  std::string found_;
};

// Parses `text` as a Json (nlohmann::json or ordered_json). The error says
// "<origin>: not valid JSON: <reason>" for bad syntax, numbers a double cannot hold,
// nesting deeper than kMaxJsonDepth and a key that appears twice in one object (with
// its JSON path).
template <typename Json>
Expected<Json> parse_json_input(std::string_view text, const std::string& origin) {
  if (json_nesting_depth(text, kMaxJsonDepth) > kMaxJsonDepth) {
    return Error{fmt::format("{}: not valid JSON for storh: nested more than {} levels deep",
                             origin, kMaxJsonDepth)};
  }
  DuplicateKeyFinder duplicates;
  try {
    Json parsed = Json::parse(text, [&](int, nlohmann::json::parse_event_t event, Json& value) {
      if (event == nlohmann::json::parse_event_t::key) {
        duplicates.key(value.template get_ref<const std::string&>());
      } else {
        duplicates.event(event);
      }
      return true;
    });
    if (!duplicates.found().empty()) {
      return Error{
          fmt::format("{}: not valid JSON for storh: the key {} appears twice in one object",
                      origin, duplicates.found())};
    }
    return parsed;
  } catch (const typename Json::exception& e) {
    return Error{fmt::format("{}: not valid JSON: {}", origin, e.what())};
  }
}

}  // namespace storh
