// The smallest engine with the key-value capability: map_store.h's std::map as a
// plugin. docs/ycsb.md shows it as the way to drop an engine into YCSB's workloads; the
// tests run the workloads (tests/cli/ycsb_cli_test.cpp) and kv_test's checks on it.
#include "map_store.h"
#include "storh/plugin.h"

STORH_KEY_VALUE_PLUGIN(kv_minimal, "1.0.0", storh_example::MapStore,
                       "example: a std::map with the key-value capability (YCSB)")
