// FlatIndex and IdMap: every key found after inserts and erases, checked against std::map over long
// random sequences, including forced collisions (linear-probe runs that wrap around the
// table end, erased from the middle: the backward shift must keep every later key findable).
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/flat_index.h"
#include "common/id_map.h"

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

TEST_CASE("id map: 36-character ids, stable slots, reuse after erase", "[flat_index][id_map]") {
  using storh::engines::IdMap;
  IdMap<int> map;
  const auto id = [](int i) {
    std::string text = "01890a5d-ac96-7abc-8def-" + std::to_string(100000000000 + i);
    return text;
  };
  REQUIRE(id(1).size() == 36);
  std::vector<int*> held;
  for (int i = 0; i < 1000; ++i) {
    const auto placed = map.emplace(id(i));
    REQUIRE(placed.made);
    REQUIRE(&map.at(placed.index) == placed.slot);
    REQUIRE(map.index_of(id(i)) == placed.index);
    placed.slot->value = i;
    held.push_back(&placed.slot->value);
  }
  CHECK(map.size() == 1000);
  CHECK_FALSE(map.emplace(id(5)).made);  // already there
  for (int i = 0; i < 1000; ++i) REQUIRE(map.find(id(i)) == held[static_cast<std::size_t>(i)]);
  for (int i = 0; i < 1000; i += 2) CHECK(map.erase(id(i)));
  CHECK_FALSE(map.erase(id(0)));
  CHECK(map.size() == 500);
  // Erased slots are reused; the others have not moved.
  for (int i = 1000; i < 1200; ++i) map.emplace(id(i)).slot->value = i;
  CHECK(map.slots().size() == 1000);
  for (int i = 1; i < 1000; i += 2) REQUIRE(map.find(id(i)) == held[static_cast<std::size_t>(i)]);
  for (int i = 0; i < 1000; i += 2) CHECK(map.find(id(i)) == nullptr);
  for (int i = 1000; i < 1200; ++i) REQUIRE(*map.find(id(i)) == i);
  std::size_t live = 0;
  std::uint32_t index = 0;
  const IdMap<int>& constant = map;  // the const range
  for (const auto& slot : constant.slots()) {
    REQUIRE(&slot == &map.at(index++));  // every slot once, in index order, across chunks
    live += slot.live ? 1 : 0;
  }
  CHECK(index == 1000);
  CHECK(live == map.size());
  for (auto& slot : map.slots()) {  // a mutable walk reaches the values find() returns
    if (slot.live) slot.value += 1;
  }
  CHECK(*map.find(id(1)) == 2);
  CHECK(*map.find(id(1199)) == 1200);
  // Other lengths are never found, and cannot be stored.
  CHECK(map.find("short") == nullptr);
  CHECK(map.index_of("short") == FlatIndex::kNone);
  CHECK_FALSE(map.erase("short"));
  CHECK_THROWS_AS(map.emplace("short"), std::invalid_argument);
  map.clear();
  CHECK(map.size() == 0);
  CHECK(map.find(id(1)) == nullptr);
}

TEST_CASE(
    "id map: prefetch_slot says whether an id is most likely present; a hash passed in finds the "
    "same",
    "[flat_index][id_map]") {
  using storh::engines::IdMap;
  IdMap<int> map;
  const auto id = [](int i) {
    return std::string("01890a5d-ac96-7abc-8def-").append(std::to_string(100000000000 + i));
  };
  // An empty map: no buckets to read.
  map.prefetch_bucket(IdMap<int>::hash(id(1)));
  CHECK_FALSE(map.prefetch_slot(id(1), IdMap<int>::hash(id(1))));
  for (int i = 0; i < 1000; ++i) map.emplace(id(i)).slot->value = i;
  for (int i = 0; i < 1000; i += 3) CHECK(map.erase(id(i)));
  int present = 0;
  int absent_but_likely = 0;
  for (int i = 0; i < 2000; ++i) {
    const std::uint64_t hash = IdMap<int>::hash(id(i));
    REQUIRE(hash == FlatIndex::hash(id(i)));
    map.prefetch_bucket(hash);
    const bool likely = map.prefetch_slot(id(i), hash);
    REQUIRE(map.find(id(i), hash) == map.find(id(i)));
    REQUIRE(map.index_of(id(i), hash) == map.index_of(id(i)));
    if (map.find(id(i)) != nullptr) {
      ++present;
      REQUIRE(likely);  // a present id's bucket always matches its hash
    } else if (likely) {
      ++absent_but_likely;  // only a 32-bit hash collision in the probe run
    }
  }
  CHECK(present == 666);
  CHECK(absent_but_likely == 0);
  CHECK(map.size() == 666);
  CHECK_FALSE(map.prefetch_slot("short", IdMap<int>::hash("short")));
  CHECK(map.find("short", IdMap<int>::hash("short")) == nullptr);
  for (int i = 1; i < 1000; i += 3) REQUIRE(*map.find(id(i)) == i);
}
