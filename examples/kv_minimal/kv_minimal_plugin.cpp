// The smallest engine with the key-value capability: map_store.h's std::map as a
// plugin. docs/ycsb.md shows it as the way to drop an engine into YCSB's workloads; the
// tests run the workloads (tests/cli/ycsb_cli_test.cpp) and kv_test's checks on it.
#include "map_store.h"
#include "storh/plugin.h"

namespace {

// Every plugin describes itself and runs a scenario: this one has a trivial one.
class Engine final : public storh::Engine {
 public:
  storh::EngineInfo describe() const noexcept override {
    storh::EngineInfo info;
    info.description = "example: a std::map with the key-value capability (YCSB)";
    info.operations.push_back({"noop", "items", storh::Direction::lower_is_better, "does nothing"});
    return info;
  }
  storh::Status run(storh::RunContext& ctx) noexcept override {
    return ctx.measure("noop", 1, [] {});
  }
};

}  // namespace

STORH_PLUGIN(kv_minimal, "1.0.0", Engine)
STORH_KEY_VALUE(storh_example::MapStore)
