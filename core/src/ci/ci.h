// ci/ci.h: what `storh-host ci` does once its flags are read: run the suite, gate the
// result against the stored baseline (or replace the baseline), re-run the cells of
// regressed metrics before believing a regression, and add the run to the history.
// The command line owns running a plan and printing; this folder owns the decisions.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ab/calibration.h"
#include "gate/gate.h"
#include "history/store.h"
#include "plan/plan.h"
#include "result/result.h"
#include "stats/change_points.h"
#include "util/expected.h"

namespace storh::ci {

// `--history`: the store the finished run joins, how change points are found, and the
// commit and branch to record (each falls back to the checkout the run recorded).
struct HistoryTarget {
  std::unique_ptr<history::HistoryStore> store;
  stats::ChangePointOptions options;
  std::optional<std::string> commit;
  std::optional<std::string> branch;
};

struct CiOptions {
  plan::Plan plan;
  std::filesystem::path baseline;  // the suite's [gate] baseline
  std::filesystem::path output;    // the suite's result file, rewritten after re-runs
  std::string suite_file;          // for the command that recalibrates
  gate::GateOptions gate;          // the [gate] table with the gate's flags on top
  std::uint32_t confirm = 0;       // extra runs of each regressed cell
  bool update_baseline = false;    // write the result as the baseline; no gate
  std::optional<ab::CalibrationSetting> calibration;
  std::optional<HistoryTarget> history;
};

// What ci needs from its caller. `execute` runs a plan (the whole one, or the cells to
// confirm) and fails only when it cannot run at all; `write_and_report` writes the
// result file and its report, and says why on its own when it returns false. `out` and
// `err` take the notes that must appear between runs (the confirmation, calibrated
// thresholds).
struct CiRunner {
  std::function<Expected<result::ResultFile>(const plan::Plan&)> execute;
  std::function<bool(const result::ResultFile&)> write_and_report;
  std::ostream& out;
  std::ostream& err;
};

// The run added to the history, and the change points it made (rendered here: a
// history::SeriesChange points into series that live only while they are read).
struct HistoryAdded {
  std::int64_t run_id = 0;
  std::string location;
  std::size_t new_changes = 0;
  std::string changes_text;  // history::new_changes_text of them
  bool worse = false;        // one of them is for the worse
};

// How ci ended. The caller prints, in this order: "baseline updated: PATH" when
// `baseline_updated`, the rendered `gate`, the `history` added, `error` (as
// "storh-host ci: ERROR"), that the history failed the run when `history_failed`, and
// then exits with `exit_code`.
struct CiOutcome {
  int exit_code = 0;
  std::string error;  // empty when there is nothing more to say
  bool baseline_updated = false;
  std::optional<gate::GateOutcome> gate;
  std::optional<HistoryAdded> history;
  bool history_failed = false;  // a gated run made a new change point for the worse
};

// Reads the baseline (unless updating it), runs, gates, confirms and records.
CiOutcome run_ci(CiOptions options, const CiRunner& runner);

}  // namespace storh::ci
