// The worker's request (worker/request.h): what the host writes with to_argv() the
// worker reads back with from_argv(), and a bad argument is refused with the flag and
// what it expected.
#include "worker/request.h"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "test_support.h"

using storh::ParamValue;
using storh::test::contains;
using storh::worker::WorkerRequest;

namespace {

WorkerRequest round_trip(const WorkerRequest& request) {
  const std::vector<std::string> argv = request.to_argv("/opt/storh/storh-host");
  REQUIRE(argv.size() > 2);
  CHECK(argv[0] == "/opt/storh/storh-host");
  CHECK(argv[1] == "__worker");
  // The host's executable is not the worker's business: it reads what follows it.
  const auto read = WorkerRequest::from_argv({argv.begin() + 1, argv.end()});
  REQUIRE(read.ok());
  return *read;
}

// from_argv(`__worker` + flags) fails with a message that contains `reason`.
void refused(const std::vector<std::string>& flags, const std::string& reason) {
  std::vector<std::string> args{"__worker"};
  args.insert(args.end(), flags.begin(), flags.end());
  const auto read = WorkerRequest::from_argv(args);
  INFO(reason);
  REQUIRE_FALSE(read.ok());
  CHECK(contains(read.error(), reason));
}

}  // namespace

TEST_CASE("worker request: every field survives to_argv and from_argv", "[worker][request]") {
  WorkerRequest timed;
  timed.plugin = "/plugins/storh_doc.so";
  timed.name = "doc";
  timed.dataset = 100000;
  timed.work_dir = "/tmp/work root/c000-doc-r0";
  timed.operations = {"put", "get", "stream"};
  timed.params = {{"durability", ParamValue(std::string("none"))},
                  {"batch", ParamValue(std::int64_t{64})},
                  {"ratio", ParamValue(0.1)},
                  {"index", ParamValue(true)}};
  timed.min_time = 0.025;
  timed.inject_slowdown = 0.05;
  CHECK(round_trip(timed) == timed);

  WorkerRequest counting = timed;
  counting.min_time.reset();
  counting.inject_slowdown.reset();
  counting.count = storh::count::Instrument::instructions;
  CHECK(round_trip(counting) == counting);

  WorkerRequest load = timed;
  load.load = storh::load::LoadConfig{};
  load.load->clients = 4;
  load.load->duration_seconds = 2.5;
  load.load->rate = 1000;
  load.load->mode = storh::load::ClientMode::processes;
  CHECK(round_trip(load) == load);

  // The fewest flags: nothing optional is written, and an empty list stays empty.
  WorkerRequest bare;
  bare.plugin = "p.so";
  const std::vector<std::string> argv = bare.to_argv("host");
  CHECK(argv == std::vector<std::string>{"host", "__worker", "--plugin=p.so", "--name=",
                                         "--dataset=0", "--work-dir=", "--ops=", "--params={}"});
  CHECK(round_trip(bare) == bare);
}

TEST_CASE("worker request: a bad argument names the flag and what it expected",
          "[worker][request]") {
  const std::string plugin = "--plugin=p.so";
  const std::string dataset = "--dataset=10";
  refused({plugin, "--dataset=ten"}, "--dataset: expected a whole number, got \"ten\"");
  refused({plugin, dataset, "--min-time=soon"}, "--min-time: expected a number of seconds");
  refused({plugin, dataset, "--inject-slowdown=x"}, "--inject-slowdown: expected a fraction");
  refused({plugin, dataset, "--count=cycles"},
          "--count: unknown instrument \"cycles\" (valid: instructions, syscalls)");
  refused({plugin, dataset, "--params=[1]"}, "--params: expected a JSON object");
  refused({plugin, dataset, "--params={\"a\":[1]}"},
          "--params: the value of \"a\" is not a string, number or boolean");
  refused({plugin, dataset, "--load={"}, "--load: expected a load configuration as JSON");
  refused({plugin, dataset, "--load={\"clients\": \"two\"}"},
          "load: malformed configuration: /clients: expected a whole number >= 0, got string");
  refused({plugin, dataset, "--colour=red"}, "unknown flag --colour (valid: --plugin, --name, ");
  refused({plugin, dataset, "--dataset=11"}, "--dataset is given twice");
  refused({plugin, dataset, "verbose"}, "argument \"verbose\": expected --flag=value");
  refused({dataset}, "--plugin is required");
  refused({plugin}, "--dataset is required");
  CHECK_FALSE(WorkerRequest::from_argv({"__describe", plugin, dataset}).ok());
}
