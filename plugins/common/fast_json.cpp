#include "common/fast_json.h"

#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/json_text_scan.h"

namespace storh::engines {
namespace {

// The members of the objects being parsed, as (key, value), on one stack shared by every
// depth. Kept per thread from parse to parse: its buffer was an allocation and a free in
// every record's parse. Empty between parses.
using MemberStack = std::vector<std::pair<std::string, Json>>;

class FastParser {
 public:
  FastParser(std::string_view text, MemberStack& members)
      : p_(text.data()), end_(text.data() + text.size()), members_(members) {}

  bool document(Json& out) {
    skip_space();
    if (!value(out, 0)) return false;
    skip_space();
    return p_ == end_;
  }

 private:
  void skip_space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }

  bool literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size()) return false;
    if (std::string_view(p_, word.size()) != word) return false;
    p_ += word.size();
    return true;
  }

  bool value(Json& out, std::size_t depth) {
    if (p_ == end_) return false;
    switch (*p_) {
      case '{':
        return object(out, depth + 1);
      case '[':
        return array(out, depth + 1);
      case '"':
        // Parsed into the value's own string: no temporary to move and destroy.
        out = Json::value_t::string;
        return string(out.get_ref<std::string&>());
      case 't':
        out = true;
        return literal("true");
      case 'f':
        out = false;
        return literal("false");
      case 'n':
        out = nullptr;
        return literal("null");
      default:
        return number(out);
    }
  }

  bool object(Json& out, std::size_t depth) {
    if (depth > kMaxFastJsonDepth) return false;
    ++p_;  // {
    out = Json::object();
    skip_space();
    if (p_ != end_ && *p_ == '}') {
      ++p_;
      return true;
    }
    // Members collect on one stack shared by every depth (this object's from `base`)
    // and move into the object at its end, sized once: the object's vector holds
    // pair<const string, Json>, whose keys a growing vector would copy at every
    // reallocation. Nested values parse into locals, as the stack may move meanwhile.
    if (members_.capacity() == 0) members_.reserve(kMembersReserved);
    const std::size_t base = members_.size();
    for (;;) {
      skip_space();
      std::string key;
      if (p_ == end_ || *p_ != '"' || !string(key)) return false;
      // A repeated key: nlohmann keeps the first position and the last value; leave
      // that rare case to it.
      for (std::size_t i = base; i < members_.size(); ++i) {
        if (members_[i].first == key) return false;
      }
      skip_space();
      if (p_ == end_ || *p_ != ':') return false;
      ++p_;
      skip_space();
      Json item;
      if (!value(item, depth)) return false;
      members_.emplace_back(std::move(key), std::move(item));
      skip_space();
      if (p_ == end_) return false;
      if (*p_ == '}') {
        ++p_;
        break;
      }
      if (*p_ != ',') return false;
      ++p_;
    }
    auto& object = out.get_ref<Json::object_t&>();
    object.reserve(members_.size() - base);
    for (std::size_t i = base; i < members_.size(); ++i) {
      object.emplace_back(std::move(members_[i].first), std::move(members_[i].second));
    }
    members_.resize(base);
    return true;
  }

  bool array(Json& out, std::size_t depth) {
    if (depth > kMaxFastJsonDepth) return false;
    ++p_;  // [
    out = Json::array();
    auto& elements = out.get_ref<Json::array_t&>();
    skip_space();
    if (p_ != end_ && *p_ == ']') {
      ++p_;
      return true;
    }
    for (;;) {
      skip_space();
      elements.emplace_back();
      if (!value(elements.back(), depth)) return false;
      skip_space();
      if (p_ == end_) return false;
      if (*p_ == ']') {
        ++p_;
        return true;
      }
      if (*p_ != ',') return false;
      ++p_;
    }
  }

  // Printable ASCII and the two-character escapes; anything else is outside the subset.
  bool string(std::string& out) {
    ++p_;  // "
    const char* run = p_;
    for (;;) {
      p_ = skip_plain_json_text(p_, end_);
      if (p_ == end_) return false;
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        out.append(run, p_);
        ++p_;
        return true;
      }
      if (c < 0x20) return false;
      if (c >= 0x80) {
        if (!utf8_sequence()) return false;
        continue;
      }
      out.append(run, p_);  // c is '\\', the one byte skip_plain_json_text stops at left
      if (++p_ == end_) return false;
      switch (*p_) {
        case '"':
        case '\\':
        case '/':
          out.push_back(*p_);
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        default:
          return false;  // \u and invalid escapes
      }
      run = ++p_;
    }
  }

  // One well-formed UTF-8 sequence at p_ (RFC 3629, nlohmann's rule: no overlong forms,
  // no surrogates, at most U+10FFFF); advances past it.
  bool utf8_sequence() {
    const auto byte = [&](std::ptrdiff_t i) { return static_cast<unsigned char>(p_[i]); };
    const auto lead = byte(0);
    std::ptrdiff_t size = 0;
    unsigned char low = 0x80, high = 0xBF;  // the second byte's range
    if (lead >= 0xC2 && lead <= 0xDF) {
      size = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      size = 3;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      size = 4;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      return false;
    }
    if (end_ - p_ < size || byte(1) < low || byte(1) > high) return false;
    for (std::ptrdiff_t i = 2; i < size; ++i) {
      if (byte(i) < 0x80 || byte(i) > 0xBF) return false;
    }
    p_ += size;
    return true;
  }

  // -?(0|[1-9][0-9]*) only: a fraction or exponent is left to nlohmann.
  bool number(Json& out) {
    const char* start = p_;
    const bool negative = *p_ == '-';
    if (negative) ++p_;
    if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
    if (*p_ == '0') {
      ++p_;
    } else {
      while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
    }
    if (p_ != end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E' || (*p_ >= '0' && *p_ <= '9'))) {
      return false;
    }
    // Up to 19 digits cannot overflow 64 bits: summed here (from_chars was 5% of a
    // record's parse); longer ones are range-checked by from_chars.
    if (const char* digits = start + (negative ? 1 : 0); p_ - digits <= 19) {
      std::uint64_t magnitude = 0;
      for (const char* d = digits; d != p_; ++d) {
        magnitude = magnitude * 10 + static_cast<std::uint64_t>(*d - '0');
      }
      if (!negative) {
        out = magnitude;
        return true;
      }
      // -2^63 is the most negative int64; a larger magnitude is out of range.
      constexpr std::uint64_t kMostNegative = std::uint64_t{1} << 63;
      if (magnitude > kMostNegative) return false;
      out = magnitude == kMostNegative ? std::numeric_limits<std::int64_t>::min()
                                       : -static_cast<std::int64_t>(magnitude);
      return true;
    }
    if (negative) {
      std::int64_t v = 0;
      const auto [ptr, ec] = std::from_chars(start, p_, v);
      if (ec != std::errc() || ptr != p_) return false;
      out = v;
    } else {
      std::uint64_t v = 0;
      const auto [ptr, ec] = std::from_chars(start, p_, v);
      if (ec != std::errc() || ptr != p_) return false;
      out = v;
    }
    return true;
  }

  // Enough for the objects of a typical record at once (grown when not).
  static constexpr std::size_t kMembersReserved = 16;

  const char* p_;
  const char* end_;
  MemberStack& members_;
};

}  // namespace

bool parse_json_fast(std::string_view text, Json& out) {
  thread_local MemberStack members;
  const bool parsed = FastParser(text, members).document(out);
  // A parse that failed half-way leaves members behind; a buffer grown by a huge object
  // is given back rather than kept.
  constexpr std::size_t kKeptMembers = 1024;
  if (!parsed) members.clear();
  if (members.capacity() > kKeptMembers) MemberStack().swap(members);
  return parsed;
}

Json parse_json(std::string_view text) {
  Json out;
  if (parse_json_fast(text, out)) return out;
  return Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

Json parse_json_or_throw(std::string_view text) {
  Json out;
  if (parse_json_fast(text, out)) return out;
  return Json::parse(text.begin(), text.end());
}

}  // namespace storh::engines
