// record.h: the record type every engine shares (engine-spec.md section 1.1).
//
// Json is nlohmann::ordered_json because storh's data are PHP arrays: object keys keep
// insertion order, and canonical JSON (canonical_json.h) writes them in that order.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

namespace storh::engines {

using Json = nlohmann::ordered_json;

// A record is (id, data) and nothing else: no timestamps or revisions are stored; the
// creation time lives in the UUIDv7 id. `data` is a JSON object in practice, possibly a
// list; empty data is an empty array.
struct Record {
  std::string id;
  Json data;
};

// A record whose data is shared, immutable and never null: what a store hands out from
// its caches without copying the data (storh's PHP arrays are copy-on-write, so its
// reads never copy either). to_record() makes the deep copy a caller may change.
struct SharedRecord {
  std::string id;
  std::shared_ptr<const Json> data;

  Record to_record() const { return Record{id, *data}; }
};

}  // namespace storh::engines
