// cli/output.h: where report and compare put what they render: stdout, or a file
// named by --output=FILE or -o FILE.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "cli/args.h"
#include "cli/commands.h"
#include "compare/render.h"
#include "report/html_assets.h"
#include "util/expected.h"

namespace storh::cli {

// --format as compare, gate, ab and calibrate read it (default text). Formats that
// print verdicts have no CSV form (`allow_csv` false: a verdict is no table of
// numbers); `also` names the formats the caller handles itself (", html").
Expected<compare::OutputFormat> output_format(const ParsedArgs& args, bool allow_csv,
                                              std::string_view also = "");

// The file named by --output (the last one given), else by -o, or nullopt for stdout.
std::optional<std::string> output_flag(const ParsedArgs& args);

// Whether the output can be written (util/files.h check_output_file): empty when it
// can, else "storh-host <command>: --output: <why>" for stderr, with exit 2. `flag`
// names another file flag that is checked the same way ("--junit").
std::string output_problem(std::string_view command, const std::optional<std::string>& output,
                           std::string_view flag = "--output");

// Chart.js for an html page when `html`, else empty assets (the other formats need
// none); the error reads "storh-host <command>: <why>".
Expected<report::HtmlAssets> html_assets_for(std::string_view command, bool html);

// Says on stderr which directory writing `file` will create, if any ("storh-host run:
// creating directory out for out/r.json"): a typo in a path should not go unseen.
void note_directory_created(std::string_view command, const std::filesystem::path& file,
                            const CommandIo& io);

// Writes `text` to stdout, or atomically to `output` and says "<command>: FILE" on
// stdout. kExitOk, or kExitRunFailed with the reason on stderr.
int write_output(std::string_view command, const std::string& text,
                 const std::optional<std::string>& output, const CommandIo& io);

// Writes a JUnit report (gate and ab --junit=FILE, publish/junit.h) atomically and says
// "<command>: JUnit report FILE" on stderr, since stdout holds the verdict in the format
// asked for. kExitOk, or kExitRunFailed with the reason on stderr.
int write_junit(std::string_view command, const std::string& xml, const std::string& file,
                const CommandIo& io);

}  // namespace storh::cli
