#include <algorithm>

#include <fmt/format.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/prepare.h"
#include "foreign/read_result.h"
#include "plugin/discovery.h"
#include "plugin/session.h"
#include "publish/dashboard.h"
#include "report/report.h"
#include "result/json.h"
#include "result/plugin_build.h"
#include "suite/parse.h"

namespace storh::cli {
namespace {

void print_description(const plugin::Description& d, std::ostream& out) {
  out << fmt::format("{} {}  {}\n  {}\n", d.info.name, d.info.version, d.file.string(),
                     d.info.description);
  out << "  build: " << result::build_text(plugin::plugin_build(d)) << '\n';
  // Columns as wide as this plugin's longest name, so a long one does not push its
  // row's unit and description out of line.
  std::size_t name_width = 28;
  std::size_t unit_width = 10;
  for (const OperationSpec& op : d.info.operations) {
    name_width = std::max(name_width, op.name.size());
    unit_width = std::max(unit_width, op.unit.size());
  }
  for (const TransactionSpec& t : d.transactions) name_width = std::max(name_width, t.name.size());
  out << "  operations:\n";
  for (const OperationSpec& op : d.info.operations) {
    out << fmt::format("    {:<{}} {:<{}} {}\n", op.name, name_width, op.unit, unit_width,
                       op.description);
  }
  if (!d.transactions.empty()) {
    out << "  transactions (load suites, docs/load.md):\n";
    for (const TransactionSpec& t : d.transactions) {
      out << fmt::format("    {:<{}} {:<{}} {}\n", t.name, name_width,
                         t.read_only ? "read-only" : "writes", unit_width, t.description);
    }
  }
  if (d.key_value) out << "  key-value: yes (YCSB suites, docs/ycsb.md)\n";
  if (d.info.params.empty()) return;
  out << "  parameters:\n";
  std::size_t param_width = 20;
  for (const ParamSpec& p : d.info.params) param_width = std::max(param_width, p.name.size());
  for (const ParamSpec& p : d.info.params) {
    std::vector<std::string> allowed;
    for (const ParamValue& v : p.allowed) allowed.push_back(suite::param_value_text(v));
    out << fmt::format(
        "    {:<{}} {:<8} default {}{}  {}\n", p.name, param_width, plugin::param_type_name(p.type),
        suite::param_value_text(p.default_value),
        allowed.empty() ? "" : fmt::format(" (one of: {})", fmt::join(allowed, ", ")),
        p.description);
  }
}

}  // namespace

int list_command(const std::vector<std::string>& raw_args, const CommandIo& io) {
  Expected<ParsedArgs> args = parse_command_args("list", raw_args);
  if (!args || !args->positional.empty()) {
    io.err << "storh-host list: " << (args ? "takes no positional arguments" : args.error())
           << '\n';
    return kExitBadInput;
  }
  const std::string format = args->last("format").value_or("text");
  if (format != "text" && format != "json") {
    io.err << fmt::format("storh-host list: --format: unknown format \"{}\" (valid: text, json)\n",
                          format);
    return kExitBadInput;
  }
  std::vector<std::filesystem::path> first;
  std::vector<suite::Located<std::filesystem::path>> flagged;
  for (const std::string& dir : args->all("plugin-path")) {
    first.emplace_back(dir);
    flagged.push_back({dir, suite::SourcePos{"--plugin-path"}});
  }
  if (std::vector<suite::SuiteError> errors;
      !check_plugin_dirs(with_env_plugin_path(flagged), errors)) {
    print_errors(errors, io.err);
    return kExitBadInput;
  }
  const std::vector<std::filesystem::path> dirs = plugin::search_path(first);
  std::vector<plugin::ShadowedPlugin> shadowed;
  const auto engines = plugin::find_engines(dirs, &shadowed);
  for (const plugin::ShadowedPlugin& hidden : shadowed) {
    io.err << "storh-host: warning: " << plugin::shadowed_message(hidden) << '\n';
  }

  int status = kExitOk;
  nlohmann::ordered_json listing = nlohmann::ordered_json::array();
  if (format == "text") {
    std::vector<std::string> dir_names;
    dir_names.reserve(dirs.size());
    for (const std::filesystem::path& dir : dirs) dir_names.push_back(dir.string());
    io.out << fmt::format("plugin path: {}\n", fmt::join(dir_names, ":"));
    if (engines.empty()) io.out << "no plugins found\n";
  }
  for (const auto& [name, file] : engines) {
    Expected<plugin::Description> description =
        plugin::describe_plugin(io.environment.host_executable, file, name);
    if (!description) {
      io.err << description.error() << '\n';
      status = kExitRunFailed;
      continue;
    }
    if (format == "json") {
      listing.push_back(plugin::description_json(*description));
    } else {
      io.out << '\n';
      print_description(*description, io.out);
    }
  }
  if (format == "json") io.out << listing.dump(2) << '\n';
  return status;
}

int report_command(const std::vector<std::string>& raw_args, const CommandIo& io) {
  Expected<ParsedArgs> args = parse_command_args("report", raw_args);
  if (!args || args->positional.size() != 1) {
    io.err << "storh-host report: "
           << (args ? "expected one result file (storh-host report RESULT.json)" : args.error())
           << '\n';
    return kExitBadInput;
  }
  const std::string name = args->last("format").value_or("text");
  const std::optional<report::ReportFormat> format = report::parse_report_format(name);
  const std::optional<publish::DashboardFormat> dashboard = publish::parse_dashboard_format(name);
  if (!format && !dashboard) {
    io.err << fmt::format(
        "storh-host report: --format: unknown format \"{}\" (valid: text, md, csv, csv-intervals, "
        "json, html, "
        "bmf, github-action-benchmark, github-action-benchmark-bigger)\n",
        name);
    return kExitBadInput;
  }
  const std::optional<std::string> output = output_flag(*args);
  if (const std::string problem = output_problem("report", output); !problem.empty()) {
    io.err << problem << '\n';
    return kExitBadInput;
  }
  Expected<result::ResultFile> result = foreign::read_result(args->positional[0]);
  if (!result) {
    io.err << "storh-host report: " << result.error() << '\n';
    return kExitBadInput;
  }
  if (dashboard) {
    return write_output("report", publish::dashboard_json(*result, *dashboard), output, io);
  }
  Expected<report::HtmlAssets> assets =
      html_assets_for("report", *format == report::ReportFormat::html);
  if (!assets) {
    io.err << assets.error() << '\n';
    return kExitBadInput;
  }
  return write_output("report", report::render_report(*result, *format, *assets), output, io);
}

}  // namespace storh::cli
