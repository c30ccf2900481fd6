// cli/args.h: splitting a command's arguments into positionals and --flags.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/expected.h"

namespace storh::cli {

struct ParsedArgs {
  std::vector<std::string> positional;
  // Flag name (without dashes) -> values in order; a repeated flag has several.
  std::map<std::string, std::vector<std::string>> flags;

  std::optional<std::string> last(const std::string& name) const;
  std::vector<std::string> all(const std::string& name) const;
  bool has(const std::string& name) const { return flags.count(name) != 0; }
};

// Accepts --name=value, --name value (for flags in `valued`), and bare --name for
// flags in `switches`. Anything else starting with "-" is an error listing the valid
// flags. "--" ends flags.
Expected<ParsedArgs> parse_args(const std::vector<std::string>& args,
                                const std::vector<std::string>& valued,
                                const std::vector<std::string>& switches);

// `args` without the flags in `valued` (with their values) and `switches`, read as
// parse_args reads them; the rest keeps its order, and so does everything after "--".
// A command that takes some flags itself hands the rest on this way.
std::vector<std::string> without_flags(const std::vector<std::string>& args,
                                       const std::vector<std::string>& valued,
                                       const std::vector<std::string>& switches);

// A flag's value as a number (util/text.h's parse_decimal): "10", "2.5", "1e-3". The
// error names the flag: `--threshold: "x" is not a number`.
Expected<double> number_flag(const std::string& flag, const std::string& text);
// A flag's value as a whole number in [low, high]: `--pairs: expected a whole number
// from 1 to 1000, got "0"`.
Expected<std::uint64_t> whole_flag(const std::string& flag, const std::string& text,
                                   std::uint64_t low, std::uint64_t high);

}  // namespace storh::cli
