// result/mask_secrets.cpp: a result's texts without passwords (result.h, util/secrets.h).
#include "result/result.h"
#include "util/secrets.h"

namespace storh::result {

namespace {

void mask(std::string& text) {
  if (holds_secret(text)) text = storh::mask_secrets(text);
}

void mask(ParamValue& value) {
  if (auto* text = std::get_if<std::string>(&value)) mask(*text);
}

void mask(std::vector<Param>& params) {
  for (auto& [name, value] : params) mask(value);
}

}  // namespace

void mask_secrets(ResultFile& result) {
  for (auto& [engine, params] : result.experiment.params) {
    for (auto& [name, values] : params) {
      for (ParamValue& value : values) mask(value);
    }
  }
  for (std::string& arg : result.experiment.command_line) mask(arg);
  mask(result.experiment.suite_file);
  for (Metric& metric : result.metrics) {
    mask(metric.key);
    mask(metric.params);
    for (std::string& warning : metric.warnings) mask(warning);
  }
  for (Run& run : result.runs) mask(run.params);
  for (Failure& failure : result.failures) {
    mask(failure.params);
    mask(failure.message);
    mask(failure.stderr_tail);
  }
  for (std::string& warning : result.environment.warnings) mask(warning);
}

}  // namespace storh::result
