// `storh-host merge SHARD.json... [-o FILE]`: the shards of one suite joined into one
// result file (result/merge.h).
#include <fmt/format.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "result/json.h"
#include "result/merge.h"

namespace storh::cli {

int merge_command(const std::vector<std::string>& raw_args, const CommandIo& io) {
  Expected<ParsedArgs> args = parse_command_args("merge", raw_args);
  if (!args || args->positional.empty()) {
    io.err << "storh-host merge: "
           << (args ? "expected the shard result files (storh-host merge SHARD.json... -o FILE)"
                    : args.error())
           << '\n';
    return kExitBadInput;
  }
  const std::optional<std::string> output = output_flag(*args);
  if (const std::string problem = output_problem("merge", output); !problem.empty()) {
    io.err << problem << '\n';
    return kExitBadInput;
  }
  std::vector<result::NamedResult> shards;
  for (const std::string& path : args->positional) {
    Expected<result::ResultFile> read = result::read_result_file(path);
    if (!read) {
      io.err << "storh-host merge: " << read.error() << '\n';
      return kExitBadInput;
    }
    shards.push_back({path, std::move(*read)});
  }
  Expected<result::ResultFile> merged = result::merge_shards(shards);
  if (!merged) {
    io.err << "storh-host merge: " << merged.error() << '\n';
    return kExitBadInput;
  }
  for (const std::string& warning : result::warnings_added_by_merge(shards, *merged)) {
    io.err << "warning: " << warning << '\n';
  }
  return write_output("merge", result::to_json_text(*merged), output, io);
}

}  // namespace storh::cli
