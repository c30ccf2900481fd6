// The report command's text and Markdown output for a fixed result file, pinned byte
// for byte (tests/fixtures/golden/report-result-v1.*; STORH_UPDATE_GOLDEN=1 rewrites
// them). The report is a pure function of the file, so any change here is a change
// users see.
#include <catch2/catch.hpp>

#include "compare_fixtures.h"
#include "report/report.h"

using namespace storh;
using storh::test::matches_golden;
using storh::test::result_fixture;

TEST_CASE("report: the text and Markdown reports of a result file are pinned", "[report][golden]") {
  const result::ResultFile result = result_fixture("golden/result-v1.json");
  CHECK(matches_golden("report-result-v1.txt",
                       report::render_report(result, report::ReportFormat::text)));
  CHECK(matches_golden("report-result-v1.md",
                       report::render_report(result, report::ReportFormat::markdown)));
}

TEST_CASE("report: the report command prints the text report", "[report][golden][cli]") {
  const std::string file =
      std::string(STORH_TEST_SOURCE_DIR) + "/tests/fixtures/golden/result-v1.json";
  const test::CliResult run = test::cli({"report", file});
  CHECK(run.code == kExitOk);
  CHECK(matches_golden("report-result-v1.txt", run.out));
}
