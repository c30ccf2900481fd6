// The sqlite engine end to end through the host: SQLite's own statistics reach the
// result file as engine counters (docs/counters.md), and a cell's durability level is
// what the result and every report say it was, `os` included (docs/results.md).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "test_support.h"

using storh::test::cli;
using storh::test::contains;
using storh::test::metric;
using storh::test::ScratchDir;

TEST_CASE(
    "sqlite end to end: SQLite's statistics and each cell's durability level reach the "
    "result and the reports",
    "[cli][engines][sqlite]") {
  ScratchDir dir;
  const auto suite = dir / "s.toml";
  storh::test::write_text(suite,
                          "name = \"sq\"\ntimeout = \"60s\"\ndatasets = [200]\nrepeat = 1\n"
                          "[engines.sqlite]\noperations = [\"fillseq\", \"readrandom\"]\n"
                          "[engines.sqlite.params]\ndurability = [\"os\", \"fsync\"]\n");
  const std::string file = (dir / "o.json").string();
  const auto run =
      cli({suite.string(), "--output=" + file, "--work-dir=" + (dir / "work").string()});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  const nlohmann::json result = nlohmann::json::parse(storh::test::read_text(file));

  const auto& read = metric(result, "sqlite.readrandom[durability=os]")["engine_counters"];
  CHECK(read["sqlite.get.vm_steps"]["per_item"].get<double>() > 0);
  CHECK(read["sqlite.get.vm_steps"]["unit"] == "steps");
  CHECK(read["sqlite.get.vm_steps"]["repeats"] == true);
  CHECK(read["sqlite.get.fullscan_steps"]["per_item"] == 0.0);
  CHECK(read["sqlite.cache_hits"]["per_item"].get<double>() > 0);
  const auto& fill = metric(result, "sqlite.fillseq[durability=fsync]")["engine_counters"];
  CHECK(fill["sqlite.put.vm_steps"]["per_item"].get<double>() > 0);

  // The os cells are flagged, the fsync ones are not; the keys tell the cells apart.
  CHECK(result["experiment"]["durability"] == "os: sqlite");
  for (const std::string& text : {run.out, cli({"report", file}).out}) {
    CHECK(contains(text, "durability is \"os: sqlite\""));
  }
  CHECK(contains(cli({"report", file, "--format=md"}).out, "- durability: os: sqlite"));
  CHECK(contains(cli({"report", file, "--format=html"}).out, "os: sqlite"));
}
