// `storh-host history` and `ci --history` end to end through the CLI: 20 runs with a
// 20% slowdown injected at run 11 give one change point at its commit; refusals
// (duplicates, other schemas, a corrupt database) exit 2 and leave the database as it
// was; ci adds its run and fails on a new change point for the worse.
#include <cstdio>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "stepped_results.h"
#include "test_support.h"
#include "util/files.h"

using storh::test::cli;
using storh::test::contains;
using storh::test::ScratchDir;

namespace {

const std::filesystem::path base_file =
    std::filesystem::path(STORH_TEST_SOURCE_DIR) / "tests/fixtures/html/compare-base.json";

std::string db_flag(const ScratchDir& dir) {
  return "--db=" + (dir / "h.db").string();
}

std::string hash_of(const std::filesystem::path& file) {
  auto hash = storh::file_hash(file);
  REQUIRE(hash.ok());
  return *hash;
}

// The 20 stepped runs of compare-base.json, added one by one.
void add_twenty(const ScratchDir& dir) {
  storh::test::SteppedSeries spec;
  spec.base = base_file;
  for (const auto& file : storh::test::write_stepped_results(spec, dir / "runs")) {
    const auto run = cli({"history", "add", file.string(), db_flag(dir)});
    INFO(run.out << run.err);
    REQUIRE(run.code == 0);
    CHECK(contains(run.out, "history: added " + file.string() + " as run "));
  }
}

}  // namespace

TEST_CASE("history cli: 20 runs, a 20% slowdown at run 11, one change point at its commit",
          "[cli][history]") {
  ScratchDir dir;
  add_twenty(dir);
  auto run = cli({"history", "changes", db_flag(dir)});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  CHECK(contains(run.out, "least 3 runs each side): 1\n"));
  CHECK(contains(run.out, "uuid.monotonic"));
  CHECK(contains(run.out, storh::test::stepped_commit(11).substr(0, 12)));
  CHECK(contains(run.out, "2026-11-11T10:00:00Z"));
  CHECK(contains(run.out, "worse"));
  // Only the slowed metric changed.
  CHECK_FALSE(contains(run.out, "uuid.spread"));
  CHECK_FALSE(contains(run.out, "filter."));

  // The overview lists every series with its change count; one metric lists its runs.
  run = cli({"history", "show", db_flag(dir)});
  REQUIRE(run.code == 0);
  CHECK(contains(run.out, "Suite uuid-filter:"));
  CHECK(contains(run.out, "E1: "));
  run = cli({"history", "show", "uuid.monotonic", db_flag(dir)});
  REQUIRE(run.code == 0);
  CHECK(contains(run.out, "uuid.monotonic in suite uuid-filter, E1:"));
  CHECK(contains(run.out, "<- change x1."));
  run = cli({"history", "changes", "filter.*", db_flag(dir)});
  REQUIRE(run.code == 0);
  CHECK(contains(run.out, "least 3 runs each side): 0\n"));

  // HTML, JSON and CSV.
  run = cli({"history", "show", db_flag(dir), "--format=html", "-o", (dir / "h.html").string()});
  REQUIRE(run.code == 0);
  CHECK(contains(storh::test::read_text(dir / "h.html"), "\"kind\":\"trend\""));
  run = cli({"history", "export", db_flag(dir), "--format=csv"});
  REQUIRE(run.code == 0);
  CHECK(std::count(run.out.begin(), run.out.end(), '\n') == 1 + 20 * 7);
  run = cli({"history", "export", db_flag(dir), "--results", "-o", (dir / "h.json").string()});
  REQUIRE(run.code == 0);
  const auto exported = nlohmann::json::parse(storh::test::read_text(dir / "h.json"));
  REQUIRE(exported["runs"].size() == 20);
  CHECK(exported["runs"][10]["commit"] == storh::test::stepped_commit(11));
  CHECK(exported["runs"][10]["result"]["experiment"]["suite"] == "uuid-filter");
}

TEST_CASE("history cli: bad input is refused and the stored runs stay as they are",
          "[cli][history]") {
  ScratchDir dir;
  add_twenty(dir);
  const std::filesystem::path db = dir / "h.db";
  const std::string before = hash_of(db);

  // The same run again.
  auto run = cli({"history", "add", (dir / "runs/run-03.json").string(), db_flag(dir)});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "already in the history as run 3"));
  // A storh PHP file is of another schema.
  run = cli({"history", "add",
             std::string(STORH_TEST_SOURCE_DIR) + "/tests/fixtures/storh-php/storh-php82-1k.json",
             db_flag(dir)});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "storh-php82-1k.json"));
  // A run with a failed repeat: its figures are not those of clean runs (regression:
  // it was added with exit 0).
  {
    nlohmann::json failed = storh::test::read_json(dir / "runs/run-04.json");
    failed["failures"].push_back({{"engine", "uuid"},
                                  {"dataset", 1000},
                                  {"params", nlohmann::json::object()},
                                  {"repeat", 1},
                                  {"operation", "monotonic"},
                                  {"kind", "crashed"},
                                  {"message", "worker killed by signal 9 (Killed)"},
                                  {"signal", 9},
                                  {"exit_code", nullptr},
                                  {"stderr_tail", ""}});
    storh::test::write_text(dir / "failed.json", failed.dump());
    run = cli({"history", "add", (dir / "failed.json").string(), db_flag(dir)});
    CHECK(run.code == 2);
    CHECK(contains(run.err, "1 run(s) failed (the first: uuid crashed, worker killed by signal 9"));
  }
  // A number beyond a double.
  storh::test::write_text(dir / "bad.json", "{\"schema_version\": 1e999}");
  run = cli({"history", "add", (dir / "bad.json").string(), db_flag(dir)});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "storh-host history add: " + (dir / "bad.json").string() + ": "));
  // An empty --db would be a temporary database that vanishes.
  run = cli({"history", "add", (dir / "runs/run-01.json").string(), "--db="});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "--db: expected a file name"));
  CHECK(hash_of(db) == before);

  // A mistyped metric or subcommand names the valid choices.
  run = cli({"history", "show", "uuid.monotnic", db_flag(dir)});
  CHECK(run.code == 2);
  CHECK(contains(run.err,
                 "no metric \"uuid.monotnic\" in the history; did you mean "
                 "\"uuid.monotonic\"?"));
  run = cli({"history", "shwo", db_flag(dir)});
  CHECK(run.code == 2);
  CHECK(contains(run.err,
                 "expected a subcommand: add, show, changes, export, copy (got \"shwo\"; "
                 "did you mean \"show\"?)"));
  // copy needs both ends, and a source that exists; the destination is not created.
  run = cli({"history", "copy", "--from=" + db.string()});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "expected --from=FILE|URI --to=FILE|URI"));
  run = cli({"history", "copy", "--from=" + (dir / "none.db").string(),
             "--to=" + (dir / "copy.db").string()});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "--from: " + (dir / "none.db").string() + ": no history there"));
  CHECK_FALSE(std::filesystem::exists(dir / "copy.db"));
  run = cli({"history", "changes", "--max-p=2", db_flag(dir)});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "--max-p: expected a p-value between 0 and 1, got \"2\""));
  run = cli({"history", "add", (dir / "runs/run-01.json").string(),
             (dir / "runs/run-02.json").string(), "--commit=abc", db_flag(dir)});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "add one file at a time"));
  CHECK(hash_of(db) == before);

  // A database whose pages were overwritten: every command refuses it untouched.
  std::string bytes = storh::test::read_text(db);
  REQUIRE(bytes.size() > std::size_t{3} * 4096);
  for (std::size_t i = 4096; i < std::size_t{3} * 4096; ++i) bytes[i] = 'x';
  storh::test::write_text(db, bytes);
  const std::string corrupt = hash_of(db);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"history", "add", (dir / "runs/run-01.json").string()},
        std::vector<std::string>{"history", "show"},
        std::vector<std::string>{"history", "export"}}) {
    std::vector<std::string> with_db = args;
    with_db.push_back(db_flag(dir));
    run = cli(with_db);
    INFO(run.err);
    CHECK(run.code == 2);
    CHECK(contains(run.err, "h.db: not a usable history database"));
  }
  CHECK(hash_of(db) == corrupt);
  // An input file that is missing creates no database.
  run =
      cli({"history", "add", (dir / "missing.json").string(), "--db=" + (dir / "new.db").string()});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "missing.json"));
  CHECK_FALSE(std::filesystem::exists(dir / "new.db"));
  // A missing database is not created by the read commands.
  run = cli({"history", "show", "--db=" + (dir / "none.db").string()});
  CHECK(run.code == 2);
  CHECK(contains(run.err, "none.db: no history there"));
  CHECK_FALSE(std::filesystem::exists(dir / "none.db"));
}

namespace {

using storh::test::fixture_path_flag;

// A CI suite over misbehave.first (10 ms a run), gated at 100% against dir/baseline.json.
std::string ci_suite(const ScratchDir& dir) {
  const auto file = dir / "ci.toml";
  storh::test::write_text(
      file, "datasets = [20000]\nrepeat = 3\noutput = \"" + (dir / "ci.json").string() +
                "\"\n[engines.misbehave]\noperations = [\"first\"]\n[engines.misbehave.params]\n"
                "cost = 500\n[gate]\nbaseline = \"" +
                (dir / "baseline.json").string() + "\"\nthreshold = 100\n");
  return file.string();
}

}  // namespace

TEST_CASE("ci --history: the run is added, and a new change point for the worse fails",
          "[cli][history][ci]") {
  ScratchDir dir;
  const std::string suite = ci_suite(dir);
  auto run = cli({"ci", suite, fixture_path_flag, "--update-baseline"});
  INFO(run.out << run.err);
  REQUIRE(run.code == 0);
  const std::string history = "--history=" + (dir / "h.db").string();

  SECTION("no change: the run is added and ci passes") {
    run = cli({"ci", suite, fixture_path_flag, history});
    INFO(run.out << run.err);
    CHECK(run.code == 0);
    CHECK(contains(run.out, "history: added run 1 to "));
    CHECK(contains(run.out, "0 new change point(s)"));
  }
  SECTION("the run completes a step to 10x slower: ci fails and names the commit") {
    // Earlier runs of this suite on this machine: 10 at a tenth of today's time, then 2
    // at today's. Two runs after a step are too few to be a change point (at least 3
    // each side); today's run is the third. --max-p=0.05: Welch's test of 10 runs
    // against 3 has about 2 degrees of freedom, and today's run is timed for real.
    storh::test::SteppedSeries spec;
    spec.base = dir / "baseline.json";
    spec.runs = 12;
    spec.metric = "misbehave.first";
    spec.base_scale = 0.1;
    spec.factor = 10;
    for (const auto& file : storh::test::write_stepped_results(spec, dir / "runs")) {
      REQUIRE(cli({"history", "add", file.string(), "--db=" + (dir / "h.db").string()}).code == 0);
    }
    run = cli({"history", "changes", "--max-p=0.05", "--db=" + (dir / "h.db").string()});
    REQUIRE(contains(run.out, "each side): 0\n"));
    run = cli({"ci", suite, fixture_path_flag, history, "--max-p=0.05", "--commit=feedface"});
    INFO(run.out << run.err);
    CHECK(run.code == 1);
    CHECK(contains(run.out, "Benchmark regression gate passed"));
    CHECK(contains(run.out, "1 new change point(s)"));
    CHECK(contains(run.out, "history: new change point in misbehave.first (E1) at commit " +
                                storh::test::stepped_commit(11).substr(0, 12)));
    CHECK(contains(run.out, "a new change point for the worse; failing"));
    // The run is stored with the commit it was given.
    run = cli({"history", "show", "misbehave.first", "--db=" + (dir / "h.db").string()});
    CHECK(contains(run.out, " feedface "));
  }
  SECTION("history flags without --history are a mistake") {
    run = cli({"ci", suite, fixture_path_flag, "--commit=abc"});
    CHECK(run.code == 2);
    CHECK(contains(run.err, "--commit needs --history=FILE|URI"));  // a URI too
  }
  SECTION("a database it cannot use fails before the run") {
    storh::test::write_text(dir / "h.db", "not sqlite");
    std::filesystem::remove(dir / "ci.json");
    run = cli({"ci", suite, fixture_path_flag, history});
    CHECK(run.code == 2);
    CHECK(contains(run.err, "--history: "));
    CHECK(contains(run.err, "not a usable history database"));
    CHECK_FALSE(std::filesystem::exists(dir / "ci.json"));
  }
}

// What broke: the host linked libpq for the PostgreSQL history store, so every
// storh-host process (workers included) loaded it and twenty more libraries at start.
TEST_CASE("history: the host starts without libpq and loads it only for a PostgreSQL store",
          "[history][cli]") {
  // LD_TRACE_LOADED_OBJECTS makes the dynamic loader list what the program needs (ldd).
  FILE* pipe = ::popen("LD_TRACE_LOADED_OBJECTS=1 '" STORH_TEST_HOST "' 2>&1", "r");
  REQUIRE(pipe != nullptr);
  std::string listing;
  char buffer[4096];
  while (const std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) {
    listing.append(buffer, got);
  }
  CHECK(::pclose(pipe) == 0);
  CHECK(contains(listing, "libc.so"));
  CHECK_FALSE(contains(listing, "libpq"));
  CHECK_FALSE(contains(listing, "libgnutls"));
}
