// cli/history_options.cpp
#include "cli/history_options.h"

#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "util/shorten.h"

namespace storh::cli {

Expected<std::string> history_db(const ParsedArgs& args, const std::string& flag) {
  if (auto value = args.last(flag)) {
    if (value->empty()) {
      return Error{fmt::format("--{}: expected a file name or a postgresql:// URI", flag)};
    }
    return *value;
  }
  if (const char* variable = std::getenv("STORH_HISTORY"); variable && *variable) {
    return std::string(variable);
  }
  return std::string("storh-history.db");
}

Expected<stats::ChangePointOptions> change_point_options(const ParsedArgs& args) {
  stats::ChangePointOptions options;
  if (auto text = args.last("max-p")) {
    std::size_t used = 0;
    double value = 0;
    try {
      value = std::stod(*text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text->size() || !(value > 0 && value < 1)) {
      return Error{
          fmt::format("--max-p: expected a p-value between 0 and 1, got \"{}\"", shorten(*text))};
    }
    options.max_p_value = value;
  }
  if (auto text = args.last("min-segment")) {
    std::size_t used = 0;
    long value = 0;
    try {
      value = std::stol(*text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text->size() || value < 2 || value > 1000) {
      return Error{
          fmt::format("--min-segment: expected a whole number of runs from 2 to 1000, "
                      "got \"{}\"",
                      shorten(*text))};
    }
    options.min_segment = static_cast<std::size_t>(value);
  }
  return options;
}

}  // namespace storh::cli
