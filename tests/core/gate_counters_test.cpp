// gate: counter tolerances (docs/counters.md) on fixed data: deterministic counters
// per item either grow beyond their tolerance or they do not.
#include <catch2/catch.hpp>

#include "compare_fixtures.h"
#include "gate/gate.h"
#include "gate/render_gate.h"

using namespace storh;
using namespace storh::gate;
using compare::ComparableFile;

namespace {

// Three steady samples of one metric.
std::vector<double> steady_samples() {
  return {0.100, 0.101, 0.099};
}

// doc.put with these counters per item, and an unchanged time.
ComparableFile with_counters(std::vector<std::pair<std::string, double>> counters,
                             const std::string& name) {
  ComparableFile file = test::make_comparable({{"doc.put", steady_samples()}}, name);
  file.metrics[0].counters = std::move(counters);
  return file;
}

GateOutcome gate_of(const ComparableFile& base, const ComparableFile& current,
                    std::vector<CounterTolerance> tolerances) {
  GateOptions options;
  options.counter_tolerances = std::move(tolerances);
  auto outcome = run_gate(base, current, options);
  REQUIRE(outcome.ok());
  return std::move(outcome).value();
}

}  // namespace

TEST_CASE("gate counters: one extra fsync per operation fails at tolerance 0", "[gate]") {
  const GateOutcome outcome =
      gate_of(with_counters({{"fsync", 1}}, "base.json"),
              with_counters({{"fsync", 2}}, "current.json"), {{"fsync", 0}});
  CHECK_FALSE(outcome.passed());
  CHECK(outcome.failures == 1);
  REQUIRE(outcome.counter_checks.size() == 1);
  CHECK(outcome.counter_checks[0].failed);
  CHECK(outcome.counter_checks[0].growth_percent == Approx(100));
  const GateReport report = render_gate(outcome, compare::OutputFormat::text);
  CHECK(test::contains(report.out,
                       "doc.put fsync/item                   base 1 current 2 "
                       "+100.00% FAIL [counter tolerance +0.00%]\n"));
  CHECK(test::contains(report.err, "gate failed"));
}

TEST_CASE("gate counters: equal counters pass, and a per-item rounding error is not growth",
          "[gate]") {
  const double per_item = 3.0 / 7.0;
  const GateOutcome outcome = gate_of(
      with_counters({{"fsync", 1}, {"write_bytes", per_item}}, "base.json"),
      with_counters({{"fsync", 1}, {"write_bytes", per_item * (1 + 1e-12)}}, "current.json"),
      {{"fsync", 0}, {"write_bytes", 0}});
  CHECK(outcome.passed());
  CHECK(outcome.counter_checks.size() == 2);
  CHECK(test::contains(render_gate(outcome, compare::OutputFormat::text).out,
                       "doc.put fsync/item                   base 1 current 1 +0.00% "
                       "[counter tolerance +0.00%]\n"));
}

TEST_CASE("gate counters: instructions +1% pass at 2%, +3% fail", "[gate]") {
  const ComparableFile base = with_counters({{"instructions", 100000}}, "base.json");
  CHECK(gate_of(base, with_counters({{"instructions", 101000}}, "c.json"), {{"instructions", 2}})
            .passed());
  CHECK(gate_of(base, with_counters({{"instructions", 102000}}, "c.json"), {{"instructions", 2}})
            .passed());
  CHECK_FALSE(
      gate_of(base, with_counters({{"instructions", 103000}}, "c.json"), {{"instructions", 2}})
          .passed());
}

TEST_CASE("gate counters: fewer calls never fail, growth from zero does", "[gate]") {
  CHECK(gate_of(with_counters({{"fsync", 2}}, "b"), with_counters({{"fsync", 1}}, "c"),
                {{"fsync", 0}})
            .passed());
  const GateOutcome from_zero = gate_of(with_counters({{"fsync", 0}}, "b"),
                                        with_counters({{"fsync", 0.001}}, "c"), {{"fsync", 50}});
  CHECK_FALSE(from_zero.passed());
  CHECK(test::contains(render_gate(from_zero, compare::OutputFormat::text).out, "+inf% FAIL"));
  CHECK(test::contains(render_gate(from_zero, compare::OutputFormat::json).out,
                       "\"growth_percent\": null"));
}

TEST_CASE("gate counters: a counter on one side only is a warning, not a failure", "[gate]") {
  const GateOutcome outcome = gate_of(with_counters({{"fsync", 1}}, "b"), with_counters({}, "c"),
                                      {{"fsync", 0}, {"instructions", 2}});
  CHECK(outcome.passed());
  CHECK(outcome.counter_checks.empty());
  REQUIRE_FALSE(outcome.warnings.empty());
  CHECK(outcome.warnings.back() ==
        "counters: 1 counter is on one side only, not checked: doc.put fsync (missing in "
        "current)");
}

TEST_CASE("gate counters: unknown counter names are refused with the valid list", "[gate]") {
  GateOptions options;
  options.counter_tolerances = {{"fsyncs", 0}};
  const std::string problem = validate(options);
  CHECK(test::contains(problem, "--counter: unknown counter \"fsyncs\" (valid: "));
  CHECK(test::contains(problem, "fdatasync, fsync, getdents, instructions"));
  CHECK(test::contains(problem, "; did you mean \"fsync\"?"));
  options.counter_tolerances = {{"fsync", -1}};
  CHECK(test::contains(validate(options), "is not a percentage >= 0"));
}

TEST_CASE("gate counters: the CLI takes --counter=NAME=PCT and rejects unknown names", "[gate]") {
  test::ScratchDir dir;
  result::ResultFile base = test::make_result({{"doc.put", steady_samples()}});
  base.metrics[0].counters = {{"fsync", 1}};
  result::ResultFile current = base;
  current.metrics[0].counters = {{"fsync", 2}};
  REQUIRE(result::write_result_file(dir / "base.json", base).empty());
  REQUIRE(result::write_result_file(dir / "current.json", current).empty());
  const std::string b = (dir / "base.json").string(), c = (dir / "current.json").string();

  const test::CliResult failed = test::cli({"gate", b, c, "--counter=fsync=0"});
  CHECK(failed.code == 1);
  CHECK(test::contains(failed.out, "doc.put fsync/item"));
  CHECK(test::cli({"gate", b, c, "--counter=fsync=100"}).code == 0);
  CHECK(test::cli({"gate", b, c}).code == 0);  // no tolerance: counters are not checked
  const test::CliResult unknown = test::cli({"gate", b, c, "--counter=fsyncs=0"});
  CHECK(unknown.code == 2);
  CHECK(test::contains(unknown.err, "unknown counter \"fsyncs\""));
  CHECK(test::cli({"gate", b, c, "--counter=fsync"}).code == 2);
}

TEST_CASE(
    "gate counters: the call counters close, getdents, mkdir, mmap, munmap and syncfs are gated",
    "[gate]") {
  for (const std::string name : {"close", "getdents", "mkdir", "mmap", "munmap", "syncfs"}) {
    INFO(name);
    const GateOutcome outcome = gate_of(with_counters({{name, 4}}, "base.json"),
                                        with_counters({{name, 4.4}}, "current.json"), {{name, 0}});
    CHECK_FALSE(outcome.passed());
    REQUIRE(outcome.counter_checks.size() == 1);
    CHECK(outcome.counter_checks[0].growth_percent == Approx(10));
  }
  GateOptions options;
  options.counter_tolerances = {{"getdent", 0}};
  CHECK(test::contains(validate(options), "; did you mean \"getdents\"?"));
  options.counter_tolerances = {{"closes", 0}};
  CHECK(test::contains(validate(options), "; did you mean \"close\"?"));
}
