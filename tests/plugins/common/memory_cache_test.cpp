// MemoryCache (engine-spec.md 7.2): LRU order, entry and byte bounds, TTL, clear_prefix,
// and use from several threads.
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "common/memory_cache.h"

using storh::engines::Json;
using storh::engines::MemoryCache;

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
