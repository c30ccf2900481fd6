// foreign/google_benchmark_context.h: a Google Benchmark file's "context" as the
// experiment and environment of a storh-host result.
//
// What maps to what (docs/integrations.md has the table):
//   date                -> environment.time, converted to UTC ("2026-12-04T21:08:52+01:00"
//                          is "2026-12-04T20:08:52Z"); kept as written when it is not
//                          ISO-8601 with an offset (history add then asks for --time)
//   host_name           -> experiment.hostname
//   executable          -> experiment.suite (its file name), suite_file and command_line
//   num_cpus            -> environment.cpu_count
//   mhz_per_cpu, caches -> environment.cpu_model ("2096 MHz, L1 Data 32 KiB, ..."), the
//                          CPU as far as the file describes it
//   library_build_type  -> environment.build_type, and a warning when "debug"
//   library_version     -> the engine record's version
//   cpu_scaling_enabled -> a warning when true
// Everything else (load_avg, json_schema_version) is not carried over.
#pragma once

#include <string>

#include "result/result.h"
#include "util/json_node.h"

namespace storh::foreign {

struct GoogleBenchmarkContext {
  result::Experiment experiment;  // suite, suite_file, command_line, hostname
  result::Environment environment;
  std::string executable_name;  // the executable's file name; "google-benchmark" when absent
  std::string library_version;  // "unknown" when absent
};

// Throws BadJsonValue (util/json_node.h) for a field of the wrong type.
// Precondition: context is an object.
GoogleBenchmarkContext read_google_benchmark_context(const JsonNode& context);

}  // namespace storh::foreign
