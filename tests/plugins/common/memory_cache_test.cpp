// MemoryCache (engine-spec.md 7.2): LRU order, entry and byte bounds, TTL, clear_prefix,
// record tuples (section 4.6) typed and as JSON, long keys, and use from several threads.
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/memory_cache.h"

using storh::engines::Json;
using storh::engines::MemoryCache;
using storh::engines::RecordTuple;
using storh::engines::TupleLookup;

namespace {

RecordTuple tuple_of(std::shared_ptr<const std::string> scope, Json payload) {
  RecordTuple tuple;
  tuple.exists = true;
  tuple.scope = std::move(scope);
  tuple.mtime_ns = 123;
  tuple.size = 45;
  tuple.hash = "h";
  tuple.payload = std::make_shared<const Json>(std::move(payload));
  return tuple;
}

}  // namespace

TEST_CASE("memory cache: get returns what set stored, null when absent", "[cache][memory]") {
  MemoryCache cache(10);
  CHECK(cache.get("a") == nullptr);
  cache.set("a", Json{{"x", 1}});
  REQUIRE(cache.get("a"));
  CHECK(*cache.get("a") == Json{{"x", 1}});
  cache.set("a", Json("replaced"));
  CHECK(*cache.get("a") == "replaced");
  CHECK(cache.size() == 1);
  CHECK(cache.remove("a"));
  CHECK_FALSE(cache.remove("a"));
  CHECK(cache.get("a") == nullptr);
}

TEST_CASE("memory cache: the least recently touched key is evicted first", "[cache][memory]") {
  MemoryCache cache(3);
  cache.set("a", Json(1));
  cache.set("b", Json(2));
  cache.set("c", Json(3));
  CHECK(cache.get("a"));  // touch a: b is now the oldest
  cache.set("d", Json(4));
  CHECK(cache.get("b") == nullptr);
  CHECK(cache.get("a"));
  CHECK(cache.get("c"));
  CHECK(cache.get("d"));
  cache.set("c", Json(30));  // a set touches too: a is now the oldest
  cache.set("e", Json(5));
  CHECK(cache.get("a") == nullptr);
  CHECK(cache.size() == 3);
}

TEST_CASE("memory cache: the byte bound evicts old keys and keeps the one just set",
          "[cache][memory]") {
  const std::size_t one = [] {
    MemoryCache probe(10);
    probe.set("k0", Json(std::string(1000, 'x')));
    return probe.bytes();
  }();
  MemoryCache cache(100, one * 2 + one / 2);
  cache.set("k0", Json(std::string(1000, 'x')));
  cache.set("k1", Json(std::string(1000, 'x')));
  cache.set("k2", Json(std::string(1000, 'x')));
  CHECK(cache.size() == 2);
  CHECK(cache.get("k0") == nullptr);
  CHECK(cache.bytes() <= one * 2 + one / 2);
  // A value larger than the bound alone is dropped rather than kept over the bound.
  MemoryCache tiny(10, 16);
  tiny.set("big", Json(std::string(1000, 'x')));
  CHECK(tiny.size() == 0);
}

TEST_CASE("memory cache: keys expire after max(1, ttl) seconds", "[cache][memory]") {
  std::int64_t now = 1000;
  MemoryCache cache(10, std::nullopt, [&] { return now; });
  cache.set("short", Json(1), 0);  // ttl 0 means 1 second
  cache.set("long", Json(2), 10);
  cache.set("forever", Json(3));
  CHECK(cache.get("short"));
  now += 1;
  CHECK(cache.get("short") == nullptr);
  CHECK(cache.get("long"));
  now += 100;
  CHECK(cache.get("long") == nullptr);
  CHECK(cache.get("forever"));
  CHECK(cache.size() == 1);
}

TEST_CASE("memory cache: clear_prefix deletes exactly the keys with the prefix",
          "[cache][memory]") {
  MemoryCache cache(10);
  cache.set("doc:a:1", Json(1));
  cache.set("doc:a:2", Json(2));
  cache.set("doc:ab:1", Json(3));
  cache.set("log:a", Json(4));
  CHECK(cache.clear_prefix("doc:a:") == 2);
  CHECK(cache.get("doc:ab:1"));
  CHECK(cache.get("log:a"));
  CHECK(cache.size() == 2);
}

TEST_CASE("memory cache: a value handed out outlives its eviction", "[cache][memory]") {
  MemoryCache cache(1);
  cache.set("a", Json{{"keep", true}});
  auto held = cache.get("a");
  cache.set("b", Json(2));
  CHECK(cache.get("a") == nullptr);
  CHECK((*held)["keep"] == true);
}

TEST_CASE("memory cache: bounds are validated", "[cache][memory]") {
  CHECK_THROWS_AS(MemoryCache(0), std::invalid_argument);
  CHECK_THROWS_AS(MemoryCache(1, std::size_t{0}), std::invalid_argument);
}

TEST_CASE("memory cache: concurrent gets and sets keep the bound", "[cache][memory][threads]") {
  MemoryCache cache(64);
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, t] {
      for (int i = 0; i < 5000; ++i) {
        const std::string key = "k" + std::to_string((i * 7 + t) % 200);
        if (i % 3 == 0) {
          cache.set(key, Json(i));
        } else if (auto value = cache.get(key)) {
          (void)value->is_number();
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(cache.size() <= 64);
}

TEST_CASE("memory cache: record tuples, typed and seen as JSON", "[cache][memory][tuple]") {
  MemoryCache cache(10);
  auto scope = std::make_shared<const std::string>("scope-a");
  cache.set_tuple("doc:c:1", tuple_of(scope, Json{{"v", 1}}));

  RecordTuple out;
  REQUIRE(cache.get_tuple("doc:c:1", scope, out) == TupleLookup::found);
  CHECK(out.exists);
  CHECK(out.mtime_ns == 123);
  CHECK(out.size == 45);
  CHECK(out.hash == "h");
  CHECK(*out.payload == Json{{"v", 1}});
  CHECK(out.scope == nullptr);  // left alone
  // An equal scope held by another pointer matches too; another scope does not.
  CHECK(cache.get_tuple("doc:c:1", std::make_shared<const std::string>("scope-a"), out) ==
        TupleLookup::found);
  CHECK(cache.get_tuple("doc:c:1", std::make_shared<const std::string>("scope-b"), out) ==
        TupleLookup::other);
  CHECK(cache.get_tuple("doc:c:2", scope, out) == TupleLookup::absent);

  // get() shows the tuple as section 4.6's array; a missing record has five elements.
  REQUIRE(cache.get("doc:c:1"));
  CHECK(*cache.get("doc:c:1") == Json::array({true, "scope-a", 123, 45, "h", Json{{"v", 1}}}));
  RecordTuple missing;
  missing.scope = scope;
  cache.set_tuple("doc:c:2", missing);
  CHECK(*cache.get("doc:c:2") == Json::array({false, "scope-a", 0, -1, ""}));
  REQUIRE(cache.get_tuple("doc:c:2", scope, out) == TupleLookup::found);
  CHECK_FALSE(out.exists);
  CHECK(out.payload == nullptr);

  // A tuple must carry its scope.
  CHECK_THROWS_AS(cache.set_tuple("doc:c:3", RecordTuple{}), std::invalid_argument);

  // A payload held as data but shown as text (a STAT/HASH store's): get_tuple hands out
  // the data itself, get() shows its canonical JSON text, in section 4.6's shape.
  RecordTuple as_text = tuple_of(scope, Json{{"b", "x/y"}, {"a", Json::array({1, 2})}});
  as_text.payload_is_data = true;
  const auto data = as_text.payload;
  cache.set_tuple("doc:c:4", as_text);
  REQUIRE(cache.get_tuple("doc:c:4", scope, out) == TupleLookup::found);
  CHECK(out.payload == data);
  CHECK(out.payload_is_data);
  CHECK(*cache.get("doc:c:4") ==
        Json::array({true, "scope-a", 123, 45, "h", R"({"b":"x/y","a":[1,2]})"}));
  // Replaced by a plain tuple, the flag goes with it.
  cache.set_tuple("doc:c:4", tuple_of(scope, Json{{"v", 4}}));
  REQUIRE(cache.get_tuple("doc:c:4", scope, out) == TupleLookup::found);
  CHECK_FALSE(out.payload_is_data);
  CHECK(*cache.get("doc:c:4") == Json::array({true, "scope-a", 123, 45, "h", Json{{"v", 4}}}));
}

TEST_CASE("memory cache: get_tuple reads JSON tuples set by anyone, rejects malformed ones",
          "[cache][memory][tuple]") {
  MemoryCache cache(10);
  auto scope = std::make_shared<const std::string>("s");
  cache.set("t", Json::array({true, "s", 7, 8, "", "{\"a\":1}"}));
  RecordTuple out;
  REQUIRE(cache.get_tuple("t", scope, out) == TupleLookup::found);
  CHECK(out.exists);
  CHECK(out.mtime_ns == 7);
  CHECK(out.size == 8);
  CHECK(*out.payload == "{\"a\":1}");
  cache.set("neg", Json::array({false, "s", 0, -1, ""}));
  REQUIRE(cache.get_tuple("neg", scope, out) == TupleLookup::found);
  CHECK_FALSE(out.exists);
  CHECK(out.payload == nullptr);

  for (const Json& bad : {Json(1), Json::array({true, "s", 7, 8, ""}),  // exists, no payload
                          Json::array({true, 5, 7, 8, "", "{}"}), Json::array({"yes", "s", 7})}) {
    cache.set("bad", bad);
    CHECK(cache.get_tuple("bad", scope, out) == TupleLookup::other);
  }
  // A plain set replaces a tuple, and a tuple a plain value.
  cache.set_tuple("t", tuple_of(scope, Json::array({1})));
  cache.set("t", Json(3));
  CHECK(*cache.get("t") == 3);
  CHECK(cache.get_tuple("t", scope, out) == TupleLookup::other);
}

TEST_CASE("memory cache: tuples take part in LRU order and the byte bound",
          "[cache][memory][tuple]") {
  auto scope = std::make_shared<const std::string>("s");
  MemoryCache cache(2);
  cache.set_tuple("a", tuple_of(scope, Json{{"v", 1}}));
  cache.set("b", Json(2));
  RecordTuple out;
  CHECK(cache.get_tuple("a", scope, out) == TupleLookup::found);  // touch a: b is oldest
  cache.set_tuple("c", tuple_of(scope, Json{{"v", 3}}));
  CHECK(cache.get("b") == nullptr);
  CHECK(cache.get_tuple("a", scope, out) == TupleLookup::found);
  CHECK(cache.size() == 2);
  // The payload counts toward bytes.
  MemoryCache small(10);
  small.set_tuple("x", tuple_of(scope, Json(std::string(10000, 'x'))));
  CHECK(small.bytes() > 10000);
  MemoryCache tiny(10, 1000);
  tiny.set_tuple("x", tuple_of(scope, Json(std::string(10000, 'x'))));
  CHECK(tiny.size() == 0);
}

TEST_CASE("memory cache: long keys, reused slots and prefixes", "[cache][memory]") {
  MemoryCache cache(100);
  const std::string long_prefix = "doc:a-collection-with-a-long-name:";
  std::vector<std::string> keys;
  for (int i = 0; i < 50; ++i) {
    keys.push_back((i % 2 == 0 ? long_prefix : std::string("doc:s:")) + std::to_string(i) +
                   std::string(static_cast<std::size_t>(i), 'k'));
    cache.set(keys.back(), Json(i));
  }
  for (int i = 0; i < 50; i += 3) CHECK(cache.remove(keys[static_cast<std::size_t>(i)]));
  for (int i = 0; i < 50; i += 3) cache.set(keys[static_cast<std::size_t>(i)] + "!", Json(-i));
  for (int i = 0; i < 50; ++i) {
    const auto& key = keys[static_cast<std::size_t>(i)];
    if (i % 3 == 0) {
      CHECK(cache.get(key) == nullptr);
      REQUIRE(cache.get(key + "!"));
      CHECK(*cache.get(key + "!") == -i);
    } else {
      REQUIRE(cache.get(key));
      CHECK(*cache.get(key) == i);
    }
  }
  CHECK(cache.clear_prefix(long_prefix) == 25);
  CHECK(cache.size() == 25);
  cache.clear();
  CHECK(cache.size() == 0);
  CHECK(cache.bytes() == 0);
  CHECK(cache.get(keys[1]) == nullptr);
  cache.set(keys[1], Json(1));
  CHECK(*cache.get(keys[1]) == 1);
}

TEST_CASE("memory cache: thousands of keys across entry chunks, evicted, reused and cleared",
          "[cache][memory]") {
  MemoryCache cache(1500);
  const auto key = [](int i) { return "doc:c:" + std::to_string(i); };
  for (int i = 0; i < 4000; ++i) cache.set(key(i), Json(i));
  CHECK(cache.size() == 1500);
  for (int i = 0; i < 2500; i += 97) CHECK(cache.get(key(i)) == nullptr);
  for (int i = 2500; i < 4000; ++i) {
    const auto value = cache.get(key(i));
    REQUIRE(value);
    CHECK(*value == i);
  }
  // Freed slots are reused by new keys; every key still reads its own value.
  for (int i = 2500; i < 3000; ++i) CHECK(cache.remove(key(i)));
  for (int i = 5000; i < 5500; ++i) cache.set(key(i), Json(-i));
  CHECK(cache.size() == 1500);
  for (int i = 5000; i < 5500; ++i) CHECK(*cache.get(key(i)) == -i);
  for (int i = 3000; i < 4000; ++i) CHECK(*cache.get(key(i)) == i);
  CHECK(cache.clear_prefix("doc:c:3") == 1000);
  cache.clear();
  CHECK(cache.size() == 0);
  for (int i = 0; i < 600; ++i) cache.set(key(i), Json(i));
  CHECK(*cache.get(key(599)) == 599);
  CHECK(cache.size() == 600);
}

TEST_CASE("memory cache: concurrent tuple gets, sets and removes", "[cache][memory][threads]") {
  MemoryCache cache(32);
  auto scope = std::make_shared<const std::string>("s");
  std::atomic<int> wrong{0};  // Catch2's assertions are not thread-safe
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, &scope, &wrong, t] {
      RecordTuple out;
      for (int i = 0; i < 4000; ++i) {
        const std::string key = "doc:c:" + std::to_string((i * 5 + t) % 100);
        if (i % 4 == 0) {
          cache.set_tuple(key, tuple_of(scope, Json{{"i", i}}));
        } else if (i % 7 == 0) {
          cache.remove(key);
        } else if (cache.get_tuple(key, scope, out) == TupleLookup::found &&
                   !out.payload->contains("i")) {
          ++wrong;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(wrong == 0);
  CHECK(cache.size() <= 32);
}

TEST_CASE("memory cache: a hash passed in finds what the key finds, prefetch is always safe",
          "[cache][memory][tuple]") {
  MemoryCache cache(100);
  auto scope = std::make_shared<const std::string>("s");
  cache.prefetch(MemoryCache::key_hash("doc:c:1"));  // nothing stored yet
  for (int i = 0; i < 50; ++i) {
    cache.set_tuple("doc:c:" + std::to_string(i), tuple_of(scope, Json{{"i", i}}));
  }
  RecordTuple out;
  for (int i = 0; i < 60; ++i) {
    const std::string key = "doc:c:" + std::to_string(i);
    const std::uint64_t hash = MemoryCache::key_hash(key);
    cache.prefetch(hash);
    const TupleLookup with_hash = cache.get_tuple(key, hash, scope, out);
    REQUIRE(with_hash == cache.get_tuple(key, scope, out));
    REQUIRE(with_hash == (i < 50 ? TupleLookup::found : TupleLookup::absent));
    if (with_hash == TupleLookup::found) REQUIRE(*out.payload == Json{{"i", i}});
  }
  cache.clear();
  cache.prefetch(MemoryCache::key_hash("doc:c:1"));
  CHECK(cache.get_tuple("doc:c:1", MemoryCache::key_hash("doc:c:1"), scope, out) ==
        TupleLookup::absent);
}

TEST_CASE("memory cache: a tuple's file hash is replaced with it, never left behind",
          "[cache][memory][tuple]") {
  MemoryCache cache(10);
  auto scope = std::make_shared<const std::string>("s");
  RecordTuple out;
  cache.set_tuple("doc:c:1", tuple_of(scope, Json{{"v", 1}}));  // file hash "h"
  REQUIRE(cache.get_tuple("doc:c:1", scope, out) == TupleLookup::found);
  CHECK(out.hash == "h");

  RecordTuple unhashed = tuple_of(scope, Json{{"v", 2}});
  unhashed.hash.clear();
  cache.set_tuple("doc:c:1", unhashed);
  REQUIRE(cache.get_tuple("doc:c:1", scope, out) == TupleLookup::found);
  CHECK(out.hash.empty());  // not the "h" `out` held before
  CHECK(*out.payload == Json{{"v", 2}});
  CHECK(*cache.get("doc:c:1") == Json::array({true, "s", 123, 45, "", Json{{"v", 2}}}));

  // A plain value over a hashed tuple, then a JSON tuple over that: read as set.
  cache.set_tuple("doc:c:1", tuple_of(scope, Json{{"v", 3}}));
  cache.set("doc:c:1", Json::array({true, "s", 7, 8, "", Json{{"v", 4}}}));
  REQUIRE(cache.get_tuple("doc:c:1", scope, out) == TupleLookup::found);
  CHECK(out.hash.empty());
  CHECK(out.mtime_ns == 7);
  CHECK(*out.payload == Json{{"v", 4}});
}

TEST_CASE("memory cache: prefetch from other threads while the index grows",
          "[cache][memory][threads]") {
  // More keys than the constructor reserves room for, so the index rehashes while readers
  // prefetch without the lock (ThreadSanitizer checks the hint they read).
  constexpr int kKeys = static_cast<int>(MemoryCache::kReservedKeys) + 5000;
  MemoryCache cache(kKeys);
  auto scope = std::make_shared<const std::string>("s");
  std::atomic<bool> done{false};
  std::atomic<int> wrong{0};
  std::vector<std::thread> readers;
  readers.reserve(2);
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&cache, &scope, &done, &wrong] {
      RecordTuple out;
      for (int i = 0; !done.load(); i = (i + 7919) % kKeys) {
        const std::string key = "doc:c:" + std::to_string(i);
        const std::uint64_t hash = MemoryCache::key_hash(key);
        cache.prefetch(hash);
        if (cache.get_tuple(key, hash, scope, out) == TupleLookup::found &&
            *out.payload != Json{{"i", i}}) {
          ++wrong;
        }
      }
    });
  }
  for (int i = 0; i < kKeys; ++i) {
    cache.set_tuple("doc:c:" + std::to_string(i), tuple_of(scope, Json{{"i", i}}));
  }
  done = true;
  for (auto& reader : readers) reader.join();
  CHECK(wrong == 0);
  CHECK(cache.size() == kKeys);
  RecordTuple out;
  CHECK(cache.get_tuple("doc:c:" + std::to_string(kKeys - 1), scope, out) == TupleLookup::found);
}
