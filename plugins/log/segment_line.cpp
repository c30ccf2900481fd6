#include "log/segment_line.h"

#include <charconv>

#include "common/canonical_json.h"
#include "common/fast_json.h"
#include "common/framing.h"
#include "common/hashes.h"
#include "common/uuid_v7.h"

namespace storh::engines::log {
namespace {

constexpr std::string_view kPutHead = R"({"op":"put","id":")";
constexpr std::string_view kPutDataKey = R"(","data":)";
constexpr std::string_view kDeleteHead = R"({"op":"delete","id":")";
constexpr std::string_view kDeleteTail = R"("})";
constexpr std::size_t kIdSize = uuid_v7::kTextSize;
constexpr std::size_t kPutFixed = kPutHead.size() + kIdSize + kPutDataKey.size() + 1;

// Frames the envelope that starts at out[start] in place: the JSON is already in `out`,
// so the header is inserted before it (one memmove of ~150 bytes, no second buffer).
std::size_t frame_in_place(std::string& out, std::size_t start) {
  const std::string_view json(out.data() + start, out.size() - start);
  char header[40];
  char* end = std::to_chars(header, header + 20, json.size()).ptr;
  *end++ = '\t';
  xxh32_hex_to(xxh32(json), end);
  end += 8;
  *end++ = '\t';
  out.insert(start, header, static_cast<std::size_t>(end - header));
  out.push_back('\n');
  return out.size() - start;
}

LineView full_parse(std::string_view json) noexcept {
  LineView view;
  view.json = json;
  view.status = LineStatus::not_envelope;
  try {
    const Json parsed = parse_json_or_throw(json);
    if (!parsed.is_object()) return view;
    const auto op = parsed.find("op");
    const auto id = parsed.find("id");
    if (op == parsed.end() || id == parsed.end() || !op->is_string() || !id->is_string()) {
      return view;
    }
    const auto& op_text = op->get_ref<const std::string&>();
    const auto& id_text = id->get_ref<const std::string&>();
    if (!uuid_v7::is_valid(id_text)) return view;
    if (op_text == "put") {
      view.op = LineOp::put;
    } else if (op_text == "delete") {
      view.op = LineOp::remove;
    } else {
      return view;
    }
    // The id view must point into `json`: find the parsed id's bytes there. An id is 36
    // plain characters, so its text appears verbatim (escapes cannot occur in it).
    const std::size_t at = json.find(id_text);
    if (at == std::string_view::npos) return view;
    view.id = json.substr(at, kIdSize);
    view.status = LineStatus::ok;
  } catch (...) {
  }
  return view;
}

}  // namespace

std::size_t append_put_line(std::string& out, std::string_view id, const Json& data) {
  const std::size_t start = out.size();
  out.append(kPutHead);
  out.append(id);
  out.append(kPutDataKey);
  append_compact(out, data);
  out.push_back('}');
  return frame_in_place(out, start);
}

std::size_t append_delete_line(std::string& out, std::string_view id) {
  const std::size_t start = out.size();
  out.append(kDeleteHead);
  out.append(id);
  out.append(kDeleteTail);
  return frame_in_place(out, start);
}

LineView decode_line(std::string_view line) noexcept {
  const DecodedFrame frame = decode_frame(line);
  if (frame.status != FrameStatus::ok) {
    LineView bad;
    bad.status = frame.status == FrameStatus::corrupt ? LineStatus::corrupt : LineStatus::malformed;
    return bad;
  }
  const std::string_view json = frame.json;
  LineView view;
  view.json = json;
  if (json.size() > kPutFixed && json.substr(0, kPutHead.size()) == kPutHead &&
      json.substr(kPutHead.size() + kIdSize, kPutDataKey.size()) == kPutDataKey &&
      json.back() == '}') {
    view.id = json.substr(kPutHead.size(), kIdSize);
    if (uuid_v7::is_valid(view.id)) {
      view.status = LineStatus::ok;
      view.op = LineOp::put;
      view.canonical = true;
      view.data_json = json.substr(kPutFixed - 1, json.size() - kPutFixed);
      return view;
    }
  }
  if (json.size() == kDeleteHead.size() + kIdSize + kDeleteTail.size() &&
      json.substr(0, kDeleteHead.size()) == kDeleteHead &&
      json.substr(json.size() - kDeleteTail.size()) == kDeleteTail) {
    view.id = json.substr(kDeleteHead.size(), kIdSize);
    if (uuid_v7::is_valid(view.id)) {
      view.status = LineStatus::ok;
      view.op = LineOp::remove;
      view.canonical = true;
      return view;
    }
  }
  return full_parse(json);
}

Json line_data(const LineView& line) {
  if (line.canonical) return parse_json_or_throw(line.data_json);
  Json parsed = parse_json_or_throw(line.json);
  const auto data = parsed.find("data");
  if (data == parsed.end()) return Json::array();
  return std::move(*data);
}

std::string_view describe(LineStatus status) noexcept {
  switch (status) {
    case LineStatus::ok:
      return "Valid segmented log line";
    case LineStatus::malformed:
      return "Malformed segmented log line";
    case LineStatus::corrupt:
      return "Corrupt segmented log line";
    case LineStatus::not_envelope:
      return "Segmented log line does not contain a record envelope";
  }
  return "Malformed segmented log line";
}

}  // namespace storh::engines::log
