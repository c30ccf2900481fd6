#include "pg/pgbench_mix.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <climits>

#include "common/text.h"

namespace storh::engines::pg {
namespace {

constexpr std::string_view kTpcbLikeText =
    "\\set aid random(1, 100000 * :scale)\n"
    "\\set bid random(1, 1 * :scale)\n"
    "\\set tid random(1, 10 * :scale)\n"
    "\\set delta random(-5000, 5000)\n"
    "BEGIN;\n"
    "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n"
    "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"
    "UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;\n"
    "UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;\n"
    "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, "
    ":delta, CURRENT_TIMESTAMP);\n"
    "END;\n";

constexpr std::string_view kSimpleUpdateText =
    "\\set aid random(1, 100000 * :scale)\n"
    "\\set bid random(1, 1 * :scale)\n"
    "\\set tid random(1, 10 * :scale)\n"
    "\\set delta random(-5000, 5000)\n"
    "BEGIN;\n"
    "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n"
    "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"
    "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, "
    ":delta, CURRENT_TIMESTAMP);\n"
    "END;\n";

constexpr std::string_view kSelectOnlyText =
    "\\set aid random(1, 100000 * :scale)\n"
    "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n";

// A built-in by our name or pgbench's ("select-only").
std::optional<Script> builtin_named(std::string_view name) {
  std::string underscored(name);
  for (char& c : underscored) {
    if (c == '-') c = '_';
  }
  return script_from_name(underscored);
}

ScriptParse parse_builtin(Script script) {
  return parse_custom_script(script_name(script), builtin_script_text(script));
}

}  // namespace

std::string_view builtin_script_text(Script script) noexcept {
  switch (script) {
    case Script::tpcb_like:
      return kTpcbLikeText;
    case Script::simple_update:
      return kSimpleUpdateText;
    case Script::select_only:
      break;
  }
  return kSelectOnlyText;
}

ScriptMix builtin_mix(Script script) {
  ScriptParse parsed = parse_builtin(script);
  if (!parsed.script) throw PgError("built-in script: " + parsed.error);  // a bug here
  ScriptMix mix;
  mix.entries.push_back({std::string(script_name(script)), true, std::move(*parsed.script), 1});
  mix.total_weight = 1;
  return mix;
}

MixParse load_script_mix(std::string_view spec, const std::filesystem::path& base) {
  MixParse out;
  if (trim(spec).empty()) {
    out.mix = builtin_mix(Script::tpcb_like);  // pgbench without -f or -b
    return out;
  }
  std::size_t start = 0;
  while (start <= spec.size()) {
    std::size_t end = spec.find(',', start);
    if (end == std::string_view::npos) end = spec.size();
    const std::string_view entry = trim(spec.substr(start, end - start));
    start = end + 1;
    if (entry.empty()) {
      out.errors.push_back(
          fmt::format("scripts: an empty entry in \"{}\" (entries are separated by ',')", spec));
      continue;
    }
    std::string_view name = entry;
    std::int64_t weight = 1;
    if (const std::size_t at = entry.rfind('@'); at != std::string_view::npos) {
      name = trim(entry.substr(0, at));
      const std::string_view digits = trim(entry.substr(at + 1));
      long long value = 0;
      const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (digits.empty() || ec == std::errc::invalid_argument ||
          ptr != digits.data() + digits.size()) {
        out.errors.push_back(fmt::format("scripts: invalid weight specification \"{}\" in \"{}\"",
                                         entry.substr(at), entry));
        continue;
      }
      if (ec == std::errc::result_out_of_range || value < 0 || value > INT_MAX) {
        out.errors.push_back(fmt::format(
            "scripts: weight specification out of range (0 .. {}) in \"{}\"", INT_MAX, entry));
        continue;
      }
      weight = value;
    }
    if (name.empty()) {
      out.errors.push_back(fmt::format("scripts: no script before the weight in \"{}\"", entry));
      continue;
    }
    MixEntry mix_entry;
    mix_entry.weight = weight;
    ScriptParse parsed;
    if (const std::optional<Script> builtin = builtin_named(name)) {
      mix_entry.name = script_name(*builtin);
      mix_entry.builtin = true;
      parsed = parse_builtin(*builtin);
    } else {
      const std::filesystem::path path(name);
      mix_entry.name = std::string(name);
      parsed = load_custom_script(path.is_relative() ? base / path : path);
      if (!parsed.script && !path.has_extension() && !std::filesystem::exists(base / path)) {
        // Neither a built-in nor a file: say both.
        parsed.error += " (built-in scripts: tpcb_like, simple_update, select_only)";
      }
    }
    if (!parsed.script) {
      out.errors.push_back(std::move(parsed.error));
      continue;
    }
    mix_entry.script = std::move(*parsed.script);
    out.mix.total_weight += weight;
    out.mix.entries.push_back(std::move(mix_entry));
  }
  if (out.errors.empty() && out.mix.total_weight == 0) {
    out.errors.push_back(
        fmt::format("scripts: total script weight must not be zero in \"{}\"", spec));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> parse_script_vars(std::string_view vars) {
  std::vector<std::pair<std::string, std::string>> defines;
  std::size_t start = 0;
  while (start < vars.size()) {
    std::size_t end = vars.find(';', start);
    if (end == std::string_view::npos) end = vars.size();
    const std::string_view entry = trim(vars.substr(start, end - start));
    start = end + 1;
    if (entry.empty()) continue;
    const std::size_t equals = entry.find('=');
    if (equals == std::string_view::npos) {
      throw PgError(fmt::format("vars: invalid variable definition \"{}\" (name=value)", entry));
    }
    const std::string_view name = trim(entry.substr(0, equals));
    if (!valid_variable_name(name)) {
      throw PgError(fmt::format(
          "vars: invalid variable name \"{}\" (letters, digits and _, not first a digit)", name));
    }
    defines.emplace_back(std::string(name), std::string(entry.substr(equals + 1)));
  }
  return defines;
}

MixClient::MixClient(Connection conn, QueryMode mode, const ScriptMix& mix,
                     const ClientSetup& setup, std::uint64_t choose_seed, bool statement_latencies)
    : client_(std::move(conn), mode, setup), mix_(mix), choose_(choose_seed) {
  if (!statement_latencies) return;
  for (const MixEntry& entry : mix.entries) stats_.emplace_back(entry.script.commands.size());
}

std::vector<std::string> mix_part_names(std::string_view spec) {
  std::vector<std::string> names;
  if (trim(spec).empty()) return {std::string(script_name(Script::tpcb_like))};
  std::size_t start = 0;
  while (start <= spec.size()) {
    std::size_t end = spec.find(',', start);
    if (end == std::string_view::npos) end = spec.size();
    std::string_view entry = trim(spec.substr(start, end - start));
    start = end + 1;
    if (const std::size_t at = entry.rfind('@'); at != std::string_view::npos) {
      entry = trim(entry.substr(0, at));
    }
    if (entry.empty()) return {};
    std::string name;
    if (const std::optional<Script> builtin = builtin_named(entry)) {
      name = script_name(*builtin);
    } else {
      for (const char c : std::filesystem::path(entry).stem().string()) {
        const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (c >= 'A' && c <= 'Z') {
          name += static_cast<char>(c - 'A' + 'a');
        } else if (alnum) {
          name += c;
        } else if (!name.empty() && name.back() != '_') {
          name += '_';
        }
      }
      while (!name.empty() && name.back() == '_') name.pop_back();
      if (name.empty() || (name[0] >= '0' && name[0] <= '9')) name.insert(0, "script_");
    }
    std::string unique = name;
    for (int n = 2; std::find(names.begin(), names.end(), unique) != names.end(); ++n) {
      unique = fmt::format("{}_{}", name, n);
    }
    names.push_back(std::move(unique));
  }
  return names;
}

void MixClient::run(const TryLimit& limit, bool timed) {
  // pgbench's chooseScript: no draw for a single script; otherwise a uniform draw
  // over the total weight, walked through the weights in order.
  std::size_t index = 0;
  if (mix_.entries.size() > 1) {
    std::int64_t w = choose_.uniform(0, mix_.total_weight - 1);
    do {
      w -= mix_.entries[index++].weight;
    } while (w >= 0);
    --index;
  }
  last_ = index;
  retries_ = 0;
  conflict_ = Conflict::none;
  // pgbench keeps the random state a transaction began with and restores it to retry.
  const PgbenchRandom begun = client_.random();
  std::vector<CommandStats>* stats = stats_.empty() || !timed ? nullptr : &stats_[index];
  for (std::int64_t tries = 1;; ++tries) {
    try {
      client_.run(mix_.entries[index].script, index, stats);
      return;
    } catch (const PgError&) {
      conflict_ = client_.last_conflict();
      const bool tries_left = limit.max_tries == 0 || tries < limit.max_tries;
      const bool time_left =
          limit.deadline_ns == 0 || std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                            .count() < limit.deadline_ns;
      const bool retry = conflict_ != Conflict::none && tries_left && time_left;
      if (stats != nullptr) {
        CommandStats& command = (*stats)[client_.failed_command()];
        ++(retry ? command.retries : command.failures);
      }
      if (!retry) throw;
    }
    ++retries_;
    client_.random() = begun;
  }
}

}  // namespace storh::engines::pg
