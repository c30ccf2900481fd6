// fuzz/log_segment_fuzz.cpp: the log engine's segment line decoder on arbitrary bytes:
// every line of the input (LF-separated, as segment reads split them) through
// decode_line, and the record data of each put it accepts (line_data). A rejected line
// is data (its LineStatus); any exception, crash or sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "log/segment_line.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace log = storh::engines::log;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::size_t at = 0;
  while (at < bytes.size()) {
    std::size_t end = bytes.find('\n', at);
    if (end == std::string_view::npos) end = bytes.size();
    const log::LineView line = log::decode_line(bytes.substr(at, end - at));
    (void)log::describe(line.status);
    if (line.status == log::LineStatus::ok && line.op == log::LineOp::put) {
      (void)log::line_data(line);
    }
    at = end + 1;
  }
  return 0;
}
