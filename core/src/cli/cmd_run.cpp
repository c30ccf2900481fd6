#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <ctime>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "cli/execute.h"
#include "cli/expected_time.h"
#include "cli/output.h"
#include "plugin/session.h"
#include "range/range.h"
#include "report/report.h"
#include "result/json.h"
#include "result/plugin_build.h"
#include "run/runner.h"
#include "suite/parse.h"

namespace storh::cli {
namespace {

std::atomic<bool> g_interrupted{false};
struct sigaction g_previous_int {};
struct sigaction g_previous_term {};
struct sigaction g_previous_hup {};

void on_interrupt(int) {
  g_interrupted.store(true);
}

// The storh range layout next to the combined file, when the suite asks for it.
// Returns false (after printing why) when a file cannot be written.
bool write_range_files(const Prepared& prepared, const result::ResultFile& result,
                       const CommandIo& io) {
  if (!prepared.suite.range_output) return true;
  Expected<std::filesystem::path> index =
      range::write_range_output(*prepared.suite.range_output, result);
  if (!index) {
    io.err << "storh-host: cannot write the range output: " << index.error() << '\n';
    return false;
  }
  io.out << "range: " << index->string() << '\n';
  return true;
}

}  // namespace

InterruptGuard::InterruptGuard() {
  g_interrupted.store(false);
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, &g_previous_int);
  ::sigaction(SIGTERM, &action, &g_previous_term);
  // A closed terminal (SIGHUP) ends the run as Ctrl-C does: the partial result is kept.
  ::sigaction(SIGHUP, &action, &g_previous_hup);
}

InterruptGuard::~InterruptGuard() {
  ::sigaction(SIGINT, &g_previous_int, nullptr);
  ::sigaction(SIGTERM, &g_previous_term, nullptr);
  ::sigaction(SIGHUP, &g_previous_hup, nullptr);
}

const std::atomic<bool>& InterruptGuard::interrupted() {
  return g_interrupted;
}

// Before the first worker starts, so nobody waits out a run of a debug plugin to learn
// it; the runner records the same warnings in the result.
void warn_about_plugin_builds(const plan::Plan& plan, const CommandIo& io) {
  std::vector<std::string> warned;
  for (const plan::Cell& cell : plan.cells) {
    if (std::find(warned.begin(), warned.end(), cell.engine) != warned.end()) continue;
    warned.push_back(cell.engine);
    if (auto warning =
            result::plugin_build_warning(cell.engine, cell.plugin.string(), cell.build)) {
      io.err << "warning: " << *warning << '\n';
    }
  }
}

Expected<result::ResultFile> execute(const Prepared& prepared, const plan::Plan& plan,
                                     const CommandIo& io, std::optional<plan::ShardSpec> shard) {
  warn_about_plugin_builds(plan, io);
  run::RunnerOptions options;
  options.host_executable = io.environment.host_executable;
  options.progress = io.environment.interactive ? &io.err : nullptr;
  options.cancel = &g_interrupted;
  options.fail_fast = !prepared.args.has("no-fail-fast");
  options.log = &io.err;
  options.warnings = &io.err;
  options.shard = shard;
  options.command_line = prepared.command_line;
  options.load_errors = prepared.load_errors;
  if (prepared.sessions) {
    options.spawn = [sessions = prepared.sessions](
                        const std::string& engine, const std::filesystem::path& plugin,
                        const std::vector<std::string>& argv, const process::ChildFds& fds) {
      return sessions->spawn(engine, plugin, argv, fds);
    };
  }
  return run::run_plan(plan, options);
}

namespace {

// Where a result goes when its output cannot be written, so a finished run is never
// lost: storh-result-<time>-<pid>.json in the current directory, else in the system's
// temporary directory. nullopt when neither takes it.
std::optional<std::filesystem::path> rescue_result(const result::ResultFile& result,
                                                   const CommandIo& io) {
  const std::string name = fmt::format("storh-result-{:%Y%m%dT%H%M%S}-{}.json",
                                       fmt::gmtime(std::time(nullptr)), ::getpid());
  std::error_code ec;
  std::vector<std::filesystem::path> places = {std::filesystem::current_path(ec) / name};
  places.push_back(std::filesystem::temp_directory_path(ec) / name);
  for (const std::filesystem::path& place : places) {
    if (place.parent_path().empty()) continue;
    if (result::write_result_file(place, result).empty()) return place;
  }
  io.err << "storh-host: the result could not be kept anywhere either\n";
  return std::nullopt;
}

}  // namespace

bool write_and_report(const Prepared& prepared, const result::ResultFile& result,
                      const CommandIo& io) {
  const std::filesystem::path& output = prepared.suite.output;
  note_directory_created("run", output, io);
  std::string error = result::write_result_file(output, result);
  std::optional<std::filesystem::path> rescued;
  if (!error.empty()) rescued = rescue_result(result, io);
  io.out << report::render_report(result, prepared.format == "md" ? report::ReportFormat::markdown
                                                                  : report::ReportFormat::text);
  if (error.empty()) {
    io.out << "result: " << output.string() << '\n';
    return true;
  }
  io.err << "storh-host: cannot write the result: " << error << '\n';
  if (rescued) {
    io.err << "storh-host: the result is kept in " << rescued->string()
           << " instead; move it where you want it\n";
  }
  return false;
}

// --shard=K/N of a prepared run or validate: nullopt (with the error printed) when it
// does not parse; an empty optional inside when there is none.
std::optional<std::optional<plan::ShardSpec>> shard_flag(const Prepared& prepared,
                                                         const CommandIo& io) {
  const std::optional<std::string> text = prepared.args.last("shard");
  if (!text) return std::optional<plan::ShardSpec>{};
  Expected<plan::ShardSpec> parsed = plan::parse_shard(*text);
  if (!parsed) {
    io.err << "storh-host: " << parsed.error() << '\n';
    return std::nullopt;
  }
  return std::optional<plan::ShardSpec>{*parsed};
}

// "shard 5/8 is empty: ..." when the shard gets no cell of the plan, else "".
std::string empty_shard_note(const plan::Plan& plan, const plan::ShardSpec& shard) {
  if (shard.index <= plan.cells.size()) return {};
  return fmt::format(
      "shard {}/{} is empty: the suite has {} cell(s) and shard K gets cells K, K+{}, K+{}, ... "
      "(round robin), so at most {} shard(s) have work",
      shard.index, shard.count, plan.cells.size(), shard.count, 2 * shard.count, plan.cells.size());
}

int run_command(const std::vector<std::string>& args, const CommandIo& io) {
  InterruptGuard guard;  // before describing plugins, so Ctrl-C never leaves a worker behind
  PrepareOptions options;
  options.extra_valued = command_flags("run").valued;
  std::optional<Prepared> prepared = prepare(args, io, options);
  if (!prepared) return kExitBadInput;
  const std::optional<std::optional<plan::ShardSpec>> flag = shard_flag(*prepared, io);
  if (!flag) return kExitBadInput;
  const std::optional<plan::ShardSpec> shard = *flag;
  if (shard) {
    if (const std::string note = empty_shard_note(prepared->plan, *shard); !note.empty()) {
      io.err << "storh-host: " << note << "; its result file has no metrics\n";
    }
  } else if (const std::string expected = expected_time(*prepared); !expected.empty()) {
    io.err << "storh-host: expected to take " << expected << '\n';
  }

  Expected<result::ResultFile> result = execute(*prepared, prepared->plan, io, shard);
  if (!result) {
    io.err << "storh-host: " << result.error() << '\n';
    return kExitBadInput;
  }
  if (!write_and_report(*prepared, *result, io)) return kExitRunFailed;
  if (!write_range_files(*prepared, *result, io)) return kExitRunFailed;
  if (result->interrupted) {
    io.err << "storh-host: interrupted; the partial result is marked \"interrupted\"\n";
    return kExitInterrupted;
  }
  if (!result->failures.empty()) {
    io.err << fmt::format("storh-host: {} run(s) failed; see the failures in the report\n",
                          result->failures.size());
    return kExitRunFailed;
  }
  return kExitOk;
}

int validate_command(const std::vector<std::string>& args, const CommandIo& io) {
  PrepareOptions options;
  options.extra_valued = command_flags("validate").valued;
  options.command = "validate";
  std::optional<Prepared> prepared = prepare(args, io, options);
  if (!prepared) return kExitBadInput;
  const std::optional<std::optional<plan::ShardSpec>> shard = shard_flag(*prepared, io);
  if (!shard) return kExitBadInput;
  if (!prepared->load_errors.empty()) {
    for (const auto& [engine, message] : prepared->load_errors) {
      io.err << fmt::format("engine \"{}\": {}\n", engine, message);
    }
    return kExitBadInput;
  }
  const suite::Suite& suite = prepared->suite;
  const plan::Plan plan = *shard ? plan::shard_of(prepared->plan, **shard) : prepared->plan;
  // Adaptive: the bounds, "3 cell(s), 5..30 repeats per cell until ±2%".
  const std::string repeats = plan.repeat_until
                                  ? ", " + suite::repeat_until_text(*plan.repeat_until)
                                  : fmt::format(" x {} repeat(s)", plan.repeat);
  io.out << fmt::format(
      "{}: valid: suite \"{}\", {} cell(s){}{}, fingerprint {}\n",
      suite.file.empty() ? "flags" : suite.file.string(), suite.name, prepared->plan.cells.size(),
      repeats, plan.warmup > 0 ? fmt::format(" + {} warm-up", plan.warmup) : "", plan.fingerprint);
  if (*shard) {
    const std::string note = empty_shard_note(prepared->plan, **shard);
    io.out << (note.empty()
                   ? fmt::format("  shard {}/{}: {} of the {} cell(s)\n", (*shard)->index,
                                 (*shard)->count, plan.cells.size(), prepared->plan.cells.size())
                   : "  " + note + '\n');
  }
  for (const plan::Cell& cell : plan.cells) {
    std::vector<std::string> params;
    for (const auto& [name, value] : cell.params) {
      params.push_back(name + "=" + suite::param_value_text(value));
    }
    if (cell.load) {
      for (std::string& qualifier : cell.load->qualifiers()) params.push_back(std::move(qualifier));
      params.push_back(fmt::format("mode={}", load::client_mode_name(cell.load->mode)));
    }
    io.out << fmt::format("  {} n={}{}{}: {}\n", cell.engine, cell.dataset,
                          params.empty() ? "" : " ", fmt::join(params, " "),
                          fmt::join(cell.operation_names(), ", "));
  }
  if (const std::string expected = expected_time(*prepared); !expected.empty()) {
    io.out << fmt::format("  expected time: {}\n", expected);
  }
  io.out << fmt::format("  output: {}\n", suite.output.string());
  if (suite.range_output) {
    io.out << fmt::format("  range output: {}\n", suite.range_output->string());
  }
  return kExitOk;
}

}  // namespace storh::cli
