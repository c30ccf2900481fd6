#include "util/json_input.h"

#include <algorithm>

namespace storh {

std::size_t json_nesting_depth(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
      if (deepest > limit) break;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

void DuplicateKeyFinder::key(const std::string& name) {
  if (frames_.empty()) return;
  Frame& frame = frames_.back();
  if (found_.empty() && std::find(frame.keys.begin(), frame.keys.end(), name) != frame.keys.end()) {
    found_ = path() + "/" + name;
  }
  frame.keys.push_back(name);
}

void DuplicateKeyFinder::event(nlohmann::json::parse_event_t event) {
  using Event = nlohmann::json::parse_event_t;
  switch (event) {
    case Event::object_start:
      frames_.push_back({true, {}, 0});
      break;
    case Event::array_start:
      frames_.push_back({false, {}, 0});
      break;
    case Event::object_end:
    case Event::array_end:
      if (!frames_.empty()) frames_.pop_back();
      value_done();
      break;
    case Event::value:
      value_done();
      break;
    case Event::key:
      break;
  }
}

void DuplicateKeyFinder::value_done() {
  if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
}

std::string DuplicateKeyFinder::path() const {
  std::string text;
  for (std::size_t i = 0; i < frames_.size(); ++i) {
    const Frame& frame = frames_[i];
    if (i + 1 == frames_.size() && frame.object) break;  // the key itself is added by key()
    if (frame.object) {
      if (!frame.keys.empty()) text += "/" + frame.keys.back();
    } else {
      text += fmt::format("/{}", frame.index);
    }
  }
  return text;
}

}  // namespace storh
