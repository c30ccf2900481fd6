// Tests of common/schema.h (engine-spec.md section 9).
#include <catch2/catch.hpp>
#include <string>

#include "common/bench/bench_row.h"
#include "common/schema.h"
#include "common/store_error.h"

using storh::engines::bench_schema;
using storh::engines::Json;
using storh::engines::Schema;
using storh::engines::SchemaType;
using storh::engines::StoreError;

namespace {

std::string validation_error(const Schema& schema, const Json& data) {
  try {
    schema.validate(data);
  } catch (const StoreError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("schema: collection name must not be blank", "[schema]") {
  CHECK_THROWS_AS(Schema::collection(""), StoreError);
  CHECK_THROWS_AS(Schema::collection(" \t\n"), StoreError);
  CHECK(Schema::collection("docs").name() == "docs");
}

TEST_CASE("schema: fields keep declaration order and unique/range imply indexed", "[schema]") {
  Schema s = bench_schema().mixed("extra").boolean("flag").floating("score").index();
  REQUIRE(s.fields().size() == 6);
  CHECK(s.fields()[0].name == "kind");
  CHECK(s.fields()[0].type == SchemaType::string);
  CHECK(s.fields()[0].indexed);
  CHECK_FALSE(s.fields()[0].unique);
  CHECK(s.fields()[1].unique);
  CHECK(s.fields()[1].indexed);
  CHECK(s.fields()[2].type == SchemaType::integer);
  CHECK(s.fields()[2].range);
  CHECK(s.fields()[2].indexed);
  CHECK_FALSE(s.fields()[3].indexed);
  CHECK(s.fields()[5].type == SchemaType::floating);

  auto indexed = s.indexed_fields();
  REQUIRE(indexed.size() == 4);
  CHECK(indexed[0].name == "kind");
  CHECK(indexed[3].name == "score");
  CHECK(s.find("slug") != nullptr);
  CHECK(s.find("nope") == nullptr);
}

TEST_CASE("schema: flags need a field and field names must not be blank", "[schema]") {
  CHECK_THROWS_AS(Schema::collection("docs").index(), StoreError);
  CHECK_THROWS_AS(Schema::collection("docs").unique(), StoreError);
  CHECK_THROWS_AS(Schema::collection("docs").string(" "), StoreError);
  CHECK_THROWS_AS(Schema::collection("docs").required({""}), StoreError);
}

TEST_CASE("schema: redeclaring a field keeps its place and flags and takes the new type",
          "[schema]") {
  Schema s = Schema::collection("docs").string("a").unique().string("b").integer("a");
  REQUIRE(s.fields().size() == 2);
  CHECK(s.fields()[0].name == "a");
  CHECK(s.fields()[0].type == SchemaType::integer);
  CHECK(s.fields()[0].unique);
}

TEST_CASE("schema: a required field must be present and an explicit null counts", "[schema]") {
  Schema s = bench_schema().required({"kind", "slug", "kind"});
  CHECK(s.required_fields().size() == 2);
  CHECK(validation_error(s, Json{{"slug", "x"}}) == "Missing required schema field kind");
  CHECK(validation_error(s, Json{{"kind", "page"}}) == "Missing required schema field slug");
  CHECK(validation_error(s, Json{{"kind", nullptr}, {"slug", nullptr}}).empty());
  CHECK(validation_error(s, Json::array()) == "Missing required schema field kind");
  // Required fields need not be declared.
  Schema t = Schema::collection("docs").required(std::vector<std::string>{"free"});
  CHECK(validation_error(t, Json{{"free", 1}}).empty());
  CHECK(validation_error(t, Json::object()) == "Missing required schema field free");
}

TEST_CASE("schema: present non-null fields must match their type", "[schema]") {
  Schema s =
      Schema::collection("docs").string("s").integer("i").floating("f").boolean("b").mixed("m");
  CHECK(
      validation_error(s, Json{{"s", "x"}, {"i", 1}, {"f", 1}, {"b", true}, {"m", "any"}}).empty());
  CHECK(validation_error(s, Json{{"f", 1.5}, {"m", Json::array({1})}, {"other", 1.5}}).empty());
  CHECK(validation_error(s, Json{{"s", 1}}) == "Schema field s must be string.");
  CHECK(validation_error(s, Json{{"i", 1.0}}) == "Schema field i must be int.");
  CHECK(validation_error(s, Json{{"i", "1"}}) == "Schema field i must be int.");
  CHECK(validation_error(s, Json{{"f", "1.5"}}) == "Schema field f must be float.");
  CHECK(validation_error(s, Json{{"b", 1}}) == "Schema field b must be bool.");
  CHECK(validation_error(s, Json{{"s", nullptr}, {"i", nullptr}}).empty());
  // A list has no named fields: only required fields can fail.
  CHECK(validation_error(s, Json::array({1, 2})).empty());
}

TEST_CASE("schema: required fields are checked before types", "[schema]") {
  Schema s = Schema::collection("docs").string("a").required({"b"});
  CHECK(validation_error(s, Json{{"a", 1}}) == "Missing required schema field b");
}
