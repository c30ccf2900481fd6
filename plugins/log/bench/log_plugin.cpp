// The log plugin: storh's log workload (engine-spec.md section 11.2) over SegmentedLog,
// plus `append_floor` (the same lines with no engine: what one fdatasync per append
// costs here) and `recover` (section 11.4). The workload itself is log_workload.cpp,
// shared with the recovery plugin.
#include "log/bench/log_workload.h"
#include "storh/plugin.h"

namespace {

class LogEngine final : public storh::Engine {
 public:
  storh::EngineInfo describe() const noexcept override {
    storh::EngineInfo info;
    info.description = "segmented append-only log with cursor and time-range reads";
    info.params = storh::log_bench::log_params();
    info.operations = storh::log_bench::log_operations();
    return info;
  }

  std::vector<storh::ParamRange> param_ranges() const noexcept override {
    return storh::log_bench::log_param_ranges();
  }

  storh::Status run(storh::RunContext& ctx) noexcept override {
    return storh::guarded("log", [&] { return storh::log_bench::run_log_workload(ctx); });
  }
};

}  // namespace

STORH_PLUGIN(log, "1.0.0", LogEngine)
