#include "util/natural_order.h"

namespace storh {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// The digit run starting at `from`, without its leading zeros (at least one digit).
std::string_view digit_run(std::string_view text, std::size_t from, std::size_t& end) {
  end = from;
  while (end < text.size() && is_digit(text[end])) ++end;
  std::size_t start = from;
  while (start + 1 < end && text[start] == '0') ++start;
  return text.substr(start, end - start);
}

}  // namespace

bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      std::size_t end_a = 0, end_b = 0;
      const std::string_view run_a = digit_run(a, i, end_a);
      const std::string_view run_b = digit_run(b, j, end_b);
      // Without leading zeros, a longer run is a larger number.
      if (run_a.size() != run_b.size()) return run_a.size() < run_b.size();
      if (run_a != run_b) return run_a < run_b;
      if (end_a - i != end_b - j) return end_a - i < end_b - j;
      i = end_a;
      j = end_b;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

}  // namespace storh
