// `__describe`: the child that loads a plugin to ask it about itself and runs nothing,
// so a plugin that crashes while loading, describing or checking parameters fails only
// it. With --preflights it then answers Engine::preflight requests from stdin, so a
// run loads each plugin once before its workers, not once per question.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "plugin/describe.h"
#include "plugin/loader.h"
#include "storh/version.h"
#include "worker/request.h"
#include "worker/worker_context.h"
#include "worker/worker_main.h"

namespace storh::worker {
namespace {

// What the plugin writes to stderr (fd 2) while `body` runs, kept in memory instead:
// the "note: " lines of a preflight become part of its answer.
template <typename Body>
std::string capture_stderr(Body&& body) {
  std::cerr.flush();
  std::fflush(stderr);
  const int saved = ::dup(STDERR_FILENO);
  const int memory = ::memfd_create("storh-preflight-stderr", MFD_CLOEXEC);
  if (saved < 0 || memory < 0) {
    if (saved >= 0) ::close(saved);
    if (memory >= 0) ::close(memory);
    body();  // nothing to capture into: the lines go to stderr as they are
    return {};
  }
  ::dup2(memory, STDERR_FILENO);
  body();
  std::cerr.flush();
  std::fflush(stderr);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  std::string text;
  char buffer[4096];
  ssize_t got;
  off_t offset = 0;
  while ((got = ::pread(memory, buffer, sizeof buffer, offset)) > 0) {
    text.append(buffer, static_cast<std::size_t>(got));
    offset += got;
  }
  ::close(memory);
  return text;
}

// One preflight answer as a JSON line: {"error": MESSAGE} when the plugin refuses the
// parameters, else {"notes": [...], "parts": {"type": ["part", ...]}, and
// "needs_duration": {"param": ..., "reason": ...} when a parameter needs a duration}.
// Lines of stderr other than notes are passed on to stderr.
nlohmann::json preflight_answer(plugin::LoadedPlugin& loaded, const std::string& params_json) {
  Expected<ParamValues> chosen = params_from_json(params_json);
  if (!chosen) return {{"error", "--params: " + chosen.error()}};
  const ParamValues params = build_params(loaded.describe(), *chosen);
  const std::vector<std::pair<std::string, ParamValue>> values(params.begin(), params.end());
  nlohmann::json answer = nlohmann::json::object();
  std::optional<std::string> refused;
  const std::string written = capture_stderr([&] {
    const Status status = loaded.engine().preflight({params.begin(), params.end()});
    if (!status.ok()) {
      refused = status.message();
      return;
    }
    // ABI 1.7: the parts of each transaction type under these parameters, and the
    // parameter that needs a duration, so that the host names the parts' metrics and
    // refuses a cell without a duration up front.
    Transactions* transactions = loaded.transactions();
    if (loaded.manifest().abi_minor < storh::kTransactionReportAbiMinor ||
        transactions == nullptr) {
      return;
    }
    nlohmann::json parts = nlohmann::json::object();
    const std::vector<TransactionSpec> specs = transactions->describe();
    for (std::size_t type = 0; type < specs.size(); ++type) {
      std::vector<std::string> names = transactions->parts(type, values);
      if (!names.empty()) parts[specs[type].name] = std::move(names);
    }
    answer["parts"] = std::move(parts);
    const Transactions::DurationNeed need = transactions->needs_duration(values);
    if (!need.param.empty()) {
      answer["needs_duration"] = {{"param", need.param}, {"reason", need.reason}};
    }
  });
  constexpr std::string_view kNote = "note: ";
  nlohmann::json notes = nlohmann::json::array();
  std::string_view rest = written;
  while (!rest.empty()) {
    const std::size_t end = std::min(rest.find('\n'), rest.size());
    const std::string_view line = rest.substr(0, end);
    if (line.starts_with(kNote)) {
      notes.push_back(std::string(line.substr(kNote.size())));
    } else if (!line.empty()) {
      std::cerr << line << '\n';
    }
    rest.remove_prefix(std::min(end + 1, rest.size()));
  }
  if (refused) return {{"error", *refused}};
  answer["notes"] = std::move(notes);
  return answer;
}

}  // namespace

int describe_main(const std::vector<std::string>& args) {
  constexpr const char* kUsage = "usage: storh-host __describe FILE [--name=NAME] [--preflights]";
  if (args.size() < 2) return fail_input(kUsage);
  std::string expected_name;
  bool preflights = false;
  for (std::size_t i = 2; i < args.size(); ++i) {
    if (args[i].starts_with("--name=")) {
      expected_name = args[i].substr(7);
    } else if (args[i] == "--preflights") {
      preflights = true;
    } else {
      return fail_input(kUsage);
    }
  }
  // A conversation's lines have stdout to themselves: whatever the plugin prints
  // there goes to stderr instead.
  std::FILE* answers = stdout;
  if (preflights) {
    std::cout.flush();
    const int protocol = ::dup(STDOUT_FILENO);
    answers = protocol < 0 ? nullptr : ::fdopen(protocol, "w");
    if (answers == nullptr) return fail_input("cannot keep stdout for the answers");
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
  }
  const auto answer_line = [answers](const auto& json) {
    const std::string text = json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::fputs(text.c_str(), answers);
    std::fputc('\n', answers);
    std::fflush(answers);
  };
  Expected<std::unique_ptr<plugin::LoadedPlugin>> loaded =
      plugin::load_plugin(args[1], expected_name);
  if (!loaded) {
    std::cerr << loaded.error() << '\n';
    return kWorkerExitBadInput;
  }
  plugin::Description description{(*loaded)->manifest(), (*loaded)->describe(), args[1], {}};
  if (Transactions* transactions = (*loaded)->transactions()) {
    description.transactions = transactions->describe();
  }
  description.key_value = (*loaded)->key_value() != nullptr;
  if ((*loaded)->manifest().abi_minor >= storh::kParamRangesAbiMinor) {
    description.ranges = (*loaded)->engine().param_ranges();
  }
  const nlohmann::ordered_json described = plugin::description_json(description);
  if (!preflights) {
    std::cout << described.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    return kWorkerExitOk;
  }
  // A conversation (plugin/session.h): the description on one line, then one answer
  // line per request line (the cell's parameters as JSON) until stdin ends.
  answer_line(described);
  const bool checks = (*loaded)->manifest().abi_minor >= storh::kPreflightAbiMinor;
  std::string request;
  while (std::getline(std::cin, request)) {
    answer_line(checks ? preflight_answer(**loaded, request) : nlohmann::json::object());
  }
  std::fclose(answers);
  return kWorkerExitOk;
}

}  // namespace storh::worker
