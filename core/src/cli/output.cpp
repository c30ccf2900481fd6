#include "cli/output.h"

#include <fmt/format.h>

#include "util/files.h"

namespace storh::cli {

std::optional<std::string> output_flag(const ParsedArgs& args) {
  if (std::optional<std::string> output = args.last("output")) return output;
  return args.last("o");
}

std::string output_problem(std::string_view command, const std::optional<std::string>& output,
                           std::string_view flag) {
  if (!output) return "";
  const std::string problem = check_output_file(*output);
  return problem.empty() ? "" : fmt::format("storh-host {}: {}: {}", command, flag, problem);
}

Expected<report::HtmlAssets> html_assets_for(std::string_view command, bool html) {
  if (!html) return report::HtmlAssets{};
  Expected<report::HtmlAssets> assets = report::load_html_assets();
  if (!assets) return Error{fmt::format("storh-host {}: {}", command, assets.error())};
  return assets;
}

void note_directory_created(std::string_view command, const std::filesystem::path& file,
                            const CommandIo& io) {
  if (const std::filesystem::path made = directory_to_create(file); !made.empty()) {
    io.err << fmt::format("storh-host {}: creating directory {} for {}\n", command, made.string(),
                          file.string());
  }
}

int write_output(std::string_view command, const std::string& text,
                 const std::optional<std::string>& output, const CommandIo& io) {
  if (!output) {
    io.out << text;
    return kExitOk;
  }
  note_directory_created(command, *output, io);
  if (const std::string problem = write_file_atomically(*output, text); !problem.empty()) {
    io.err << fmt::format("storh-host {}: {}\n", command, problem);
    return kExitRunFailed;
  }
  io.out << fmt::format("{}: {}\n", command, *output);
  return kExitOk;
}

int write_junit(std::string_view command, const std::string& xml, const std::string& file,
                const CommandIo& io) {
  if (const std::string problem = write_file_atomically(file, xml); !problem.empty()) {
    io.err << fmt::format("storh-host {}: --junit: {}\n", command, problem);
    return kExitRunFailed;
  }
  io.err << fmt::format("{}: JUnit report {}\n", command, file);
  return kExitOk;
}

Expected<compare::OutputFormat> output_format(const ParsedArgs& args, bool allow_csv,
                                              std::string_view also) {
  const std::string name = args.last("format").value_or("text");
  const auto format = compare::parse_output_format(name);
  if (!format || (!allow_csv && *format == compare::OutputFormat::csv)) {
    return Error{fmt::format("--format: unknown format \"{}\" (valid: text, md, {}json{})", name,
                             allow_csv ? "csv, " : "", also)};
  }
  return *format;
}

}  // namespace storh::cli
