// util/did_you_mean.h: the suggestion every "unknown name" message ends with, so a
// misspelt engine, parameter or metric gets the same help everywhere.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace storh {

// "; did you mean \"x\"?" when one of `choices` is a plausible misspelling of `word`
// (optimal string alignment distance of at most one edit per three characters, and
// less than the choice's length), else "". Ties go to the earlier choice.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& choices);

}  // namespace storh
