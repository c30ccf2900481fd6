// fuzz/make_seeds.cpp: writes the engine store seeds of the fuzz corpora, with the
// engines' own encoders, so the seeds are byte for byte what the engines write:
//
//   fuzz_make_seeds DIR    -> DIR/<target>/seed-<what>  (doc_record, doc_index,
//                             log_segment, log_manifest, queue_log)
//
// The committed corpora (fuzz/corpus/) were seeded this way, then grown and minimised
// by libFuzzer (scripts/fuzz.sh). Ids are fixed, so a rerun writes the same files.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "common/framing.h"
#include "doc/index_files.h"
#include "doc/record_file.h"
#include "log/manifest.h"
#include "log/segment_line.h"
#include "queue/queue_event.h"

namespace {

namespace fs = std::filesystem;
using storh::engines::Json;

// kIds[0] is the id doc_record_fuzz.cpp expects.
constexpr std::string_view kIds[] = {
    "0190a0b0-c0d0-7e0f-8a1b-2c3d4e5f6a7b",
    "0190a0b0-c0d1-7000-9000-000000000001",
    "0190a0b0-c0d2-7fff-bfff-ffffffffffff",
};

void write(const fs::path& dir, const std::string& target, const std::string& name,
           std::string_view bytes) {
  fs::create_directories(dir / target);
  std::ofstream out(dir / target / ("seed-" + name), std::ios::binary);
  out << bytes;
}

void doc_record(const fs::path& dir) {
  const Json object = Json::parse(R"({"name":"ada","age":36,"tags":["a","b"],"nested":{"x":1.5}})");
  write(dir, "doc_record", "object", storh::engines::doc::encode_record(kIds[0], object));
  write(dir, "doc_record", "array",
        storh::engines::doc::encode_record(kIds[0], Json::array({1, 2})));
  write(dir, "doc_record", "empty", storh::engines::doc::encode_record(kIds[0], Json::object()));
  // Hand-edited: the Jsonc reader's comments and trailing commas.
  write(dir, "doc_record", "jsonc",
        std::string("// edited\n{\"id\": \"") + std::string(kIds[0]) +
            "\", /* note */ \"data\": {\"a\": [1, 2,],},}\n");
}

void doc_index(const fs::path& dir) {
  namespace doc = storh::engines::doc;
  const std::vector<std::string> ids(std::begin(kIds), std::end(kIds));
  write(dir, "doc_index", "bucket", doc::encode_bucket("name", "s:ada", Json("ada"), ids));
  write(dir, "doc_index", "bucket-compound",
        doc::encode_bucket("name,age", "s:ada|i:36", Json::array({"ada", 36}), {ids[0]}));
  write(dir, "doc_index", "bucket-spaced",
        "{ \"field\": \"age\", \"key\": \"i:36\", \"count\": 1, \"value\": 36, \"ids\": [ \"" +
            ids[1] + "\" ] }\n");
  write(dir, "doc_index", "range",
        doc::encode_range_line("n:0000000036", Json(36), {ids[0]}, {}) +
            doc::encode_range_line("n:0000000037", Json(37.5), {ids[1], ids[2]}, {ids[0]}) +
            doc::encode_range_line("s:ada", Json("a\"da"), {}, {ids[2]}));
  write(dir, "doc_index", "checkpoints",
        doc::encode_checkpoints({{"n:0000000036", 0}, {"s:ada", 4096}}));
}

void log_segment(const fs::path& dir) {
  namespace log = storh::engines::log;
  std::string segment;
  log::append_put_line(segment, kIds[0], Json::parse(R"({"name":"ada","n":1})"));
  log::append_put_line(segment, kIds[1], Json::array({1, "two", nullptr}));
  log::append_delete_line(segment, kIds[0]);
  write(dir, "log_segment", "segment", segment);
  // Not canonical (spaced, keys reordered): decode_line parses it fully.
  write(dir, "log_segment", "put-parsed",
        storh::engines::frame(std::string(R"({ "data": {"k": [1, 2]}, "id": ")") +
                              std::string(kIds[2]) + R"(", "op": "put" })") +
            storh::engines::frame(std::string(R"({"id":")") + std::string(kIds[2]) +
                                  R"(","op":"delete","extra":1})"));
}

void log_manifest(const fs::path& dir) {
  namespace log = storh::engines::log;
  log::Manifest manifest;
  manifest.next_segment = 4;
  manifest.sealed.push_back({log::segment_file_name(1),
                             log::index_file_name(log::segment_file_name(1)), std::string(kIds[0]),
                             std::string(kIds[1]), 120, true, false});
  manifest.sealed.push_back({"compact-0a1b2c3d-000002.ndjson", "compact-0a1b2c3d-000002.idx.jsonc",
                             std::string(kIds[1]), std::string(kIds[2]), 7, false, true});
  manifest.active = {log::segment_file_name(3), "", "", "", 0, true, false};
  write(dir, "log_manifest", "manifest", log::encode_manifest(manifest));
  write(dir, "log_manifest", "manifest-new", log::encode_manifest(log::Manifest{}));
  write(dir, "log_manifest", "sparse-index",
        log::encode_sparse_index({{std::string(kIds[0]), 0}, {std::string(kIds[1]), 8192}}));
}

void queue_log(const fs::path& dir) {
  namespace queue = storh::engines::queue;
  std::string log;
  std::string scratch;
  const std::string payload = queue::normalised_payload(Json::parse(R"({"task":"mail","n":3})"));
  queue::append_enqueue_line(log, scratch, kIds[0], payload, 1'700'000'000);
  queue::append_enqueue_line(log, scratch, kIds[1], "[]", 1'700'000'001);
  queue::append_id_line(log, queue::EventOp::claim, kIds[0], 1'700'000'002);
  queue::append_complete_line(log, kIds[0], true, 1'700'000'003);
  queue::append_id_line(log, queue::EventOp::claim, kIds[1], 1'700'000'004);
  queue::append_id_line(log, queue::EventOp::requeue, kIds[1], 1'700'000'005);
  queue::append_complete_line(log, kIds[1], false, 1'700'000'006);
  queue::append_id_line(log, queue::EventOp::purge, kIds[1], 1'700'000'007);
  write(dir, "queue_log", "queue.log", log);
  // A torn tail: the last line without its LF, as a crash mid-append leaves it.
  write(dir, "queue_log", "torn", log.substr(0, log.size() - 5));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  try {
    const fs::path dir = argv[1];
    doc_record(dir);
    doc_index(dir);
    log_segment(dir);
    log_manifest(dir);
    queue_log(dir);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "make_seeds: %s\n", error.what());
    return 1;
  }
  return 0;
}
