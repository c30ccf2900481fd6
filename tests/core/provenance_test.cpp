// Provenance and load: the host name, the suite's git commit read from .git files,
// the busy-machine warning the runner records at the start and end of a run, and the
// same provenance in an A/B file.
#include "env/provenance.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "ab/ab_runner.h"
#include "run/runner.h"
#include "scratch_dir.h"

using namespace storh;
using storh::test::ScratchDir;
using storh::test::write_text;

namespace {

constexpr const char* kCommit = "0123456789abcdef0123456789abcdef01234567";
constexpr const char* kOther = "fedcba9876543210fedcba9876543210fedcba98";

// A plan without cells, of a suite in `work` that is also its work directory.
plan::Plan plan_in(const ScratchDir& work) {
  plan::Plan plan;
  plan.suite.file = work / "suite.toml";
  plan.work_dir = work.path();
  return plan;
}

}  // namespace

TEST_CASE("provenance: the 1-minute load average is the first field of /proc/loadavg",
          "[provenance]") {
  CHECK(env::parse_loadavg("3.52 2.10 1.05 3/412 12345\n") == 3.52);
  CHECK(env::parse_loadavg("0.00 0.01 0.05 1/80 7") == 0.0);
  CHECK_FALSE(env::parse_loadavg("").has_value());
  CHECK_FALSE(env::parse_loadavg("busy").has_value());
}

TEST_CASE("provenance: a load average above the CPU count is a busy machine", "[provenance]") {
  CHECK(env::busy_warning("at the start of the run", 3.52, 2) ==
        "machine busy at the start of the run: 1-minute load average 3.52 > 2 CPUs; other "
        "processes competed for the CPUs, timings are noisy");
  CHECK_FALSE(env::busy_warning("at the end of the run", 2.0, 2).has_value());  // not above
  CHECK_FALSE(env::busy_warning("at the end of the run", 5.0, 0).has_value());  // CPUs unknown
}

TEST_CASE("provenance: the git commit of a checkout, on a branch or detached", "[provenance]") {
  ScratchDir repo;
  std::filesystem::create_directories(repo / "suites/deep");
  write_text(repo / ".git/HEAD", "ref: refs/heads/main\n");
  write_text(repo / ".git/refs/heads/main", std::string(kCommit) + "\n");
  CHECK(env::git_commit_of(repo / "suites/deep") == kCommit);
  CHECK(env::git_branch_of(repo / "suites/deep") == "main");

  // A packed branch.
  std::filesystem::remove(repo / ".git/refs/heads/main");
  write_text(repo / ".git/packed-refs", std::string("# pack-refs with: peeled fully-peeled\n") +
                                            kOther + " refs/heads/other\n" + kCommit +
                                            " refs/heads/main\n");
  CHECK(env::git_commit_of(repo.path()) == kCommit);

  write_text(repo / ".git/HEAD", std::string(kOther) + "\n");  // detached
  CHECK(env::git_commit_of(repo / "suites") == kOther);
  CHECK_FALSE(env::git_branch_of(repo / "suites").has_value());  // detached: no branch

  // A branch with no commit yet.
  write_text(repo / ".git/HEAD", "ref: refs/heads/new\n");
  CHECK_FALSE(env::git_commit_of(repo.path()).has_value());
}

TEST_CASE("provenance: a linked worktree's .git file and its common directory", "[provenance]") {
  ScratchDir root;
  const std::filesystem::path main_git = root / "main/.git";
  write_text(main_git / "refs/heads/topic", std::string(kOther) + "\n");
  write_text(main_git / "worktrees/wt/HEAD", "ref: refs/heads/topic\n");
  write_text(main_git / "worktrees/wt/commondir", "../..\n");
  write_text(root / "wt/.git", "gitdir: " + (main_git / "worktrees/wt").string() + "\n");
  std::filesystem::create_directories(root / "wt/suites");
  CHECK(env::git_commit_of(root / "wt/suites") == kOther);
  CHECK(env::git_branch_of(root / "wt/suites") == "topic");
}

TEST_CASE("provenance: outside a checkout there is no commit", "[provenance]") {
  // A scratch directory may itself sit in a checkout (a build tree under the
  // sources); the filesystem root does not.
  CHECK_FALSE(env::git_commit_of("/").has_value());
  CHECK_FALSE(env::host_name().empty());
}

TEST_CASE("runner: a busy machine at the start or end is a warning in the file and on stderr",
          "[provenance]") {
  // Regression: nothing said that other processes loaded the machine during a run.
  ScratchDir work;
  const plan::Plan plan = plan_in(work);
  std::ostringstream err;
  run::RunnerOptions options;
  options.load_average = [] { return std::optional<double>(1000.0); };
  options.warnings = &err;
  auto result = run::run_plan(plan, options);
  REQUIRE(result.ok());
  const auto& warnings = result->environment.warnings;
  const unsigned cpus = result->environment.cpu_count;
  const std::string start = *env::busy_warning("at the start of the run", 1000.0, cpus);
  const std::string end = *env::busy_warning("at the end of the run", 1000.0, cpus);
  CHECK(std::count(warnings.begin(), warnings.end(), start) == 1);
  CHECK(std::count(warnings.begin(), warnings.end(), end) == 1);
  CHECK(err.str() == "warning: " + start + "\nwarning: " + end + "\n");
  CHECK_FALSE(result->experiment.hostname.empty());

  // An idle machine adds nothing.
  options.load_average = [] { return std::optional<double>(0.0); };
  std::ostringstream quiet;
  options.warnings = &quiet;
  result = run::run_plan(plan, options);
  REQUIRE(result.ok());
  CHECK(quiet.str().empty());
}

TEST_CASE("ab: a busy machine is warned about as in a run, and both sides' files carry it",
          "[provenance][ab]") {
  // Regression: `ab` said nothing where `run` warned, and its files had no warning.
  ScratchDir work;
  const plan::Plan plan = plan_in(work);
  std::ostringstream err;
  ab::AbRunOptions options;
  options.runner.load_average = [] { return std::optional<double>(1000.0); };
  options.runner.warnings = &err;
  auto result = ab::run_ab(plan, plan, options);
  REQUIRE(result.ok());
  const unsigned cpus = result->head.environment.cpu_count;
  const std::string start = *env::busy_warning("at the start of the run", 1000.0, cpus);
  const std::string end = *env::busy_warning("at the end of the run", 1000.0, cpus);
  CHECK(err.str() == "warning: " + start + "\nwarning: " + end + "\n");
  for (const result::ResultFile* side : {&result->base, &result->head}) {
    const auto& warnings = side->environment.warnings;
    CHECK(std::count(warnings.begin(), warnings.end(), start) == 1);
    CHECK(std::count(warnings.begin(), warnings.end(), end) == 1);
  }
}

TEST_CASE("ab: an A/B file carries a run's provenance on both sides", "[provenance][ab]") {
  // Regression: the A/B runner finished its results on its own, without the hostname,
  // the commit, the command line or the plugin-build warnings that a run's file has.
  ScratchDir work;
  write_text(work / ".git/HEAD", std::string(kCommit) + "\n");
  plan::Plan plan = plan_in(work);
  plan::Cell cell;
  cell.engine = "doc";
  cell.plugin = work / "storh_doc.so";
  cell.dataset = 10;
  cell.build.type = "Debug";
  cell.build.optimized = false;
  plan.cells.push_back(cell);
  ab::AbRunOptions options;
  // No such host: the worker cannot start, and the results are finished all the same.
  options.runner.host_executable = work / "no-such-storh-host";
  options.runner.load_average = [] { return std::optional<double>(0.0); };
  options.runner.command_line = {"storh-host", "ab", "suite.toml", "--head-set", "doc.x=1"};
  options.counting_pass = false;
  Expected<ab::AbResult> result = ab::run_ab(plan, plan, options);
  REQUIRE(result.ok());
  CHECK(result->head.failures.size() == 1);
  REQUIRE(ab::write_ab_file(work / "ab.json", *result, 0.05).empty());
  const nlohmann::json file = nlohmann::json::parse(std::ifstream(work / "ab.json"));
  for (const nlohmann::json& side : {file, file["ab"]["base"]}) {
    CHECK(side["experiment"]["hostname"] == env::host_name());
    CHECK(side["experiment"]["git_commit"] == kCommit);
    CHECK(side["experiment"]["command_line"] == nlohmann::json(options.runner.command_line));
    const auto& warnings = side["environment"]["warnings"];
    CHECK(std::any_of(warnings.begin(), warnings.end(), [](const nlohmann::json& warning) {
      return warning.get<std::string>().starts_with("plugin \"doc\" is a debug build");
    }));
  }
}
