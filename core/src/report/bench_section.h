// report/bench_section.h: a load run's benches ([[load.bench]], docs/load.md) as the
// pgbench study printed them: one table per bench, transaction type and engine, whose
// rows are the sides and whose columns are the bench's points.
//
// A side is what tells an engine's load cells apart other than clients and
// transactions: the metric key's qualifiers without "clients=", "transactions=" and
// "duration=" ("synchronous_commit=off", "n=1000,shards=4"). Sides are listed in the
// order the run's matrix had them (the suite's order of datasets and parameter values,
// as the experiment records them; a value it does not record comes last); an engine
// with a single side without qualifiers has one row labelled with the engine's name. A side none of
// whose cells left a metric (every run failed) has no row: the failures list says why.
//
// Per table, one grid per metric: tps excluding set-up, tps including set-up (means
// over the repeats, one decimal), latency p50, p95 and p99 in milliseconds (three
// decimals; merged over clients and repeats), then "failed" (failed transactions) when
// some cell of the table had failures. "-" marks a cell without a metric (not run, or
// every repeat failed) and a percentile too few transactions support.
//
// A bench's transaction type gets a table for an engine when the engine ran it (the
// experiment's engine record lists it) or has a metric of it. Pure functions of their
// input, like the rest of the report.
#pragma once

#include <string>
#include <vector>

#include "report/report.h"
#include "result/result.h"

namespace storh::report {

// The section for one engine: `metrics` are its metrics in report order; the benches,
// the engine record's operations and the matrix's order come from `experiment`. Empty
// when no bench has a table for the engine.
// Text: per table a "  <bench name>: <operation> (repeats: k)" line, then per metric
// its name indented by four spaces and the grid by six. Markdown: per table a
// "### <engine>: <bench name>: <operation> (repeats: k)" heading, then per metric a
// bold name line and a table.
std::string bench_section(const std::string& engine,
                          const std::vector<const result::Metric*>& metrics,
                          const result::Experiment& experiment, ReportFormat format);

}  // namespace storh::report
