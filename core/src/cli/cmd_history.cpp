// `storh-host history add|show|changes|export|copy`: the run history (docs/history.md).
#include <fnmatch.h>

#include <cstdlib>
#include <set>

#include <fmt/format.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/history_options.h"
#include "cli/output.h"
#include "env/environment.h"
#include "foreign/read_result.h"
#include "history/copy.h"
#include "history/record.h"
#include "history/render.h"
#include "result/json.h"
#include "util/did_you_mean.h"
#include "util/shorten.h"

namespace storh::cli {
namespace {

int bad(const CommandIo& io, std::string_view subcommand, const std::string& message) {
  io.err << fmt::format("storh-host history {}: {}\n", subcommand, message);
  return kExitBadInput;
}

Expected<std::unique_ptr<history::HistoryStore>> open_store(const ParsedArgs& args,
                                                            history::HistoryStore::Mode mode) {
  Expected<std::string> location = history_db(args);
  if (!location) return Error{location.error()};
  return history::HistoryStore::open(*location, mode);
}

// The series whose metric matches one of `patterns` (a key, or a glob: "doc.*"), or
// every series for no patterns. A pattern that matches nothing is an error.
Expected<std::vector<history::Series>> select_series(const std::vector<history::Series>& all,
                                                     const std::vector<std::string>& patterns) {
  if (patterns.empty()) return all;
  std::vector<history::Series> chosen;
  for (const std::string& pattern : patterns) {
    bool matched = false;
    for (const history::Series& one : all) {
      if (one.metric == pattern || fnmatch(pattern.c_str(), one.metric.c_str(), 0) == 0) {
        matched = true;
      }
    }
    if (!matched) {
      std::set<std::string> keys;
      for (const history::Series& one : all) keys.insert(one.metric);
      return Error{fmt::format("no metric \"{}\" in the history{}", shorten(pattern),
                               did_you_mean(pattern, {keys.begin(), keys.end()}))};
    }
  }
  for (const history::Series& one : all) {
    for (const std::string& pattern : patterns) {
      if (one.metric == pattern || fnmatch(pattern.c_str(), one.metric.c_str(), 0) == 0) {
        chosen.push_back(one);
        break;
      }
    }
  }
  return chosen;
}

int add(const ParsedArgs& args, const CommandIo& io) {
  if (args.positional.empty()) {
    return bad(io, "add", "expected result files (storh-host history add RESULT.json...)");
  }
  history::RunSource source{args.last("commit"), args.last("branch"), args.last("time")};
  if (args.positional.size() > 1 && (source.commit || source.branch || source.time)) {
    return bad(io, "add", "--commit, --branch and --time describe one run; add one file at a time");
  }
  // Every file is read before the store is opened, so that input that cannot be
  // added leaves no new, empty database behind.
  int code = kExitOk;
  std::vector<std::pair<std::string, history::NewRun>> runs;
  for (const std::string& file : args.positional) {
    Expected<result::ResultFile> read = foreign::read_result(file);
    Expected<history::NewRun> run =
        read ? history::new_run(*read, file, source,
                                env::format_utc(std::chrono::system_clock::now()))
             : Expected<history::NewRun>(Error{read.error()});
    if (!run) {
      io.err << "storh-host history add: " << run.error() << '\n';
      code = kExitBadInput;
      continue;
    }
    runs.emplace_back(file, std::move(*run));
  }
  if (runs.empty()) return code;
  Expected<std::unique_ptr<history::HistoryStore>> opened =
      open_store(args, history::HistoryStore::Mode::create);
  if (!opened) return bad(io, "add", opened.error());
  history::HistoryStore& store = **opened;
  for (const auto& [file, run] : runs) {
    Expected<std::int64_t> id = store.add(run.run, run.points, run.result_json);
    if (!id) {
      io.err << "storh-host history add: " << id.error() << '\n';
      code = kExitBadInput;
      continue;
    }
    io.out << fmt::format("history: added {} as run {} ({} metrics, commit {}, {}) to {}\n", file,
                          *id, run.points.size(),
                          run.run.commit.empty() ? "unknown" : run.run.commit.substr(0, 12),
                          run.run.run_time, store.location());
  }
  return code;
}

int show_or_changes(const std::string& subcommand, const ParsedArgs& args, const CommandIo& io) {
  const std::string format = args.last("format").value_or("text");
  const bool show = subcommand == "show";
  if (format != "text" && !(show && format == "html")) {
    return bad(io, subcommand,
               fmt::format("--format: unknown format \"{}\" (valid: {})", shorten(format),
                           show ? "text, html" : "text"));
  }
  Expected<stats::ChangePointOptions> options = change_point_options(args);
  if (!options) return bad(io, subcommand, options.error());
  const std::optional<std::string> output = output_flag(args);
  if (const std::string problem = output_problem("history " + subcommand, output);
      !problem.empty()) {
    io.err << problem << '\n';
    return kExitBadInput;
  }
  Expected<report::HtmlAssets> assets = html_assets_for("history show", format == "html");
  if (!assets) {
    io.err << assets.error() << '\n';
    return kExitBadInput;
  }
  Expected<std::unique_ptr<history::HistoryStore>> opened =
      open_store(args, history::HistoryStore::Mode::existing);
  if (!opened) return bad(io, subcommand, opened.error());
  history::HistoryStore& store = **opened;
  Expected<std::vector<history::HistoryRun>> runs = store.runs();
  Expected<std::vector<history::HistoryPoint>> points = runs ? store.points() : Error{runs.error()};
  if (!points) return bad(io, subcommand, points.error());
  // Change points only for the chosen series: they are what is shown.
  Expected<std::vector<history::Series>> chosen =
      select_series(history::build_series(*runs, *points), args.positional);
  if (!chosen) return bad(io, subcommand, chosen.error());
  const std::vector<history::SeriesChange> changes = history::find_changes(*chosen, *options);
  const std::vector<std::string> environments = history::environments(*runs);
  std::string text;
  if (!show) {
    text = history::changes_text(changes, *options);
  } else if (format == "html") {
    text = history::history_html(*chosen, changes, environments, *assets);
  } else if (args.positional.empty()) {
    text = history::overview_text(*chosen, changes, environments);
  } else {
    text = history::series_text(*chosen, changes, environments);
  }
  return write_output("history " + subcommand, text, output, io);
}

int export_history(const ParsedArgs& args, const CommandIo& io) {
  const std::string format = args.last("format").value_or("json");
  if (format != "json" && format != "csv") {
    return bad(io, "export",
               fmt::format("--format: unknown format \"{}\" (valid: json, csv)", shorten(format)));
  }
  if (format == "csv" && args.has("results")) {
    return bad(io, "export", "--results embeds result files, which only --format=json can hold");
  }
  const std::optional<std::string> output = output_flag(args);
  if (const std::string problem = output_problem("history export", output); !problem.empty()) {
    io.err << problem << '\n';
    return kExitBadInput;
  }
  Expected<std::unique_ptr<history::HistoryStore>> opened =
      open_store(args, history::HistoryStore::Mode::existing);
  if (!opened) return bad(io, "export", opened.error());
  history::HistoryStore& store = **opened;
  Expected<std::vector<history::HistoryRun>> runs = store.runs();
  Expected<std::vector<history::HistoryPoint>> points = runs ? store.points() : Error{runs.error()};
  if (!points) return bad(io, "export", points.error());
  std::optional<std::vector<std::string>> results;
  if (args.has("results")) {
    results.emplace();
    for (const history::HistoryRun& run : *runs) {
      Expected<std::string> text = store.result_json(run.id);
      if (!text) return bad(io, "export", text.error());
      results->push_back(std::move(*text));
    }
  }
  const std::string text = format == "csv" ? history::export_csv(*runs, *points)
                                           : history::export_json(*runs, *points, results);
  return write_output("history export", text, output, io);
}

// `history copy --from=A --to=B`: any store to any store (a file, a postgresql:// URI).
int copy(const ParsedArgs& args, const CommandIo& io) {
  const std::optional<std::string> from = args.last("from");
  const std::optional<std::string> to = args.last("to");
  if (!from || !to || from->empty() || to->empty() || !args.positional.empty()) {
    return bad(io, "copy", "expected --from=FILE|URI --to=FILE|URI and nothing else");
  }
  Expected<std::unique_ptr<history::HistoryStore>> source =
      history::HistoryStore::open(*from, history::HistoryStore::Mode::existing);
  if (!source) return bad(io, "copy", "--from: " + source.error());
  Expected<std::unique_ptr<history::HistoryStore>> destination =
      history::HistoryStore::open(*to, history::HistoryStore::Mode::create);
  if (!destination) return bad(io, "copy", "--to: " + destination.error());
  Expected<history::CopyCount> count = history::copy_history(**source, **destination);
  if (!count) return bad(io, "copy", count.error());
  io.out << fmt::format("history: copied {} run(s) from {} to {} ({} already there)\n",
                        count->copied, (*source)->location(), (*destination)->location(),
                        count->skipped);
  return kExitOk;
}

}  // namespace

int history_command(const std::vector<std::string>& raw_args, const CommandIo& io) {
  const std::vector<Subcommand>& subcommands = find_command("history")->subcommands;
  const auto found =
      raw_args.empty()
          ? subcommands.end()
          : std::find_if(subcommands.begin(), subcommands.end(),
                         [&](const Subcommand& sub) { return sub.name == raw_args.front(); });
  if (found == subcommands.end()) {
    std::vector<std::string> names;
    names.reserve(subcommands.size());
    for (const Subcommand& sub : subcommands) names.emplace_back(sub.name);
    io.err << fmt::format(
        "storh-host history: expected a subcommand: {}{}\n", fmt::join(names, ", "),
        raw_args.empty() ? std::string()
                         : fmt::format(" (got \"{}\"{})", shorten(raw_args.front()),
                                       did_you_mean(raw_args.front(), names)));
    return kExitBadInput;
  }
  const std::string& subcommand = raw_args.front();
  const std::vector<std::string> rest(raw_args.begin() + 1, raw_args.end());
  Expected<ParsedArgs> args = parse_args(rest, found->flags.valued, found->flags.switches);
  if (!args) return bad(io, subcommand, args.error());
  if (subcommand == "add") return add(*args, io);
  if (subcommand == "copy") return copy(*args, io);
  if (subcommand == "export") {
    if (!args->positional.empty()) {
      return bad(io, "export",
                 fmt::format("unexpected argument \"{}\"", shorten(args->positional[0])));
    }
    return export_history(*args, io);
  }
  return show_or_changes(subcommand, *args, io);
}

}  // namespace storh::cli
