#include "pg/statement_stats.h"

#include <cctype>
#include <cstdint>
#include <cstdlib>

#include <fmt/format.h>

namespace storh::engines::pg {
namespace {

constexpr std::size_t kSlugMax = 56;
constexpr std::size_t kSlugKept = 49;

double number(const Result& row, int r, int column) {
  if (row.is_null(r, column)) return 0;
  return std::strtod(std::string(row.text(r, column)).c_str(), nullptr);
}

// FNV-1a: stable across builds and platforms, unlike std::hash.
std::uint64_t text_hash(std::string_view text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

}  // namespace

StatementStatsSupport enable_statement_stats(Connection& conn) {
  StatementStatsSupport support;
  if (PQserverVersion(conn.handle()) < 130000) {
    support.missing = "the server is older than PostgreSQL 13";
    return support;
  }
  const auto count = [&](std::string_view sql) {
    return conn.exec(sql).integer(0, 0, "pg_stat_statements check");
  };
  if (count("SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'") == 0) {
    if (count("SELECT count(*) FROM pg_available_extensions WHERE name = 'pg_stat_statements'") ==
        0) {
      support.missing = "the server's installation does not have the extension";
      return support;
    }
    try {
      conn.exec("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    } catch (const PgError& e) {
      // Not a trusted extension: a role that is not a superuser may not create it.
      support.missing = fmt::format("it cannot be created in the cell's database ({})", e.what());
      return support;
    }
  }
  try {
    conn.exec("SELECT 1 FROM pg_stat_statements LIMIT 1");
  } catch (const PgError&) {
    // "pg_stat_statements must be loaded via shared_preload_libraries"
    support.missing = "the server does not load it (shared_preload_libraries)";
    return support;
  }
  if (conn.show("pg_stat_statements.track") == "none") {
    support.missing = "pg_stat_statements.track is none on the server";
    return support;
  }
  support.plan_time = conn.show("pg_stat_statements.track_planning") == "on";
  return support;
}

StatementStats read_statement_stats(Connection& conn) {
  const bool toplevel = PQserverVersion(conn.handle()) >= 140000;
  const Result found = conn.exec(fmt::format(
      "SELECT query, calls, rows, shared_blks_hit, shared_blks_read, total_plan_time, "
      "total_exec_time FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database "
      "WHERE datname = current_database()){} AND query NOT LIKE '%pg_stat_statements%'",
      toplevel ? " AND toplevel" : ""));
  StatementStats stats;
  for (int r = 0; r < found.rows(); ++r) {
    StatementCounts& counts = stats[std::string(found.text(r, 0))];
    counts.calls += number(found, r, 1);
    counts.rows += number(found, r, 2);
    counts.blks_hit += number(found, r, 3);
    counts.blks_read += number(found, r, 4);
    counts.plan_ms += number(found, r, 5);
    counts.exec_ms += number(found, r, 6);
  }
  return stats;
}

std::string statement_slug(std::string_view text, bool with_hash) {
  std::string slug;
  bool gap = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '$' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
      while (i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]))) ++i;
      gap = true;
      continue;
    }
    if (std::isalnum(c) == 0 || c >= 0x80) {
      gap = true;
      continue;
    }
    if (gap && !slug.empty()) slug += '_';
    gap = false;
    slug += static_cast<char>(std::tolower(c));
  }
  if (slug.empty()) slug = "statement";
  if (slug.size() <= kSlugMax && !with_hash) return slug;
  if (slug.size() > kSlugKept) slug.resize(kSlugKept);
  while (!slug.empty() && slug.back() == '_') slug.pop_back();
  return fmt::format("{}_{:06x}", slug, text_hash(text) & 0xffffff);
}

std::vector<StatementCounter> statement_difference(const StatementStats& before,
                                                   const StatementStats& after, bool plan_time) {
  // Slugs first, so that two texts that share one both get the hash.
  std::map<std::string, int> slug_uses;
  for (const auto& [text, counts] : after) ++slug_uses[statement_slug(text)];
  std::map<std::string, StatementCounts> by_slug;
  for (const auto& [text, counts] : after) {
    const auto earlier = before.find(text);
    const StatementCounts zero;
    const StatementCounts& from = earlier == before.end() ? zero : earlier->second;
    if (counts.calls - from.calls <= 0) continue;
    const std::string plain = statement_slug(text);
    by_slug[slug_uses[plain] > 1 ? statement_slug(text, true) : plain] = {
        counts.calls - from.calls,       counts.rows - from.rows,
        counts.blks_hit - from.blks_hit, counts.blks_read - from.blks_read,
        counts.plan_ms - from.plan_ms,   counts.exec_ms - from.exec_ms};
  }
  std::vector<StatementCounter> counters;
  for (const auto& [slug, d] : by_slug) {
    const std::string base = "pg.stmt." + slug + ".";
    counters.push_back({base + "calls", "calls", d.calls, true});
    counters.push_back({base + "rows", "rows", d.rows, true});
    counters.push_back({base + "blks_hit", "blocks", d.blks_hit, false});
    counters.push_back({base + "blks_read", "blocks", d.blks_read, false});
    if (plan_time) counters.push_back({base + "plan_ms", "milliseconds", d.plan_ms, false});
    counters.push_back({base + "exec_ms", "milliseconds", d.exec_ms, false});
  }
  return counters;
}

}  // namespace storh::engines::pg
