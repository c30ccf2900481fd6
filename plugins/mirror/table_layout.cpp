#include "mirror/table_layout.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>

#include "common/store_error.h"
#include "mirror/sqlite.h"

namespace storh::engines::mirror {
namespace {

bool is_alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

[[noreturn]] void fail(std::string_view what, std::string_view value) {
  std::string message(what);
  message += ": \"";
  message += value;
  message += '"';
  throw StoreError(message);
}

void validate_column(const SchemaField& field) {
  const std::string& name = field.name;
  bool ok = !name.empty() && std::isalpha(static_cast<unsigned char>(name[0])) != 0 &&
            std::all_of(name.begin(), name.end(), [](char c) { return is_alnum(c) || c == '_'; });
  if (!ok) {
    fail("SQL mirror column name must match ^[A-Za-z][A-Za-z0-9_]*$", name);
  }
  std::string lowered = lower(name);
  if (lowered == "id" || lowered == "hash" || lowered == "data") {
    fail("SQL mirror column name is reserved (id, hash, data)", name);
  }
}

std::string quote(std::string_view identifier) {
  // Identifiers are validated to [A-Za-z0-9_-]: no quote can appear inside.
  std::string out("\"");
  out += identifier;
  out += '"';
  return out;
}

std::string_view sql_type(SchemaType type) {
  switch (type) {
    case SchemaType::string:
      return "TEXT";
    case SchemaType::floating:
      return "REAL";
    default:
      return "INTEGER";
  }
}

}  // namespace

void validate_prefix(std::string_view prefix) {
  if (!std::all_of(prefix.begin(), prefix.end(), [](char c) { return is_alnum(c) || c == '_'; })) {
    fail("SQL mirror prefix must match [A-Za-z0-9_]*", prefix);
  }
}

TableLayout::TableLayout(std::string_view prefix, std::string collection,
                         const std::optional<Schema>& schema)
    : collection_(std::move(collection)) {
  validate_prefix(prefix);
  if (collection_.empty() || !std::all_of(collection_.begin(), collection_.end(), [](char c) {
        return is_alnum(c) || c == '_' || c == '-';
      })) {
    fail("SQL mirror collection name must match [A-Za-z0-9_-]+", collection_);
  }
  table_ = prefix;
  for (char c : collection_) {
    table_ += c == '-' ? '_' : c;
  }
  if (!schema) {
    return;
  }
  std::vector<std::string> seen;
  for (const SchemaField& field : schema->fields()) {
    if (field.type == SchemaType::mixed) {
      if (field.indexed) {
        fail("SQL mirror cannot index a mixed schema field", field.name);
      }
      continue;
    }
    validate_column(field);
    std::string lowered = lower(field.name);
    if (std::find(seen.begin(), seen.end(), lowered) != seen.end()) {
      fail("SQL mirror column names must differ ignoring case", field.name);
    }
    seen.push_back(std::move(lowered));
    columns_.push_back(field);
  }
}

std::string TableLayout::quoted_table() const {
  return quote(table_);
}

std::string TableLayout::create_table_sql() const {
  std::string sql("CREATE TABLE IF NOT EXISTS ");
  sql += quote(table_);
  sql += " (\"id\" TEXT NOT NULL PRIMARY KEY, \"hash\" TEXT NOT NULL, ";
  for (const SchemaField& column : columns_) {
    sql += quote(column.name);
    sql += ' ';
    sql += sql_type(column.type);
    sql += ", ";
  }
  sql += "\"data\" TEXT NOT NULL)";
  return sql;
}

std::vector<TableLayout::Index> TableLayout::indexes() const {
  std::vector<Index> out;
  for (const SchemaField& column : columns_) {
    if (!column.indexed) {
      continue;
    }
    Index index;
    index.name = table_;
    index.name += '_';
    index.name += lower(column.name);
    index.name += "_idx";
    // SQLite stores "CREATE [UNIQUE] INDEX " and the statement's text from the name on.
    std::string tail = quote(index.name);
    tail += " ON ";
    tail += quote(table_);
    tail += " (";
    tail += quote(column.name);
    tail += ')';
    const std::string_view head = column.unique ? "CREATE UNIQUE INDEX " : "CREATE INDEX ";
    index.create_sql = std::string(head) + "IF NOT EXISTS " + tail;
    index.stored_sql = std::string(head) + tail;
    index.drop_sql = "DROP INDEX " + quote(index.name);
    out.push_back(std::move(index));
  }
  return out;
}

std::vector<std::string> TableLayout::create_index_sql() const {
  std::vector<std::string> out;
  for (Index& index : indexes()) out.push_back(std::move(index.create_sql));
  return out;
}

std::string TableLayout::drop_table_sql() const {
  std::string sql("DROP TABLE IF EXISTS ");
  sql += quote(table_);
  return sql;
}

std::string TableLayout::column_list() const {
  std::string list("\"id\", \"hash\", ");
  for (const SchemaField& column : columns_) {
    list += quote(column.name);
    list += ", ";
  }
  list += "\"data\"";
  return list;
}

std::string TableLayout::insert_sql() const {
  std::string sql("INSERT INTO ");
  sql += quote(table_);
  sql += " (";
  sql += column_list();
  sql += ") VALUES (?, ?, ";
  for (std::size_t i = 0; i < columns_.size(); ++i) sql += "?, ";
  sql += "?)";
  return sql;
}

std::string TableLayout::select_rows_sql() const {
  std::string sql("SELECT ");
  sql += column_list();
  sql += " FROM ";
  sql += quote(table_);
  sql += " ORDER BY rowid";
  return sql;
}

std::string TableLayout::delete_one_sql() const {
  std::string sql("DELETE FROM ");
  sql += quote(table_);
  sql += " WHERE \"id\" = ?";
  return sql;
}

std::string TableLayout::delete_in_sql(std::size_t count) const {
  std::string sql("DELETE FROM ");
  sql += quote(table_);
  sql += " WHERE \"id\" IN (";
  for (std::size_t i = 0; i < count; ++i) {
    sql += i == 0 ? "?" : ", ?";
  }
  sql += ')';
  return sql;
}

std::string TableLayout::delete_all_sql() const {
  std::string sql("DELETE FROM ");
  sql += quote(table_);
  return sql;
}

std::string TableLayout::select_hashes_sql() const {
  std::string sql("SELECT \"id\", \"hash\" FROM ");
  sql += quote(table_);
  return sql;
}

std::string TableLayout::select_data_sql() const {
  std::string sql("SELECT \"id\", \"data\" FROM ");
  sql += quote(table_);
  sql += " ORDER BY \"id\"";
  return sql;
}

void TableLayout::bind_insert(Statement& insert, std::string_view id, std::string_view hash,
                              const Json& data, std::string_view canonical) const {
  insert.bind_text(1, id);
  insert.bind_text(2, hash);
  int index = 3;
  for (const SchemaField& column : columns_) {
    const Json* value = nullptr;
    if (data.is_object()) {
      auto it = data.find(column.name);
      if (it != data.end()) {
        value = &*it;
      }
    }
    if (value == nullptr) {
      insert.bind_null(index++);
      continue;
    }
    switch (column.type) {
      case SchemaType::string:
        if (value->is_string()) {
          insert.bind_text(index, value->get_ref<const std::string&>());
        } else {
          insert.bind_null(index);
        }
        break;
      case SchemaType::integer:
        if (value->is_number_unsigned() &&
            value->get<std::uint64_t>() >
                static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
          // Beyond SQLite's integers; affinity would store it as REAL too.
          insert.bind_double(index, value->get<double>());
        } else if (value->is_number_integer()) {
          insert.bind_int64(index, value->get<std::int64_t>());
        } else {
          insert.bind_null(index);
        }
        break;
      case SchemaType::floating:
        if (value->is_number()) {
          insert.bind_double(index, value->get<double>());
        } else {
          insert.bind_null(index);
        }
        break;
      case SchemaType::boolean:
        if (value->is_boolean()) {
          insert.bind_int64(index, value->get<bool>() ? 1 : 0);
        } else {
          insert.bind_null(index);
        }
        break;
      case SchemaType::mixed:
        insert.bind_null(index);
        break;
    }
    ++index;
  }
  insert.bind_text(index, canonical);
}

}  // namespace storh::engines::mirror
