// Byte-exact formats of engine-spec.md sections 5.2 (segment lines) and 5.3 (manifest and
// sparse index), and a log laid out by hand the way storh's PHP library writes it.
#include <catch2/catch.hpp>
#include <string>

#include "common/bench/bench_row.h"
#include "common/framing.h"
#include "log/manifest.h"
#include "log/segment_line.h"
#include "log/segmented_log.h"
#include "log_test_support.h"

namespace lg = storh::engines::log;
using storh::engines::Json;

namespace {
constexpr const char* kId = "018bcfe5-6800-787f-8822-125c8ee43b63";
constexpr const char* kId2 = "018bcfe5-6801-7000-8000-000000000001";
}  // namespace

TEST_CASE("log format: a delete line is the engine-spec.md 5.2 fixture byte for byte",
          "[log][format]") {
  std::string line;
  const std::size_t size = lg::append_delete_line(line, kId);
  CHECK(size == line.size());
  CHECK(line ==
        "59\t5a0444ec\t{\"op\":\"delete\",\"id\":\"018bcfe5-6800-787f-8822-125c8ee43b63\"}\n");
}

TEST_CASE("log format: a benchmark put line is canonical and 151 bytes of JSON", "[log][format]") {
  std::string line;
  lg::append_put_line(line, kId, storh::engines::bench_row(0));
  const std::string json =
      std::string(R"({"op":"put","id":")") + kId +
      R"(","data":{"kind":"page","status":"draft","bucket":0,"slug":"item-0","publishedAt":1700000000000}})";
  CHECK(json.size() == 151);
  CHECK(line == storh::engines::frame(json));
  CHECK(line.rfind("151\t", 0) == 0);
}

TEST_CASE("log format: empty data is written as []", "[log][format]") {
  std::string line;
  lg::append_put_line(line, kId, Json::object());
  CHECK(line.find(R"("data":[]})") != std::string::npos);
}

TEST_CASE("log format: decoding recognises storh's envelopes and rejects bad frames",
          "[log][format]") {
  std::string put;
  lg::append_put_line(put, kId, Json{{"a", 1}});
  put.pop_back();
  lg::LineView view = lg::decode_line(put);
  REQUIRE(view.status == lg::LineStatus::ok);
  CHECK(view.canonical);
  CHECK(view.op == lg::LineOp::put);
  CHECK(view.id == kId);
  CHECK(view.data_json == R"({"a":1})");
  CHECK(lg::line_data(view) == Json{{"a", 1}});

  SECTION("a CR before the LF is tolerated") {
    CHECK(lg::decode_line(put + "\r").status == lg::LineStatus::ok);
  }
  SECTION("a non-canonical envelope is parsed fully") {
    const std::string json =
        std::string(R"({"id": ")") + kId + R"(", "op": "put", "data": {"b": 2}})";
    std::string framed = storh::engines::frame(json);
    framed.pop_back();
    view = lg::decode_line(framed);
    REQUIRE(view.status == lg::LineStatus::ok);
    CHECK_FALSE(view.canonical);
    CHECK(view.id == kId);
    CHECK(lg::line_data(view) == Json{{"b", 2}});
  }
  SECTION("a wrong length is malformed, a wrong checksum corrupt") {
    CHECK(lg::decode_line("99\tbad\t{\"op\":\"put\"").status == lg::LineStatus::malformed);
    std::string wrong = put;
    wrong[wrong.find('\t') + 1] = wrong[wrong.find('\t') + 1] == '0' ? '1' : '0';
    CHECK(lg::decode_line(wrong).status == lg::LineStatus::corrupt);
    CHECK(lg::decode_line("broken").status == lg::LineStatus::malformed);
  }
  SECTION("JSON that is not an envelope is rejected") {
    std::string framed = storh::engines::frame(R"({"op":"put"})");
    framed.pop_back();
    CHECK(lg::decode_line(framed).status == lg::LineStatus::not_envelope);
  }
}

TEST_CASE("log format: the initial manifest and a sealed entry are byte exact", "[log][format]") {
  lg::Manifest manifest;
  manifest.active.file = "seg-000001.ndjson";
  CHECK(
      lg::encode_manifest(manifest) ==
      R"({"nextSegment":2,"sealed":[],"active":{"file":"seg-000001.ndjson","max":null,"min":null,"records":0,"ordered":true}})"
      "\n");
  lg::SegmentEntry sealed{"compact-0a1b2c3d-000001.ndjson",
                          "compact-0a1b2c3d-000001.idx.jsonc",
                          kId,
                          kId2,
                          2,
                          true,
                          true};
  manifest.sealed.push_back(sealed);
  manifest.next_segment = 3;
  manifest.active = {"seg-000002.ndjson", "", kId2, kId2, 1, false, false};
  const std::string text = lg::encode_manifest(manifest);
  CHECK(
      text ==
      std::string(
          R"({"nextSegment":3,"sealed":[{"file":"compact-0a1b2c3d-000001.ndjson","index":"compact-0a1b2c3d-000001.idx.jsonc","max":")") +
          kId2 + R"(","min":")" + kId +
          R"(","records":2,"ordered":true,"compacted":true}],"active":{"file":"seg-000002.ndjson","max":")" +
          kId2 + R"(","min":")" + kId2 + R"(","records":1,"ordered":false}})" + "\n");
  const lg::Manifest decoded = lg::decode_manifest(text, "test");
  CHECK(lg::encode_manifest(decoded) == text);
}

TEST_CASE("log format: the sparse index file is byte exact", "[log][format]") {
  CHECK(lg::encode_sparse_index({{kId, 0}, {kId2, 153}}) ==
        std::string(R"({"entries":[{"id":")") + kId + R"(","offset":0},{"id":")" + kId2 +
            R"(","offset":153}]})" + "\n");
  const auto decoded = lg::decode_sparse_index(lg::encode_sparse_index({{kId, 7}}));
  REQUIRE(decoded);
  CHECK(decoded->at(0).offset == 7);
}

TEST_CASE("log format: a log laid out by storh's PHP library opens and reads", "[log][format]") {
  log_test::Scratch scratch;
  const auto dir = scratch.path() / "php";
  std::string seg1;
  lg::append_put_line(seg1, kId, Json{{"n", 1}});
  std::string seg2;
  lg::append_put_line(seg2, kId2, Json{{"n", 2}});
  lg::append_delete_line(seg2, kId);
  log_test::write_text(dir / "segments" / "seg-000001.ndjson", seg1);
  log_test::write_text(dir / "segments" / "seg-000001.idx.jsonc",
                       lg::encode_sparse_index({{kId, 0}}));
  log_test::write_text(dir / "segments" / "seg-000002.ndjson", seg2);
  // Stale active statistics, as storh leaves them between rolls.
  log_test::write_text(
      dir / "manifest.jsonc",
      std::string(
          R"({"nextSegment":3,"sealed":[{"file":"seg-000001.ndjson","index":"seg-000001.idx.jsonc","max":")") +
          kId + R"(","min":")" + kId +
          R"(","records":1,"ordered":true}],"active":{"file":"seg-000002.ndjson","max":null,"min":null,"records":0,"ordered":true}})" +
          "\n");
  lg::SegmentedLog log(scratch.path(), "php", {256, 64, storh::engines::Sync::none});
  CHECK_FALSE(log.get(kId));
  REQUIRE(log.get(kId2));
  CHECK(log.get(kId2)->data == Json{{"n", 2}});
  CHECK(log.stats() == lg::LogStats{2, 1, 1, seg1.size() + seg2.size()});
  // The reopen rewrote the manifest with fresh statistics of the active segment.
  const lg::Manifest manifest =
      lg::decode_manifest(log_test::read_text(dir / "manifest.jsonc"), "manifest");
  CHECK(manifest.active.records == 2);
  CHECK(manifest.active.ordered == false);
}
