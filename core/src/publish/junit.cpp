#include "publish/junit.h"

#include <cmath>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "compare/render.h"
#include "report/html.h"

namespace storh::publish {
namespace {

struct TestCase {
  std::string name;
  std::optional<std::string> failure_type;  // with failure_message: the case failed
  std::string failure_message;
  std::optional<std::string> skipped;  // why the case was not judged
  std::string detail;                  // the failure's text: notes, one per line
};

// Text for XML 1.0 content and quoted attributes: HTML's escapes (& < > " ', all valid
// XML), then line breaks and tabs as character references, so an attribute keeps them
// (a parser turns a literal one into a space), and the other C0 controls, which XML 1.0
// cannot hold even as references, as U+FFFD.
std::string xml_escape(std::string_view text) {
  const std::string escaped = report::html_escape(text);
  std::string out;
  out.reserve(escaped.size());
  for (const char c : escaped) {
    if (c == '\n' || c == '\r' || c == '\t') {
      out += fmt::format("&#{};", static_cast<int>(c));
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += "\xEF\xBF\xBD";
    } else {
      out += c;
    }
  }
  return out;
}

std::string junit_document(const std::string& suite, const std::string& classname,
                           const std::string& description, const std::vector<TestCase>& cases) {
  std::size_t failures = 0, skipped = 0;
  for (const TestCase& test : cases) {
    if (test.failure_type) ++failures;
    if (test.skipped) ++skipped;
  }
  const std::string counts = fmt::format("tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\"",
                                         cases.size(), failures, skipped);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"{}\" {}>\n", xml_escape(suite), counts);
  out += fmt::format("  <testsuite name=\"{}\" {}>\n", xml_escape(description), counts);
  for (const TestCase& test : cases) {
    out += fmt::format("    <testcase classname=\"{}\" name=\"{}\"", xml_escape(classname),
                       xml_escape(test.name));
    if (test.failure_type) {
      out += fmt::format(
          ">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>\n",
          xml_escape(*test.failure_type), xml_escape(test.failure_message),
          xml_escape(test.detail));
    } else if (test.skipped) {
      out += fmt::format(">\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                         xml_escape(*test.skipped));
    } else {
      out += "/>\n";
    }
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

std::string notes_text(const std::vector<std::string>& notes) {
  return fmt::format("{}", fmt::join(notes, "\n"));
}

TestCase gate_case(const gate::GateCheck& check) {
  TestCase test;
  test.name = check.key;
  test.detail = notes_text(check.notes);
  const bool missing = check.state == gate::CheckState::missing_in_baseline ||
                       check.state == gate::CheckState::missing_in_current;
  const std::string missing_text = check.state == gate::CheckState::missing_in_baseline
                                       ? "missing in baseline"
                                       : "missing in current";
  if (missing && check.failed) {
    test.failure_type = "missing";
    test.failure_message = fmt::format("{}: {}", check.key, missing_text);
  } else if (missing) {
    test.skipped = fmt::format("{} (lenient: not a failure)", missing_text);
  } else if (check.failed) {
    test.failure_type = "regression";
    test.failure_message = fmt::format(
        "{}: {:.2f}% slower, threshold {:.2f}%: base {}, current {} ({:+.2f}%)", check.key,
        check.slowdown_percent, check.threshold_percent,
        compare::format_value(check.direction, *check.base_median),
        compare::format_value(check.direction, *check.current_median), check.delta_percent);
  }
  return test;
}

TestCase counter_case(const gate::CounterCheck& check) {
  TestCase test;
  test.name = fmt::format("{} {}/item", check.key, check.counter);
  if (check.failed) {
    test.failure_type = "counter";
    test.failure_message = fmt::format(
        "{}: {} per item grew {}, tolerance {:.2f}%: base {:.10g}, current {:.10g}", check.key,
        check.counter,
        std::isfinite(check.growth_percent) ? fmt::format("{:+.2f}%", check.growth_percent)
                                            : std::string("+inf%"),
        check.tolerance_percent, check.base, check.current);
  }
  return test;
}

TestCase ab_case(const ab::AbCheck& check) {
  TestCase test;
  test.name = check.key;
  test.detail = notes_text(check.notes);
  const stats::PairedTest& paired = check.summary.test;
  const std::string figures = fmt::format(
      "{:+.2f}% (head/base ratio {:.4f}, interval {:.4f} .. {:.4f}, {} pairs{}), threshold "
      "{:.2f}% ({})",
      check.summary.slowdown_percent, paired.ratio, paired.ci_low, paired.ci_high, paired.pairs,
      paired.p_value ? fmt::format(", p={:.3g}", *paired.p_value) : "", check.threshold_percent,
      check.threshold_from);
  const std::string state = ab::ab_state_name(check.state);
  if (check.failed) {
    test.failure_type = state;
    test.failure_message = fmt::format("{}: {} {}", check.key, state, figures);
  } else if (check.state == ab::AbState::too_few_pairs || check.state == ab::AbState::missing) {
    test.skipped = fmt::format("{} (lenient: not a failure)", state);
  }
  return test;
}

}  // namespace

std::string gate_junit(const gate::GateOutcome& outcome) {
  std::vector<TestCase> cases;
  for (const gate::GateCheck& check : outcome.checks) cases.push_back(gate_case(check));
  for (const gate::CounterCheck& check : outcome.counter_checks) {
    cases.push_back(counter_case(check));
  }
  return junit_document(
      "storh-host gate", "storh-host.gate",
      fmt::format("storh-host gate {} {}", outcome.base_name, outcome.current_name), cases);
}

std::string ab_junit(const ab::AbOutcome& outcome, const std::string& origin) {
  std::vector<TestCase> cases;
  for (const ab::AbCheck& check : outcome.checks) cases.push_back(ab_case(check));
  for (const gate::CounterCheck& check : outcome.counter_checks) {
    cases.push_back(counter_case(check));
  }
  return junit_document("storh-host ab", "storh-host.ab", origin, cases);
}

}  // namespace storh::publish
