#include "cli/args.h"

#include <algorithm>

#include <fmt/format.h>

#include "util/did_you_mean.h"
#include "util/shorten.h"
#include "util/text.h"

namespace storh::cli {

std::optional<std::string> ParsedArgs::last(const std::string& name) const {
  auto it = flags.find(name);
  if (it == flags.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> ParsedArgs::all(const std::string& name) const {
  auto it = flags.find(name);
  return it == flags.end() ? std::vector<std::string>{} : it->second;
}

Expected<ParsedArgs> parse_args(const std::vector<std::string>& args,
                                const std::vector<std::string>& valued,
                                const std::vector<std::string>& switches) {
  auto contains = [](const std::vector<std::string>& list, const std::string& name) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  // Every flag as written ("--repeat"), and as the valid list shows it ("--repeat=...").
  auto known_flags = [&](bool shown) {
    std::vector<std::string> all;
    all.reserve(valued.size() + switches.size());
    for (const std::string& v : valued) all.push_back("--" + v + (shown ? "=..." : ""));
    for (const std::string& s : switches) all.push_back("--" + s);
    return all;
  };
  auto valid_list = [&] {
    const std::vector<std::string> all = known_flags(true);
    return all.empty() ? std::string("none") : fmt::format("{}", fmt::join(all, ", "));
  };
  ParsedArgs parsed;
  bool flags_done = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (flags_done || arg == "-" || !arg.starts_with("-")) {
      parsed.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      continue;
    }
    const std::size_t equals = arg.find('=');
    const std::string name = arg.substr(
        arg.starts_with("--") ? 2 : 1,
        equals == std::string::npos ? std::string::npos : equals - (arg.starts_with("--") ? 2 : 1));
    if (contains(valued, name)) {
      if (equals != std::string::npos) {
        parsed.flags[name].push_back(arg.substr(equals + 1));
      } else if (i + 1 < args.size()) {
        parsed.flags[name].push_back(args[++i]);
      } else {
        return Error{fmt::format("{} needs a value: {}=VALUE", arg, arg)};
      }
    } else if (contains(switches, name) && equals == std::string::npos) {
      parsed.flags[name].push_back("true");
    } else {
      return Error{fmt::format("unknown option \"{}\" (valid: {}){}", shorten(arg), valid_list(),
                               did_you_mean("--" + name, known_flags(false)))};
    }
  }
  return parsed;
}

std::vector<std::string> without_flags(const std::vector<std::string>& args,
                                       const std::vector<std::string>& valued,
                                       const std::vector<std::string>& switches) {
  auto contains = [](const std::vector<std::string>& list, const std::string& name) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      rest.insert(rest.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    if (arg == "-" || !arg.starts_with("-")) {
      rest.push_back(arg);
      continue;
    }
    // The name as parse_args reads it.
    const std::size_t equals = arg.find('=');
    const std::size_t dashes = arg.starts_with("--") ? 2 : 1;
    const std::string name =
        arg.substr(dashes, equals == std::string::npos ? std::string::npos : equals - dashes);
    if (contains(valued, name)) {
      if (equals == std::string::npos && i + 1 < args.size()) ++i;  // its value
    } else if (!(contains(switches, name) && equals == std::string::npos)) {
      rest.push_back(arg);
    }
  }
  return rest;
}

Expected<double> number_flag(const std::string& flag, const std::string& text) {
  if (const std::optional<double> value = parse_decimal(text)) return *value;
  return Error{fmt::format("--{}: \"{}\" is not a number", flag, shorten(text))};
}

Expected<std::uint64_t> whole_flag(const std::string& flag, const std::string& text,
                                   std::uint64_t low, std::uint64_t high) {
  const std::optional<std::uint64_t> value = parse_whole(text);
  if (!value || *value < low || *value > high) {
    return Error{fmt::format("--{}: expected a whole number from {} to {}, got \"{}\"", flag, low,
                             high, shorten(text))};
  }
  return *value;
}

}  // namespace storh::cli
