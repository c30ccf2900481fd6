#include "worker/ycsb_worker.h"

#include <algorithm>

#include <fmt/format.h>

#include "load/client_loop.h"
#include "load/driver.h"
#include "util/exit_codes.h"
#include "ycsb/cell.h"
#include "ycsb/kv_transactions.h"

namespace storh::worker {
namespace {

// A fixed seed: every repeat of a cell draws the same keys and mix, so repeats
// differ only in how the engine answers.
constexpr std::uint64_t kSeed = 1;

int fail_cell(const EmitFn& emit, const std::string& op, const std::string& message) {
  emit(FailEvent{op, message});
  emit(DoneEvent{false, op, message});
  return kWorkerExitStepFailed;
}

class Phases {
 public:
  Phases(ycsb::KvTransactions& transactions, RunContext& ctx,
         const std::vector<std::string>& selected, const EmitFn& emit)
      : transactions_(transactions), ctx_(ctx), selected_(selected), emit_(emit) {}

  // Runs one phase and sends its events. Returns "" or the message the cell fails with.
  std::string run(std::size_t type, const std::string& op, const load::PhaseShape& shape,
                  const load::LoadConfig& config,
                  const std::vector<std::pair<std::string, std::size_t>>& kinds) {
    emit_(BeginEvent{op});
    const load::ProgressFn on_progress = [&](const load::Progress& progress) {
      emit_(LoadProgressEvent{op, load::progress_line(progress)});
    };
    Expected<load::LoadOutcome> outcome =
        load::run_phase(transactions_, ctx_, type, config, on_progress, shape);
    if (!outcome) return fmt::format("{}: {}", op, outcome.error());
    // A read-modify-write's read and update count under read and update too, as in
    // YCSB; the mix counts it once.
    const std::vector<load::KindOutcome> parts = transactions_.take_rmw_parts();
    for (std::size_t kind = 0; kind < parts.size() && kind < outcome->kinds.size(); ++kind) {
      outcome->kinds[kind].merge(parts[kind]);
    }
    send(op, *outcome);
    for (const auto& [name, kind] : kinds) {
      if (kind < outcome->kinds.size())
        send(name, load::kind_outcome(*outcome, outcome->kinds[kind]));
    }
    if (outcome->failed > 0) {
      return fmt::format("{}: {} operation(s) failed; first: {}", op, outcome->failed,
                         outcome->first_error);
    }
    return "";
  }

 private:
  void send(const std::string& op, const load::LoadOutcome& outcome) {
    if (!selected_.empty() && std::find(selected_.begin(), selected_.end(), op) == selected_.end())
      return;
    emit_(LoadEvent{op, load::to_json(outcome)});
  }

  ycsb::KvTransactions& transactions_;
  RunContext& ctx_;
  const std::vector<std::string>& selected_;
  const EmitFn& emit_;
};

}  // namespace

int run_ycsb_cell(plugin::LoadedPlugin& loaded, RunContext& ctx,
                  const std::vector<std::string>& selected, const load::LoadConfig& config,
                  const EmitFn& emit) {
  KeyValueStore* store = loaded.key_value();
  if (store == nullptr) {
    return fail_cell(emit, "", "the plugin offers no key-value store (storh/key_value.h)");
  }
  if (!config.ycsb) return fail_cell(emit, "", "not a YCSB cell");
  const char letter = config.ycsb->workload;
  Expected<ycsb::Properties> properties = ycsb::cell_properties(*config.ycsb);
  if (!properties) return fail_cell(emit, "", properties.error());
  Expected<ycsb::CoreWorkload> workload = ycsb::CoreWorkload::create(*properties, kSeed);
  if (!workload) return fail_cell(emit, "", workload.error());
  ycsb::KvTransactions transactions(*store, *workload, config.clients);

  emit(BeginEvent{"open"});
  const Status opened = guarded("open", [&] { return store->open(ctx); });
  if (!opened.ok()) return fail_cell(emit, "open", opened.message());

  // The load phase runs as fast as it can; `target` paces the run phase only.
  load::LoadConfig load_config = config;
  load_config.rate.reset();
  load::PhaseShape load_shape;
  load_shape.total_transactions = properties->effective_insertcount();
  Phases phases(transactions, ctx, selected, emit);
  std::string failure = phases.run(ycsb::kLoadType, ycsb::phase_operation(letter, "load"),
                                   load_shape, load_config, {});
  std::string failed_op = ycsb::phase_operation(letter, "load");
  if (failure.empty()) {
    load::PhaseShape run_shape;
    run_shape.total_transactions = properties->operationcount;
    run_shape.kinds = &ycsb::KvTransactions::kinds();
    std::vector<std::pair<std::string, std::size_t>> kinds;
    for (const ycsb::Op kind : ycsb::mixed_kinds(*properties)) {
      kinds.emplace_back(ycsb::phase_operation(letter, ycsb::op_name(kind)),
                         static_cast<std::size_t>(kind));
    }
    failed_op = ycsb::workload_operation(letter);
    failure = phases.run(ycsb::kRunType, failed_op, run_shape, config, kinds);
  }
  emit(BeginEvent{"close"});
  const Status closed = guarded("close", [&] { return store->close(); });
  if (!failure.empty()) return fail_cell(emit, failed_op, failure);
  if (!closed.ok()) return fail_cell(emit, "close", closed.message());
  emit(DoneEvent{});
  return kWorkerExitOk;
}

}  // namespace storh::worker
