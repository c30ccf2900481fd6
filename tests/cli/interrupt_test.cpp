// Ctrl-C (here SIGTERM, handled the same way) and a closed terminal (SIGHUP) stop the
// worker, remove the work directories and write the partial result marked interrupted.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "process/child_process.h"
#include "test_support.h"

using storh::test::ScratchDir;

TEST_CASE("cli: an interrupted run writes a partial result and cleans up", "[cli][interrupt]") {
  // SIGHUP: regression, a closed terminal lost the run (exit 129, no result, the work
  // directory left behind).
  const int stop_signal = GENERATE(SIGTERM, SIGHUP);
  INFO("signal " << stop_signal);
  ScratchDir dir;
  const auto output = dir / "hang.json";
  const auto work = dir / "work";
  std::atomic<bool> cancel{false};
  storh::process::ProcessOptions options;
  options.argv = {STORH_TEST_HOST,
                  std::string(STORH_TEST_SOURCE_DIR) + "/tests/fixtures/suites/hang.toml",
                  std::string("--plugin-path=") + STORH_TEST_FIXTURE_DIR,
                  "--output=" + output.string(), "--work-dir=" + work.string()};
  options.cancel = &cancel;
  options.stop_signal = stop_signal;
  options.capture_stdout = true;  // the report; the test reads the result file
  options.timeout_seconds = 120;
  options.kill_grace_seconds = 60;  // the host needs time to write its partial result  // a safety
                                    // net for a broken build, not a measurement

  // Interrupt once the hanging worker's directory exists, i.e. the cell is running.
  std::thread interrupter([&] {
    for (int i = 0; i < 3000 && !cancel.load(); ++i) {
      std::error_code ec;
      for (const auto& root : std::filesystem::directory_iterator(work, ec)) {
        // A run's directory, not the root's own lock file (run/work_root.h).
        for (const auto& run : std::filesystem::directory_iterator(root.path(), ec)) {
          if (run.is_directory(ec)) cancel.store(true);
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    cancel.store(true);
  });
  const storh::process::ProcessOutcome outcome = storh::process::run_process(options);
  interrupter.join();

  INFO(outcome.stderr_tail);
  REQUIRE(outcome.exit_code.has_value());
  CHECK(*outcome.exit_code == 130);
  const nlohmann::json result = nlohmann::json::parse(storh::test::read_text(output));
  CHECK(result["interrupted"] == true);
  REQUIRE(result["failures"].size() == 1);
  CHECK(result["failures"][0]["kind"] == "interrupted");
  CHECK(std::filesystem::is_empty(work));
}
