// write_stepped_results BASE.json DIR [--second-environment]: the result files of
// stepped_results.h (20 runs of BASE, uuid.monotonic 20% slower from run 11) as
// DIR/run-01.json ...; with --second-environment also DIR/other-16.json ... other-20.json,
// the last five runs on another CPU, 10% slower (so its line shows beside the first).
// For the browser test's history page.
#include <iostream>
#include <string>

#include "stepped_results.h"

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4 || (argc == 4 && std::string(argv[3]) != "--second-environment")) {
    std::cerr << "usage: write_stepped_results BASE.json DIR [--second-environment]\n";
    return 2;
  }
  try {
    storh::test::SteppedSeries spec;
    spec.base = argv[1];
    storh::test::write_stepped_results(spec, argv[2]);
    if (argc == 4) {
      auto results = storh::test::stepped_results(spec);
      for (int run = 16; run <= 20; ++run) {
        storh::result::ResultFile other = results[static_cast<std::size_t>(run - 1)];
        other.environment.cpu_model = "Other CPU";
        for (storh::result::Metric& metric : other.metrics) {
          std::vector<double> seconds;
          for (storh::result::Sample& sample : metric.samples) {
            sample.seconds *= 1.1;
            seconds.push_back(sample.seconds);
          }
          metric.seconds = storh::stats::summarize(seconds);
        }
        const auto file = std::filesystem::path(argv[2]) / fmt::format("other-{:02}.json", run);
        if (std::string error = storh::result::write_result_file(file, other); !error.empty()) {
          throw std::runtime_error(error);
        }
      }
    }
  } catch (const std::exception& error) {
    std::cerr << "write_stepped_results: " << error.what() << '\n';
    return 1;
  }
  return 0;
}
