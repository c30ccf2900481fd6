// util/json_node.h: a typed, path-aware view of a parsed JSON document, for readers of
// files that people may have edited or damaged. Every accessor checks the value's type
// and throws BadJsonValue naming its JSON path ("/metrics/0/seconds: expected a number,
// got string"), so a corrupt file gives a message, never a crash.
//
// Contract: a JsonNode refers to the document it was made from, which must outlive it.
// A reader catches BadJsonValue at its boundary and returns its message as an Error
// (with the file's name in front); nothing else is thrown for a bad value.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace storh {

// What a JsonNode throws: the JSON path and what is wrong there.
struct BadJsonValue {
  std::string message;
};

class JsonNode {
 public:
  JsonNode(const nlohmann::json& value, std::string path) : value_(value), path_(std::move(path)) {}

  JsonNode at(const std::string& key) const {
    if (!value_.is_object()) fail("expected an object");
    auto it = value_.find(key);
    if (it == value_.end()) throw BadJsonValue{fmt::format("{}: missing key \"{}\"", path_, key)};
    return JsonNode(*it, path_ + "/" + key);
  }
  const nlohmann::json& raw() const { return value_; }  // for readers with their own checks
  bool has(const std::string& key) const { return value_.is_object() && value_.contains(key); }
  bool is_null() const { return value_.is_null(); }

  std::vector<JsonNode> items() const {
    if (!value_.is_array()) fail("expected an array");
    std::vector<JsonNode> nodes;
    for (std::size_t i = 0; i < value_.size(); ++i) {
      nodes.emplace_back(value_[i], fmt::format("{}/{}", path_, i));
    }
    return nodes;
  }
  std::vector<std::pair<std::string, JsonNode>> members() const {
    if (!value_.is_object()) fail("expected an object");
    std::vector<std::pair<std::string, JsonNode>> nodes;
    for (auto it = value_.begin(); it != value_.end(); ++it) {
      nodes.emplace_back(it.key(), JsonNode(it.value(), path_ + "/" + it.key()));
    }
    return nodes;
  }

  std::string str() const {
    if (!value_.is_string()) fail("expected a string");
    return value_.get<std::string>();
  }
  double number() const {
    if (!value_.is_number()) fail("expected a number");
    return value_.get<double>();
  }
  std::uint64_t count() const {
    if (!value_.is_number_unsigned() &&
        !(value_.is_number_integer() && value_.get<std::int64_t>() >= 0)) {
      fail("expected a whole number >= 0");
    }
    return value_.get<std::uint64_t>();
  }
  // count() that must also fit 32 bits (client counts, line numbers).
  std::uint32_t count32() const {
    const std::uint64_t value = count();
    if (value > UINT32_MAX) refuse(fmt::format("expected at most {}, got {}", UINT32_MAX, value));
    return static_cast<std::uint32_t>(value);
  }
  std::int64_t integer() const {
    if (!value_.is_number_integer()) fail("expected a whole number");
    return value_.get<std::int64_t>();
  }
  bool boolean() const {
    if (!value_.is_boolean()) fail("expected true or false");
    return value_.get<bool>();
  }
  // A number that is neither infinite nor NaN (JSON text cannot spell them, but
  // 1e999 reads as infinity).
  double finite() const {
    const double value = number();
    if (!std::isfinite(value)) {
      throw BadJsonValue{
          fmt::format("{}: expected a finite number, got {}", path_or_root(), value)};
    }
    return value;
  }
  std::vector<std::string> strings() const {
    std::vector<std::string> values;
    for (const JsonNode& item : items()) values.push_back(item.str());
    return values;
  }

  // The member `key` of an object, or nullopt when it is absent or null; for fields a
  // format lets a writer leave out.
  std::optional<JsonNode> find(const std::string& key) const {
    if (!value_.is_object()) fail("expected an object");
    auto it = value_.find(key);
    if (it == value_.end() || it->is_null()) return std::nullopt;
    return JsonNode(*it, path_ + "/" + key);
  }
  // find(key) read with `read` (&JsonNode::str, &JsonNode::number, ...).
  template <typename T>
  std::optional<T> optional(const std::string& key, T (JsonNode::*read)() const) const {
    const std::optional<JsonNode> member = find(key);
    if (!member) return std::nullopt;
    return ((*member).*read)();
  }

  // A value of the right type that the format still does not allow.
  [[noreturn]] void refuse(const std::string& why) const {
    throw BadJsonValue{fmt::format("{}: {}", path_or_root(), why)};
  }

 private:
  [[noreturn]] void fail(const char* what) const {
    throw BadJsonValue{fmt::format("{}: {}, got {}", path_or_root(), what, value_.type_name())};
  }
  std::string path_or_root() const { return path_.empty() ? "/" : path_; }

  const nlohmann::json& value_;
  std::string path_;
};

}  // namespace storh
