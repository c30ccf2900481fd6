// cli/history_options.cpp
#include "cli/history_options.h"

#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "util/shorten.h"
#include "util/text.h"

namespace storh::cli {

Expected<std::string> history_db(const ParsedArgs& args, const std::string& flag) {
  if (auto value = args.last(flag)) {
    if (value->empty()) {
      return Error{fmt::format("--{}: expected a file name, a postgresql:// URI or a libpq keyword/value string", flag)};
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
    const std::optional<double> value = parse_decimal(*text);
    if (!value || !(*value > 0 && *value < 1)) {
      return Error{
          fmt::format("--max-p: expected a p-value between 0 and 1, got \"{}\"", shorten(*text))};
    }
    options.max_p_value = *value;
  }
  if (auto text = args.last("min-segment")) {
    Expected<std::uint64_t> runs = whole_flag("min-segment", *text, 2, 1000);
    if (!runs) return Error{runs.error()};
    options.min_segment = static_cast<std::size_t>(*runs);
  }
  return options;
}

}  // namespace storh::cli
