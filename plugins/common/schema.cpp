#include "common/schema.h"

#include <algorithm>
#include <utility>

#include "common/store_error.h"

namespace storh::engines {
namespace {

// PHP trim()'s character set.
bool is_blank(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\0';
  });
}

void require_name(std::string_view name, std::string_view what) {
  if (is_blank(name)) {
    std::string message(what);
    message += " must not be blank.";
    throw StoreError(message);
  }
}

bool matches(SchemaType type, const Json& value) {
  switch (type) {
    case SchemaType::string:
      return value.is_string();
    case SchemaType::integer:
      return value.is_number_integer();
    case SchemaType::floating:
      return value.is_number();
    case SchemaType::boolean:
      return value.is_boolean();
    case SchemaType::mixed:
      return true;
  }
  return false;
}

}  // namespace

std::string_view schema_type_name(SchemaType type) noexcept {
  switch (type) {
    case SchemaType::string:
      return "string";
    case SchemaType::integer:
      return "int";
    case SchemaType::floating:
      return "float";
    case SchemaType::boolean:
      return "bool";
    case SchemaType::mixed:
      return "mixed";
  }
  return "mixed";
}

Schema Schema::collection(std::string name) {
  require_name(name, "Schema collection name");
  return Schema(std::move(name));
}

Schema& Schema::string(std::string field) {
  return this->field(std::move(field), SchemaType::string);
}
Schema& Schema::integer(std::string field) {
  return this->field(std::move(field), SchemaType::integer);
}
Schema& Schema::floating(std::string field) {
  return this->field(std::move(field), SchemaType::floating);
}
Schema& Schema::boolean(std::string field) {
  return this->field(std::move(field), SchemaType::boolean);
}
Schema& Schema::mixed(std::string field) {
  return this->field(std::move(field), SchemaType::mixed);
}

Schema& Schema::field(std::string field, SchemaType type) {
  require_name(field, "Schema field name");
  auto it = std::find_if(fields_.begin(), fields_.end(),
                         [&](const SchemaField& f) { return f.name == field; });
  if (it != fields_.end()) {
    it->type = type;
    last_ = static_cast<std::size_t>(it - fields_.begin());
    return *this;
  }
  fields_.push_back(SchemaField{std::move(field), type, false, false, false});
  last_ = fields_.size() - 1;
  return *this;
}

SchemaField& Schema::last_field(std::string_view flag) {
  if (fields_.empty()) {
    std::string message("Schema ");
    message += flag;
    message += "() needs a field declared before it.";
    throw StoreError(message);
  }
  return fields_[last_];
}

Schema& Schema::index() {
  last_field("index").indexed = true;
  return *this;
}

Schema& Schema::unique() {
  SchemaField& f = last_field("unique");
  f.indexed = true;
  f.unique = true;
  return *this;
}

Schema& Schema::range() {
  SchemaField& f = last_field("range");
  f.indexed = true;
  f.range = true;
  return *this;
}

Schema& Schema::required(std::initializer_list<std::string_view> fields) {
  for (std::string_view field : fields) {
    require_name(field, "Required schema field name");
    if (std::find(required_.begin(), required_.end(), field) == required_.end()) {
      required_.emplace_back(field);
    }
  }
  return *this;
}

Schema& Schema::required(const std::vector<std::string>& fields) {
  for (const std::string& field : fields) {
    required({std::string_view(field)});
  }
  return *this;
}

std::vector<SchemaField> Schema::indexed_fields() const {
  std::vector<SchemaField> out;
  for (const SchemaField& f : fields_) {
    if (f.indexed) {
      out.push_back(f);
    }
  }
  return out;
}

const SchemaField* Schema::find(std::string_view field) const noexcept {
  for (const SchemaField& f : fields_) {
    if (f.name == field) {
      return &f;
    }
  }
  return nullptr;
}

void Schema::validate(const Json& data) const {
  const bool has_fields = data.is_object();
  for (const std::string& field : required_) {
    if (!has_fields || !data.contains(field)) {
      std::string message("Missing required schema field ");
      message += field;
      throw StoreError(message);
    }
  }
  if (!has_fields) {
    return;
  }
  for (const SchemaField& f : fields_) {
    if (f.type == SchemaType::mixed) {
      continue;
    }
    auto it = data.find(f.name);
    if (it == data.end() || it->is_null() || matches(f.type, *it)) {
      continue;
    }
    std::string message("Schema field ");
    message += f.name;
    message += " must be ";
    message += schema_type_name(f.type);
    message += '.';
    throw StoreError(message);
  }
}

}  // namespace storh::engines
