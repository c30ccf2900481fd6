// The example key-value engine (examples/kv_minimal, the one docs/ycsb.md shows): the
// checks every key-value engine passes (kv_checks.h), through its plugin module.
#include <catch2/catch.hpp>

#include "kv/kv_checks.h"
#include "scratch_dir.h"

namespace kv = storh_test::kv;

TEST_CASE("kv_minimal: the example passes the checks every key-value engine passes",
          "[kv_minimal]") {
  kv::KvPlugin plugin(STORH_TEST_KV_MINIMAL_PLUGIN);
  using Check = void (*)(const kv::KvPlugin&, const std::filesystem::path&, const kv::Params&);
  for (const Check check :
       {&kv::read_returns_fields, &kv::update_keeps_other_fields, &kv::insert_overwrites,
        &kv::scan_in_key_order, &kv::remove_then_not_found}) {
    storh::test::ScratchDir dir;
    check(plugin, dir.path(), {});
  }
  storh::test::ScratchDir dir;
  kv::stores_and_keeps(plugin, dir.path(), {}, false);
  kv::concurrent_sessions(plugin, dir.path(), {}, 4);
}
