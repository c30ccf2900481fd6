// The example key-value engine (examples/kv_minimal, the one docs/ycsb.md shows): the
// checks every key-value engine passes (kv_checks.h), through its plugin module.
#include <catch2/catch.hpp>

#include "kv/kv_checks.h"
#include "scratch_dir.h"

namespace kv = storh_test::kv;

TEST_CASE("kv_minimal: the example passes the checks every key-value engine passes",
          "[kv_minimal]") {
  kv::every_record_check(kv::KvPlugin(STORH_TEST_KV_MINIMAL_PLUGIN), {});
}
