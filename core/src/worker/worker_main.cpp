#include "worker/worker_main.h"

#include <unistd.h>

#include <iostream>
#include <set>

#include <fmt/format.h>

#include "count/callgrind.h"
#include "count/fixed_run.h"
#include "count/probe.h"
#include "plugin/loader.h"
#include "worker/event.h"
#include "worker/load_worker.h"
#include "worker/request.h"
#include "worker/worker_context.h"
#include "worker/ycsb_worker.h"

namespace storh::worker {

void finish_worker(int code) {
  std::cout.flush();
  std::cerr.flush();
  ::_exit(code);
}

namespace {

// Why this worker cannot count with `instrument`, or "" when it can.
std::string counting_problem(count::Instrument instrument) {
  if (instrument == count::Instrument::syscalls && !count::interposer_loaded()) {
    return "--count=syscalls: libstorh_count.so is not preloaded (LD_PRELOAD)";
  }
  if (instrument == count::Instrument::instructions && !count::callgrind_supported()) {
    return "--count=instructions: this host was built without valgrind/callgrind.h";
  }
  return "";
}

}  // namespace

int fail_input(const std::string& message) {
  std::cerr << "storh-host worker: " << message << '\n';
  return kWorkerExitBadInput;
}

int worker_main(const std::vector<std::string>& args) {
  Expected<WorkerRequest> request = WorkerRequest::from_argv(args);
  if (!request) return fail_input(request.error());
  // Before the plugin loads: its static state may read the clock.
  if (std::string error = count::apply_fixed_run(request->count.has_value()); !error.empty()) {
    return fail_input(error);
  }
  Expected<std::unique_ptr<plugin::LoadedPlugin>> loaded =
      plugin::load_plugin(request->plugin, request->name);
  if (!loaded) return fail_input(loaded.error());
  Engine& engine = (*loaded)->engine();
  const EngineInfo info = (*loaded)->describe();

  std::set<std::string, std::less<>> selected(request->operations.begin(),
                                              request->operations.end());
  if (selected.empty()) {
    for (const OperationSpec& op : info.operations) selected.insert(op.name);
  }
  WorkerContext context(request->dataset, build_params(info, request->params), request->work_dir,
                        selected);
  if (request->inject_slowdown) context.set_injected_slowdown(*request->inject_slowdown);
  if (request->min_time) context.set_min_time(*request->min_time);
  if (request->count) {
    if (std::string problem = counting_problem(*request->count); !problem.empty()) {
      return fail_input(problem);
    }
    context.count_with({request->count});
  }
  emit(LoadedEvent{});
  // A load cell: its configuration says how its clients run (load/config.h).
  if (request->load && request->load->ycsb) {
    finish_worker(run_ycsb_cell(**loaded, context, request->operations, *request->load,
                                [](const Event& event) { emit(event); }));
  }
  if (request->load) {
    finish_worker(run_load_cell(**loaded, context, request->operations, *request->load,
                                [](const Event& event) { emit(event); }));
  }
  const Status status = engine.run(context);
  if (!status.ok()) {
    emit(DoneEvent{false, context.current_operation(), status.message()});
    finish_worker(kWorkerExitStepFailed);
  }
  if (!context.first_failure().empty()) {
    emit(DoneEvent{false, context.first_failure_operation(), context.first_failure()});
    finish_worker(kWorkerExitStepFailed);
  }
  for (const std::string& op : selected) {
    if (context.measured().count(op) == 0) {
      const std::string message =
          fmt::format("operation \"{}\" was selected but the engine never measured it", op);
      emit(DoneEvent{false, op, message});
      finish_worker(kWorkerExitStepFailed);
    }
  }
  emit(DoneEvent{});
  finish_worker(kWorkerExitOk);
}

}  // namespace storh::worker
