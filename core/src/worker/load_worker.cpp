#include "worker/load_worker.h"

#include <algorithm>

#include <fmt/format.h>

#include "load/driver.h"
#include "storh/transactions.h"
#include "storh/version.h"
#include "util/exit_codes.h"

namespace storh::worker {
namespace {

int finish_failed(const EmitFn& emit, const std::string& op, const std::string& message) {
  emit(FailEvent{op, message});
  emit(DoneEvent{false, op, message});
  return kWorkerExitStepFailed;
}

// The cell's parameters as Transactions::parts takes them: every declared one.
std::vector<std::pair<std::string, ParamValue>> cell_values(plugin::LoadedPlugin& loaded,
                                                            const RunContext& ctx) {
  std::vector<std::pair<std::string, ParamValue>> values;
  for (const ParamSpec& spec : loaded.describe().params) {
    if (const ParamValue* value = ctx.param(spec.name)) values.emplace_back(spec.name, *value);
  }
  return values;
}

// The engine's counters of one phase that ran `transactions` in all, after its
// clients are gone.
Status emit_phase_counters(Transactions& transactions, RunContext& ctx, std::size_t type,
                           const std::string& op, std::uint64_t ran, const EmitFn& emit) {
  std::vector<EngineCounter> counters;
  Status ended = guarded(op, [&] { return transactions.phase_counters_end(ctx, type, counters); });
  if (!ended.ok()) return ended;
  for (EngineCounter& c : counters) {
    emit(EngineCounterEvent{op, ran, std::move(c.name), std::move(c.unit), c.total, c.repeats});
  }
  return {};
}

// The plugin's per-command latencies of the phase (pgbench -r), each row named by its
// part; rows of a part the plugin did not name are refused.
Status phase_statements(Transactions& transactions, RunContext& ctx, std::size_t type,
                        const std::string& op, const std::vector<std::string>& parts,
                        std::vector<result::StatementLatency>& out) {
  std::vector<StatementStats> rows;
  Status ended = guarded(op, [&] { return transactions.phase_statements(ctx, type, rows); });
  if (!ended.ok()) return ended;
  for (StatementStats& row : rows) {
    if (row.part >= std::max<std::size_t>(parts.size(), 1)) {
      return Status::error(fmt::format("{}: phase_statements: part {} of a type with {} part(s)",
                                       op, row.part, parts.size()));
    }
    out.push_back({parts.empty() ? std::string() : parts[row.part], row.line,
                   std::move(row.command), row.count, static_cast<double>(row.total_ns) / 1e9,
                   row.failures, row.retries});
  }
  return {};
}

}  // namespace

int run_load_cell(plugin::LoadedPlugin& loaded, RunContext& ctx,
                  const std::vector<std::string>& selected, const load::LoadConfig& config,
                  const EmitFn& emit) {
  Transactions* transactions = loaded.transactions();
  if (transactions == nullptr) {
    return finish_failed(emit, "", "the plugin offers no transactions (storh/transactions.h)");
  }
  const std::vector<TransactionSpec> specs = transactions->describe();
  std::vector<std::size_t> types;
  for (std::size_t t = 0; t < specs.size(); ++t) {
    if (selected.empty() ||
        std::find(selected.begin(), selected.end(), specs[t].name) != selected.end()) {
      types.push_back(t);
    }
  }
  if (types.empty()) return finish_failed(emit, "", "no selected transaction type exists");

  emit(BeginEvent{"prepare"});
  const Status prepared = guarded("prepare", [&] { return transactions->prepare(ctx); });
  if (!prepared.ok()) return finish_failed(emit, "prepare", prepared.message());

  const bool reported = loaded.manifest().abi_minor >= kTransactionReportAbiMinor;
  const std::vector<std::pair<std::string, ParamValue>> values =
      reported ? cell_values(loaded, ctx) : std::vector<std::pair<std::string, ParamValue>>{};
  std::uint64_t succeeded = 0, failed = 0;
  std::string first_failure, first_failure_op;
  for (std::size_t type : types) {
    const std::string& op = specs[type].name;
    emit(BeginEvent{op});
    const load::ProgressFn on_progress = [&](const load::Progress& progress) {
      emit(LoadProgressEvent{op, load::progress_line(progress)});
    };
    load::PhaseShape shape;
    shape.reported = reported;
    const std::vector<std::string> parts =
        reported ? transactions->parts(type, values) : std::vector<std::string>{};
    shape.parts = parts.size();
    const bool engine_counters = loaded.manifest().abi_minor >= kEngineCountersAbiMinor;
    if (engine_counters) {
      const Status begun =
          guarded(op, [&] { return transactions->phase_counters_begin(ctx, type); });
      if (!begun.ok()) return finish_failed(emit, op, begun.message());
    }
    Expected<load::LoadOutcome> outcome =
        load::run_phase(*transactions, ctx, type, config, on_progress, shape);
    if (!outcome) return finish_failed(emit, op, fmt::format("{}: {}", op, outcome.error()));
    if (reported) {
      // After every client is destroyed: each hands its figures over then.
      const Status listed =
          phase_statements(*transactions, ctx, type, op, parts, outcome->statements);
      if (!listed.ok()) return finish_failed(emit, op, listed.message());
    }
    emit(LoadEvent{op, load::to_json(*outcome)});
    // Each part as a metric of its own, as YCSB's kinds (worker/ycsb_worker.h).
    const std::vector<std::string> part_ops = load::part_operations(op, parts);
    for (std::size_t p = 0; p < part_ops.size() && p < outcome->kinds.size(); ++p) {
      emit(LoadEvent{part_ops[p], load::to_json(load::kind_outcome(*outcome, outcome->kinds[p]))});
    }
    if (engine_counters) {
      const Status ended =
          emit_phase_counters(*transactions, ctx, type, op,
                              outcome->processed + outcome->warmup + outcome->failed, emit);
      if (!ended.ok()) return finish_failed(emit, op, ended.message());
    }
    succeeded += outcome->processed + outcome->warmup;
    failed += outcome->failed;
    if (outcome->failed > 0 && first_failure.empty()) {
      first_failure_op = op;
      first_failure = fmt::format("{}: {} transaction(s) failed; first: {}", op, outcome->failed,
                                  outcome->first_error);
    }
  }
  emit(BeginEvent{"finish"});
  const Status finished =
      guarded("finish", [&] { return transactions->finish(ctx, succeeded, failed); });
  if (!first_failure.empty()) return finish_failed(emit, first_failure_op, first_failure);
  if (!finished.ok()) return finish_failed(emit, "finish", finished.message());
  emit(DoneEvent{});
  return kWorkerExitOk;
}

}  // namespace storh::worker
