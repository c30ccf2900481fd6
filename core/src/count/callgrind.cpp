#include "count/callgrind.h"

#include <unistd.h>

#include <charconv>
#include <cstdlib>

#include <fmt/format.h>

#include "util/text.h"

namespace storh::count {
namespace {

std::vector<std::string_view> words(std::string_view text) {
  std::vector<std::string_view> result;
  while (!(text = trim(text)).empty()) {
    const std::size_t space = text.find_first_of(" \t");
    result.push_back(text.substr(0, space));
    text = space == std::string_view::npos ? std::string_view() : text.substr(space);
  }
  return result;
}

}  // namespace

bool callgrind_supported() {
#if defined(STORH_HAVE_CALLGRIND)
  return true;
#else
  return false;
#endif
}

std::optional<std::filesystem::path> find_valgrind() {
  const char* path = std::getenv("PATH");
  std::string_view rest = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const std::size_t colon = rest.find(':');
    const std::string_view dir = rest.substr(0, colon);
    if (!dir.empty()) {
      const std::filesystem::path candidate = std::filesystem::path(dir) / "valgrind";
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    if (colon == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(colon + 1);
  }
}

std::vector<std::string> callgrind_command(const std::filesystem::path& valgrind,
                                           const std::filesystem::path& out_file,
                                           const std::vector<std::string>& argv) {
  std::vector<std::string> command = {valgrind.string(), "--tool=callgrind", "--collect-atstart=no",
                                      "--quiet", "--callgrind-out-file=" + out_file.string()};
  command.insert(command.end(), argv.begin(), argv.end());
  return command;
}

std::filesystem::path callgrind_dump_file(const std::filesystem::path& out_file,
                                          std::size_t number) {
  return fmt::format("{}.{}", out_file.string(), number);
}

Expected<CallgrindDump> parse_callgrind(std::string_view text, const std::string& origin) {
  constexpr std::string_view kClientRequest = "Trigger: Client Request: ";
  constexpr std::string_view kTrigger = "Trigger: ";
  CallgrindDump dump;
  std::vector<std::string_view> events;
  std::optional<std::string_view> totals, summary;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    const std::string_view line = trim(text.substr(0, newline));
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    if (line.starts_with("desc:")) {
      const std::string_view desc = trim(line.substr(5));
      if (desc.starts_with(kClientRequest)) {
        dump.trigger = trim(desc.substr(kClientRequest.size()));
      } else if (desc.starts_with(kTrigger)) {
        dump.trigger = trim(desc.substr(kTrigger.size()));
      }
    } else if (line.starts_with("events:")) {
      events = words(line.substr(7));
    } else if (line.starts_with("totals:")) {
      totals = line.substr(7);
    } else if (line.starts_with("summary:")) {
      summary = line.substr(8);
    }
  }
  if (events.empty()) return Error{fmt::format("{}: no \"events:\" line", origin)};
  std::size_t column = 0;
  while (column < events.size() && events[column] != "Ir") ++column;
  if (column == events.size()) {
    return Error{
        fmt::format("{}: the events ({}) do not include Ir", origin, fmt::join(events, " "))};
  }
  const std::optional<std::string_view> counts = totals ? totals : summary;
  if (!counts) return Error{fmt::format("{}: no \"totals:\" or \"summary:\" line", origin)};
  const std::vector<std::string_view> values = words(*counts);
  // Callgrind leaves trailing zero columns out.
  if (column >= values.size()) return dump;
  const std::string_view value = values[column];
  const auto [end, error] =
      std::from_chars(value.data(), value.data() + value.size(), dump.instructions);
  if (error != std::errc() || end != value.data() + value.size()) {
    return Error{fmt::format("{}: Ir total \"{}\" is not a whole number", origin, value)};
  }
  return dump;
}

}  // namespace storh::count
