// schema.h: a collection's declared fields (engine-spec.md section 9), used by the document
// store (validation before any write, indexes merged into its index definitions) and by
// the SQL mirror (typed columns and SQL indexes).
//
// Built with a fluent chain, as storh's PHP Schema is:
//
//   Schema s = Schema::collection("docs")
//                  .string("kind").index()
//                  .string("slug").unique()
//                  .integer("publishedAt").range()
//                  .required({"kind", "slug"});
//
// A flag (index/unique/range) applies to the field declared last; unique and range both
// imply indexed. Declaring a field again keeps its position and flags and takes the new
// type. Fields listed in required() need not be declared.
//
// Failure: every builder method throws StoreError on a blank name or a flag with no field
// before it; validate() throws StoreError (messages below). Schema is a plain value:
// copyable, and safe to share between threads once built (const methods only).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "common/record.h"

namespace storh::engines {

// string | int | float | bool | mixed, as declared.
enum class SchemaType { string, integer, floating, boolean, mixed };

// The schema's spelling of a type: "string", "int", "float", "bool", "mixed".
std::string_view schema_type_name(SchemaType type) noexcept;

struct SchemaField {
  std::string name;
  SchemaType type = SchemaType::mixed;
  bool indexed = false;  // index(), unique() or range()
  bool unique = false;
  bool range = false;
};

class Schema {
 public:
  // Throws StoreError("Schema collection name must not be blank.") when `name` is
  // empty or only whitespace.
  static Schema collection(std::string name);

  // Declarations. Return *this for chaining.
  Schema& string(std::string field);
  Schema& integer(std::string field);   // PHP int()
  Schema& floating(std::string field);  // PHP float()
  Schema& boolean(std::string field);   // PHP bool()
  Schema& mixed(std::string field);
  Schema& field(std::string field, SchemaType type);

  // Flags on the field declared last.
  Schema& index();
  Schema& unique();
  Schema& range();

  // Adds required fields (kept once each, in first-listed order).
  Schema& required(std::initializer_list<std::string_view> fields);
  Schema& required(const std::vector<std::string>& fields);

  const std::string& name() const noexcept { return name_; }
  // Every declared field, in declaration order.
  const std::vector<SchemaField>& fields() const noexcept { return fields_; }
  // The declared fields with `indexed` set, in declaration order.
  std::vector<SchemaField> indexed_fields() const;
  const std::vector<std::string>& required_fields() const noexcept { return required_; }
  // nullptr when `field` is not declared.
  const SchemaField* find(std::string_view field) const noexcept;

  // Checks `data` (the record payload) and throws StoreError on the first failure:
  //   * each required field, in required() order, must be present; an explicit null
  //     counts as present: "Missing required schema field <f>"
  //   * each declared field, in declaration order, that is present and not null must
  //     match its type: "Schema field <f> must be <type>." where float accepts int or
  //     float, int needs a JSON integer (1.0 is not one), mixed accepts anything.
  // Undeclared fields are unrestricted. Data that is a list has no named fields.
  void validate(const Json& data) const;

 private:
  explicit Schema(std::string name) : name_(std::move(name)) {}
  SchemaField& last_field(std::string_view flag);

  std::string name_;
  std::vector<SchemaField> fields_;
  std::vector<std::string> required_;
  std::size_t last_ = 0;  // index into fields_ of the field declared last
};

}  // namespace storh::engines
