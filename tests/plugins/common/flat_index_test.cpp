// FlatIndex: every key found after inserts and erases, checked against std::map over long
// random sequences, including forced collisions (linear-probe runs that wrap around the
// table end, erased from the middle: the backward shift must keep every later key findable).
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/flat_index.h"

using storh::engines::FlatIndex;

namespace {

// A table of keys with a chosen hash per key, as an owner of a FlatIndex keeps one.
struct Table {
  explicit Table(std::uint64_t (*hash)(const std::string&)) : hash_of(hash) {}

  std::uint64_t (*hash_of)(const std::string&);
  FlatIndex index;
  std::vector<std::string> keys;  // slot -> key ("" = free)
  std::map<std::string, std::uint32_t> model;

  std::uint32_t find(const std::string& key) const {
    return index.find(hash_of(key), [&](std::uint32_t slot) { return keys[slot] == key; });
  }
  void insert(const std::string& key) {
    const auto slot = static_cast<std::uint32_t>(keys.size());
    keys.push_back(key);
    index.insert(hash_of(key), slot);
    model[key] = slot;
  }
  void erase(const std::string& key) {
    const std::uint32_t slot = model.at(key);
    index.erase(hash_of(key), slot);
    keys[slot].clear();
    model.erase(key);
  }
  void check_all() const {
    REQUIRE(index.size() == model.size());
    for (const auto& [key, slot] : model) REQUIRE(find(key) == slot);
  }
};

std::uint64_t real_hash(const std::string& key) {
  return FlatIndex::hash(key);
}
// Eight hash values for all keys: long collision runs, and runs across the table's end
// (the low bits select the home bucket; 0xffffffff is the last bucket of any size).
std::uint64_t colliding_hash(const std::string& key) {
  static constexpr std::uint64_t kHashes[] = {0, 1, 2, 0xffffffffU, 0xfffffffeU, 7, 8, 0x10};
  return kHashes[FlatIndex::hash(key) % 8];
}

void random_workload(Table& table, std::uint32_t seed, int steps) {
  std::mt19937 random(seed);
  for (int step = 0; step < steps; ++step) {
    const std::string key = "k" + std::to_string(random() % 400);
    const bool present = table.model.count(key) != 0;
    if (present && random() % 3 != 0) {
      table.erase(key);
    } else if (!present) {
      table.insert(key);
    }
    if (step % 97 == 0) table.check_all();
  }
  table.check_all();
}

}  // namespace

TEST_CASE("flat index: finds what was inserted, not what was erased", "[flat_index]") {
  Table table(real_hash);
  CHECK(table.find("a") == FlatIndex::kNone);
  table.insert("a");
  table.insert("b");
  CHECK(table.find("a") == 0);
  CHECK(table.find("b") == 1);
  CHECK(table.find("c") == FlatIndex::kNone);
  table.erase("a");
  CHECK(table.find("a") == FlatIndex::kNone);
  CHECK(table.find("b") == 1);
  table.index.erase(FlatIndex::hash("zz"), 99);  // absent: nothing happens
  CHECK(table.index.size() == 1);
  table.index.clear();
  CHECK(table.find("b") == FlatIndex::kNone);
  CHECK(table.index.size() == 0);
}

TEST_CASE("flat index: random inserts and erases agree with a map", "[flat_index]") {
  for (std::uint32_t seed = 1; seed <= 5; ++seed) {
    Table table(real_hash);
    random_workload(table, seed, 5000);
  }
}

TEST_CASE("flat index: colliding hashes, runs that wrap around, erased from the middle",
          "[flat_index]") {
  for (std::uint32_t seed = 1; seed <= 5; ++seed) {
    Table table(colliding_hash);
    random_workload(table, seed, 3000);
  }
}
