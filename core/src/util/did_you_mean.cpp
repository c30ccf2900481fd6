#include "util/did_you_mean.h"

#include <algorithm>

#include <fmt/format.h>

namespace storh {
namespace {

// Optimal string alignment distance: Levenshtein plus adjacent transpositions, so
// "gte" is one edit from "get".
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::string did_you_mean(std::string_view word, const std::vector<std::string>& choices) {
  // One edit per three characters keeps "dok" -> "doc" but not "x" -> "doc".
  const std::size_t limit = std::max<std::size_t>(1, word.size() / 3);
  const std::string* best = nullptr;
  std::size_t best_distance = limit + 1;
  for (const std::string& choice : choices) {
    // The lengths alone bound the distance from below: skip what cannot win before
    // filling a table of word x choice cells (a 1 MB unknown key took seconds).
    const std::size_t apart =
        word.size() > choice.size() ? word.size() - choice.size() : choice.size() - word.size();
    if (apart >= best_distance || apart >= choice.size()) continue;
    const std::size_t distance = edit_distance(word, choice);
    if (distance < best_distance && distance < choice.size()) {
      best = &choice;
      best_distance = distance;
    }
  }
  return best == nullptr ? std::string() : fmt::format("; did you mean \"{}\"?", *best);
}

}  // namespace storh
