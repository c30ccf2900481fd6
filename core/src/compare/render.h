// compare/render.h: compare's output formats. Every renderer is a pure function of
// its comparison, so output is byte-stable and golden-tested.
//
// Formats:
//   text  aligned table for the terminal; warnings are not included (the CLI prints
//         them on stderr, so stdout stays a clean table);
//   md    GitHub-flavoured Markdown, ready to paste into a pull request: a heading,
//         the files, warnings as quotes, the table, a line on how significance is
//         tested;
//   csv   one line per metric with full-precision numbers, for spreadsheets;
//   json  everything, numbers at full precision, keys in a fixed order.
//
// Pair table columns: metric, base, new, delta, noise (the band the delta was judged
// against, "±2.50%", or "unmeasured" between single runs), verdict, runs (base/new,
// "?" when unknown), significance; then a geomean row ("geomean (N)", delta = ratio - 1 in
// percent, verdict). Matrix table: metric, then one column per file: the median, and
// from the second file on its ratio to the first ("x1.250"), then a geomean row.
// Medians of times print with report::format_seconds; other values with 4
// significant digits. An absent value prints "-".
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "compare/compare.h"
#include "report/html_assets.h"
#include "report/table.h"

namespace storh::compare {

enum class OutputFormat { text, markdown, csv, json };

// "text", "md", "csv", "json" (and "markdown"); nullopt for anything else.
std::optional<OutputFormat> parse_output_format(std::string_view name);

std::string render_pair(const PairComparison& comparison, OutputFormat format);
std::string render_matrix(const MatrixComparison& comparison, OutputFormat format);

// The text format's table (columns and rows, the geomean row last), for other layouts.
std::pair<std::vector<report::Column>, report::Rows> pair_table(const PairComparison& comparison);
std::pair<std::vector<report::Column>, report::Rows> matrix_table(
    const MatrixComparison& comparison);

// How the pair and matrix tables are read (the Markdown output's closing paragraph).
std::string pair_explanation(const PairComparison& comparison);
std::string_view matrix_explanation();

// HTML (docs/html-report.md): one self-contained page. Pair: the files, the warnings,
// per engine a chart of each metric's ratio new / base on its confidence interval
// (compare/ratio_interval.h; chart kind "ratios"), coloured by verdict and starred
// when significant, then the text table and how deltas are judged. Matrix: the
// files, per engine each later file's ratio to the first (kind "matrix"), the table.
std::string render_pair_html(const PairComparison& comparison, const report::HtmlAssets& assets);
std::string render_matrix_html(const MatrixComparison& comparison,
                               const report::HtmlAssets& assets);

// Shared by the renderers (and gate's): "411.3 ms" for a time, "1234" otherwise.
std::string format_value(result::MetricDirection direction, double value);
// "+2.63%": the storh harness's %+0.2f%%.
std::string format_percent(double percent);
// "x1.250"
std::string format_ratio(double ratio);

}  // namespace storh::compare
