// Metric keys sort with numbers by value: transactions=50 before transactions=200.
#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "util/natural_order.h"

using storh::natural_less;

TEST_CASE("natural order: digit runs compare by value", "[util][sort]") {
  // Regression: load results sorted as strings, transactions=200 before 50.
  std::vector<std::string> keys = {
      "q.tx[clients=1,transactions=200]", "q.tx[clients=10,transactions=50]",
      "q.tx[clients=1,transactions=50]", "q.tx[clients=2,transactions=50]"};
  std::sort(keys.begin(), keys.end(),
            [](const std::string& a, const std::string& b) { return natural_less(a, b); });
  CHECK(keys == std::vector<std::string>{
                    "q.tx[clients=1,transactions=50]", "q.tx[clients=1,transactions=200]",
                    "q.tx[clients=2,transactions=50]", "q.tx[clients=10,transactions=50]"});
}

TEST_CASE("natural order: text, prefixes and leading zeros", "[util][sort]") {
  CHECK(natural_less("doc.get", "doc.put"));
  CHECK(natural_less("doc", "doc.get"));
  CHECK_FALSE(natural_less("doc.get", "doc"));
  CHECK_FALSE(natural_less("n=9", "n=9"));
  CHECK(natural_less("n=9", "n=10"));
  CHECK(natural_less("n=7", "n=007"));
  CHECK_FALSE(natural_less("n=007", "n=7"));
  CHECK(natural_less("a1b", "a1c"));
}
