// compare/compare.h: what changed between result files, as data; render.h prints it.
//
// Two files (compare_pair): per metric the base and new medians, the delta in
// percent as the storh harness computes it, a direction-aware verdict that reads
// `same` inside the measured noise (see noise_band_percent), and a significance
// test where both sides have enough samples. Metrics only in NEW are
// `new`, metrics only in BASE are `missing`: shown, never dropped. A geometric-mean
// row summarises the metrics present on both sides.
//
// N files (compare_matrix): one row per metric, one column per file, each cell the
// median and its ratio to the first file's median.
//
// Row order, both: the first file's metrics in file order, then metrics that only
// later files have, in the order they first appear. Everything is deterministic.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "compare/comparable.h"
#include "compare/mann_whitney.h"

namespace storh::compare {

struct CompareOptions {
  double alpha = kDefaultAlpha;  // significance level of the Mann-Whitney test, in (0, 1)
};

enum class RowStatus { both, only_new, only_base };
// slower/faster/same for metrics on both sides; added = only in NEW ("new"),
// missing = only in BASE.
enum class Verdict { slower, faster, same, added, missing };

std::string_view verdict_name(Verdict verdict);  // "slower", ..., "new", "missing"

struct Significance {
  std::optional<MannWhitney> test;  // absent: not testable, `text` says why
  bool significant = false;         // test->p_value < alpha
  // "p=0.029 significant", "p=0.310 not significant",
  // "too few samples (need >= 4 per side)", "no samples in file (summary only)" for a
  // storh PHP repeat.php file.
  std::string text;
};

struct PairRow {
  std::string key;
  RowStatus status = RowStatus::both;
  std::optional<ComparableMetric> base;  // absent for only_new
  std::optional<ComparableMetric> next;  // absent for only_base
  // (new - base) / base * 100, 0 when base is 0 (the storh harness's rule); 0 unless
  // status is both. Not direction-normalised: a rate that halves reads -50%.
  double delta_percent = 0;
  // For status both: the noise band the delta was judged against (noise_band_percent).
  // Absent when neither side has the two values a spread needs; the verdict is then
  // `same`, since one run against one run cannot tell a change from noise.
  std::optional<double> noise_percent;
  Verdict verdict = Verdict::same;
  std::optional<Significance> significance;  // for status both
};

// Geometric mean of the direction-normalised ratios (see slowdown_ratio) of the
// metrics present on both sides with non-zero medians: > 1 means slower overall.
struct Geomean {
  std::optional<double> ratio;  // absent when no metric qualifies
  std::size_t metrics = 0;      // how many entered the mean
  std::size_t skipped = 0;      // on both sides but with a zero median
};

struct PairComparison {
  std::string base_name;
  std::string new_name;
  FileKind base_kind = FileKind::storh_host_v1;
  FileKind new_kind = FileKind::storh_host_v1;
  double alpha = kDefaultAlpha;
  std::vector<PairRow> rows;
  Geomean geomean;
  std::vector<std::string> warnings;  // difference_warnings of the two files
};

PairComparison compare_pair(const ComparableFile& base, const ComparableFile& next,
                            const CompareOptions& options = {});

struct MatrixCell {
  std::optional<double> median;  // absent when the file lacks the metric
  // median / the first file's median (not direction-normalised: 2.0 is twice the
  // value); absent in the first column, when either is absent, or the first is 0.
  std::optional<double> ratio;
};

struct MatrixRow {
  std::string key;
  std::string unit;  // from the first file that has the metric
  result::MetricDirection direction = result::MetricDirection::lower_is_better;
  std::vector<MatrixCell> cells;  // one per file
};

struct MatrixComparison {
  std::vector<std::string> names;
  std::vector<FileKind> kinds;
  std::vector<MatrixRow> rows;
  // One per file: the geometric mean of each column against the first file, over
  // the metrics both have (direction-normalised, > 1 slower). The first is empty.
  std::vector<Geomean> geomeans;
  std::vector<std::string> warnings;  // difference_warnings of all files vs the first
};

// Precondition: at least one file.
MatrixComparison compare_matrix(const std::vector<const ComparableFile*>& files);

// The storh harness's delta: 0 when base is 0, else (next - base) / base * 100.
double delta_percent(double base, double next);

// How much slower `next` is than `base` as a factor, whichever way is better:
// next/base for times, base/next for higher_is_better values. nullopt when the
// denominator is 0.
std::optional<double> slowdown_ratio(result::MetricDirection direction, double base, double next);

// The smallest noise band, in percent: differences of noise-free runs (a median that
// moved by 0.3% between identical builds) still read `same`.
inline constexpr double kNoiseFloorPercent = 1.0;

// How far one side's values spread, in percent of their centre: the coefficient of
// variation (sample stddev / mean) of its samples when it has two or more, which is
// the `cv` column of the report; for a summary-only side (PHP repeat.php) with two or
// more runs, half its min..max range over its median. nullopt for a single value, an
// unknown run count, or a zero centre.
std::optional<double> spread_percent(const ComparableMetric& metric);

// The band within which a delta is noise, criterion's noise threshold made adaptive:
// the larger spread_percent of the two sides, never below kNoiseFloorPercent. When
// only one side's spread is known it decides; nullopt when neither is known.
std::optional<double> noise_band_percent(const ComparableMetric& base,
                                         const ComparableMetric& next);

// The significance verdict for two metrics at alpha (see Significance::text).
Significance test_significance(const ComparableMetric& base, const ComparableMetric& next,
                               double alpha);

}  // namespace storh::compare
