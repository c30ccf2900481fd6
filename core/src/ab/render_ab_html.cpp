// ab --format=html: an A/B verdict as one self-contained page (report/html.h).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ab/render_parts.h"
#include "ab/verdict.h"
#include "report/html.h"
#include "result/metric_key.h"

namespace storh::ab {
namespace {

using report::html_escape;

const char* verdict_of(const AbCheck& check) {
  const AbState state = check.state;
  if (state == AbState::regression) return "slower";
  if (check.failed) return "failed";  // too few pairs, missing: the gate fails on them
  if (state == AbState::improvement) return "faster";
  return "same";
}

// One set of pairs as a bar: its ratio on its confidence interval. Nullopt without pairs.
std::optional<report::RatioBar> ratio_bar(std::string label, const stats::PairedTest& t,
                                          double alpha, std::string verdict) {
  if (t.pairs == 0 || !(t.ratio > 0)) return std::nullopt;
  report::RatioBar bar;
  bar.label = std::move(label);
  bar.ratio = t.ratio;
  if (t.confidence > 0) {  // one pair has no interval
    bar.low = t.ci_low;
    bar.high = t.ci_high;
  }
  bar.significant = t.p_value && *t.p_value < alpha;
  bar.verdict = std::move(verdict);
  return bar;
}

// One engine's metrics as head/base ratios on their confidence intervals (kind
// "ratios", as compare draws them), a metric's confirmation set right below it, so the
// two sets a wall-time verdict rests on are seen side by side; metrics without pairs are
// left to the table.
std::string ratio_figure(const std::string& engine, const std::vector<const AbCheck*>& checks,
                         double alpha, report::HtmlCharts& charts) {
  std::vector<report::RatioBar> bars;
  for (const AbCheck* check : checks) {
    if (auto bar = ratio_bar(check->key, check->summary.test, alpha, verdict_of(*check))) {
      bars.push_back(std::move(*bar));
    }
    if (!check->confirmation) continue;
    const AbConfirmation& again = *check->confirmation;
    if (auto bar = ratio_bar(confirmation_row_label(*check), again.summary.test, alpha,
                             again.agreed ? "slower" : "same")) {
      bars.push_back(std::move(*bar));
    }
  }
  return report::ratio_bars_figure(
      bars,
      fmt::format("{}: the slowdown ratio of head to base over the pairs (inverted for "
                  "higher-is-better metrics, so above x1 is worse), Hodges-Lehmann estimate on "
                  "its confidence interval; * significant at alpha {}",
                  engine, alpha),
      charts,
      // The caption says the ratio is inverted for higher-is-better metrics: the axis
      // title must fit a phone's width.
      {"slowdown ratio head / base over the pairs (log axis; x1 = unchanged)", "slowdown ratio"});
}

std::string checks_table(const AbResult& result, const AbOutcome& outcome) {
  auto cells = [](const AbRow& r) {
    return std::vector<std::string>{r.key, r.base,       r.head,      r.change, r.interval,
                                    r.p,   r.detectable, r.threshold, r.verdict};
  };
  report::Rows rows;
  for (const AbCheck& check : outcome.checks) {
    rows.push_back(cells(row_of(result, check)));
    if (check.confirmation) rows.push_back(cells(confirmation_row_of(result, check)));
  }
  using report::Align;
  return report::html_table({{"metric"},
                             {"base median", Align::right},
                             {"head median", Align::right},
                             {"paired change", Align::right},
                             {"interval", Align::right},
                             {"p", Align::right},
                             {"detectable", Align::right},
                             {"threshold", Align::right},
                             {"verdict"}},
                            rows);
}

std::string list_section(const char* id, const char* title, const std::vector<std::string>& items) {
  if (items.empty()) return "";
  std::string out = fmt::format("<section class=\"{}\"><h2>{}</h2>\n<ul>\n", id, title);
  for (const std::string& item : items) out += "<li>" + html_escape(item) + "</li>\n";
  return out + "</ul>\n</section>\n";
}

}  // namespace

AbReport render_html(const AbResult& result, const AbOutcome& outcome, double alpha,
                     const report::HtmlAssets& assets) {
  std::vector<std::pair<std::string, std::vector<const AbCheck*>>> engines;
  for (const AbCheck& check : outcome.checks) {  // engines in order of first appearance
    const std::string engine = result::MetricKey::parse(check.key).engine;
    auto it = std::find_if(engines.begin(), engines.end(),
                           [&](const auto& group) { return group.first == engine; });
    if (it == engines.end()) it = engines.insert(engines.end(), {engine, {}});
    it->second.push_back(&check);
  }
  report::HtmlCharts charts;
  std::string body = "<h1>storh-host A/B</h1>\n";
  body += fmt::format("<p>{}</p>\n<p class=\"verdict {}\"><strong>{}</strong></p>\n",
                      html_escape(header_line(result, alpha)),
                      outcome.passed() ? "passed" : "failed", html_escape(verdict_line(outcome)));
  body += list_section("warnings", "Warnings", outcome.warnings);
  for (const auto& [engine, checks] : engines) {
    body += fmt::format("<section class=\"engine\"><h2>{}</h2>\n", html_escape(engine));
    body += ratio_figure(engine, checks, alpha, charts);
    body += "</section>\n";
  }
  body += "<section><h2>Every metric</h2>\n" + checks_table(result, outcome);
  body +=
      "<p>paired change: Hodges-Lehmann estimate of the slowdown ratio head/base over the "
      "pairs (base/head for higher-is-better metrics), so it can differ from the ratio of "
      "the two medians, even in sign, when the machine's speed drifted during the run; "
      "interval: its confidence interval; detectable: the slowdown these pairs find with 80% "
      "power.</p>\n"
      "</section>\n";
  std::vector<std::string> counters, notes;
  for (const gate::CounterCheck& c : outcome.counter_checks) {
    counters.push_back(fmt::format("{} {}/item: base {:.6g} head {:.6g} (tolerance {:+.2f}%){}",
                                   c.key, c.counter, c.base, c.current, c.tolerance_percent,
                                   c.failed ? " FAIL" : ""));
  }
  for (const AbCheck& check : outcome.checks) {
    for (const std::string& note : check.notes) notes.push_back(check.key + ": " + note);
  }
  body += list_section("counters", "Counters per item", counters);
  body += list_section("notes", "Notes", notes);

  AbReport report;
  report.out = report::html_page("storh-host A/B", body, charts, assets);
  for (const std::string& w : outcome.warnings) report.err += "warning: " + w + "\n";
  report.err += verdict_line(outcome) + "\n";
  return report;
}

}  // namespace storh::ab
