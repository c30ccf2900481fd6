// MetricKey (result/metric_key.h): the one writer and reader of metric keys.
#include "result/metric_key.h"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

using storh::result::MetricKey;

namespace {

// parse(key).to_string() gives the key back.
void round_trips(const std::string& key) {
  INFO(key);
  CHECK(MetricKey::parse(key).to_string() == key);
}

}  // namespace

TEST_CASE("metric key: writes engine, operation and qualifiers", "[metric_key]") {
  CHECK(MetricKey{"doc", "put", {}}.to_string() == "doc.put");
  CHECK(MetricKey{"cache", "cold", {"n=1000", "validation=hash"}}.to_string() ==
        "cache.cold[n=1000,validation=hash]");
  const MetricKey key{"cache", "cold", {"n=1000"}};
  CHECK(key.base() == "cache.cold");
  CHECK(key.label() == "cold[n=1000]");
  CHECK(MetricKey{"doc", "put", {}}.label() == "put");
}

TEST_CASE("metric key: parse reads back what to_string writes", "[metric_key]") {
  const MetricKey parsed = MetricKey::parse("cache.cold[n=1000,validation=hash]");
  CHECK(parsed.engine == "cache");
  CHECK(parsed.operation == "cold");
  CHECK(parsed.qualifiers == std::vector<std::string>{"n=1000", "validation=hash"});
  CHECK(MetricKey::parse("doc.put") == MetricKey{"doc", "put", {}});
  for (const char* key :
       {"doc.put", "cache.cold[n=1000]", "doc.put_get[n=1000,clients=4,duration=2s]",
        "queue.a.b[x=1]", "doc", "doc.put[]"}) {
    round_trips(key);
  }
}

TEST_CASE("metric key: a comma inside a qualifier's value stays in that qualifier",
          "[metric_key]") {
  const MetricKey key{"doc", "find", {"fields=a,b", "n=10"}};
  CHECK(key.to_string() == "doc.find[fields=a,b,n=10]");
  CHECK(MetricKey::parse(key.to_string()) == key);
  CHECK(MetricKey::parse("doc.find[n=10,fields=a,b]").qualifiers ==
        std::vector<std::string>{"n=10", "fields=a,b"});
  CHECK(MetricKey::parse("doc.find[where=a=1,b]").qualifiers ==
        std::vector<std::string>{"where=a=1,b"});
}

TEST_CASE("metric key: odd keys still read without failing", "[metric_key]") {
  // No dot: all engine, so grouping by engine and gate thresholds still work.
  CHECK(MetricKey::parse("plain") == MetricKey{"plain", "", {}});
  CHECK(MetricKey::parse("plain[n=1]") == MetricKey{"plain", "", {"n=1"}});
  CHECK(MetricKey::parse("plain[n=1]").base() == "plain");
  // Without a final ']' the brackets are part of the operation.
  CHECK(MetricKey::parse("doc.put[n=1") == MetricKey{"doc", "put[n=1", {}});
  // Brackets inside a value: only the first '[' and the final ']' delimit.
  CHECK(MetricKey::parse("doc.put[q=[1]]").qualifiers == std::vector<std::string>{"q=[1]"});
  CHECK(MetricKey::parse("doc.") == MetricKey{"doc", "", {}});
  CHECK(MetricKey::parse("") == MetricKey{});
}

TEST_CASE("metric key: qualifiers are removed only whole", "[metric_key]") {
  const auto without = [](const std::string& key, const std::vector<std::string>& listed) {
    return MetricKey::parse(key).without(listed).to_string();
  };
  CHECK(without("cache.cold[n=1000,validation=hash]", {"n=1000", "validation=hash"}) ==
        "cache.cold");
  CHECK(without("c.cold[n=1000,validation=hash,shards=2]", {"n=1000", "validation=hash"}) ==
        "c.cold[shards=2]");
  CHECK(without("c.cold[shards=2,n=10]", {"n=10"}) == "c.cold[shards=2]");
  CHECK(without("c.cold[a=1,n=10,b=2]", {"n=10"}) == "c.cold[a=1,b=2]");
  CHECK(without("c.cold[n=100]", {"n=10"}) == "c.cold[n=100]");
  CHECK(without("c.cold[xn=10]", {"n=10"}) == "c.cold[xn=10]");
  CHECK(without("c.cold", {"n=10"}) == "c.cold");
}
