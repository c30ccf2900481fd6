#include "pg/server_settings.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "common/text.h"
#include "pg/connection.h"

namespace storh::engines::pg {
namespace {

bool is_setting_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  });
}

}  // namespace

std::vector<Setting> ServerSettings::all() const {
  std::vector<Setting> settings;
  const auto add = [&](const char* name, const std::string& value) {
    if (!value.empty()) settings.emplace_back(name, value);
  };
  add("synchronous_commit", synchronous_commit);
  add("fsync", fsync);
  add("shared_buffers", shared_buffers);
  add("wal_level", wal_level);
  if (max_connections > 0)
    settings.emplace_back("max_connections", std::to_string(max_connections));
  const bool senders_set = std::any_of(extra.begin(), extra.end(), [](const Setting& setting) {
    return setting.first == "max_wal_senders";
  });
  if (wal_level == "minimal" && !senders_set) settings.emplace_back("max_wal_senders", "0");
  settings.insert(settings.end(), extra.begin(), extra.end());
  return settings;
}

std::vector<Setting> parse_settings(std::string_view text) {
  std::vector<Setting> settings;
  while (!trim(text).empty()) {
    const std::size_t end = text.find(';');
    const std::string_view entry = trim(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (entry.empty()) continue;
    const std::size_t equals = entry.find('=');
    const std::string_view name = trim(entry.substr(0, equals));
    if (equals == std::string_view::npos || !is_setting_name(name)) {
      throw PgError(fmt::format(
          "settings: \"{}\" is not name=value (write settings = {{ work_mem = \"4MB\" }}, or "
          "--set 'pg.settings=work_mem=4MB;jit=off')",
          entry));
    }
    settings.emplace_back(std::string(name), std::string(trim(entry.substr(equals + 1))));
  }
  return settings;
}

bool is_server_wide(std::string_view name) {
  constexpr std::array<std::string_view, 6> kPostmasterOnly = {
      "fsync",           "shared_buffers",  "wal_level",
      "max_connections", "max_wal_senders", "listen_addresses"};
  return std::find(kPostmasterOnly.begin(), kPostmasterOnly.end(), name) != kPostmasterOnly.end();
}

std::string session_options(const std::vector<Setting>& settings) {
  std::string options;
  for (const auto& [name, value] : settings) {
    if (!options.empty()) options += ' ';
    options += "-c " + name + '=';
    for (const char c : value) {
      if (c == ' ' || c == '\\') options += '\\';
      options += c;
    }
  }
  return options;
}

}  // namespace storh::engines::pg
