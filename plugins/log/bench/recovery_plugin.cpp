// The recovery plugin: storh's `recovery` workload (engine-spec.md section 11.4), a timed
// reopen of a log whose active segment ends in garbage. The same step runs as
// `log.recover`; this plugin exists so that compare matches storh's recovery.recover.
#include "log/bench/log_workload.h"
#include "storh/plugin.h"

namespace {

class RecoveryEngine final : public storh::Engine {
 public:
  storh::EngineInfo describe() const noexcept override {
    storh::EngineInfo info;
    info.description = "segmented log reopen that cuts a torn tail";
    info.params = storh::log_bench::log_params();
    info.operations = {{"recover", "opens", storh::Direction::lower_is_better,
                        "reopen with 7 bytes of garbage on the active segment"}};
    return info;
  }

  std::vector<storh::ParamRange> param_ranges() const noexcept override {
    return storh::log_bench::log_param_ranges();
  }

  storh::Status run(storh::RunContext& ctx) noexcept override {
    return storh::guarded("recovery",
                          [&] { return storh::log_bench::run_recover(ctx, "recover"); });
  }
};

}  // namespace

STORH_PLUGIN(recovery, "1.0.0", RecoveryEngine)
