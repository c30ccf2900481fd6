// ycsb/core_workload.h: YCSB's CoreWorkload (site.ycsb.workloads.CoreWorkload) as a
// library: which operation comes next, on which key, with which fields and values, and
// whether a read's answer is right. The caller runs the operations and times them.
//
// Threading: one CoreWorkload is shared by every client thread and is thread-safe.
// Each thread gets its own Client from client(index) and uses it from that thread
// only. A Client points into its CoreWorkload, which must outlive it (moving the
// CoreWorkload is fine: its shared state stays where it is).
//
// Keys: the load phase inserts key numbers insertstart, insertstart + 1, ... (one
// shared sequence); run-phase inserts continue from recordcount (another shared
// sequence) and become readable once acknowledged, as in YCSB.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storh/key_value.h"
#include "util/expected.h"
#include "ycsb/properties.h"
#include "ycsb/rng.h"

namespace storh::ycsb {

enum class Op { read, update, insert, scan, read_modify_write };

// "read", "update", "insert", "scan", "read_modify_write".
std::string_view op_name(Op op);

class CoreWorkload {
 public:
  // Builds the generators as YCSB's CoreWorkload.init does. `p` must pass
  // check_properties (else throws std::invalid_argument with its problems); create()
  // returns them as an error instead. Sums zeta over recordcount items for the latest
  // distribution (O(recordcount), as YCSB).
  CoreWorkload(const Properties& p, std::uint64_t seed);
  static Expected<CoreWorkload> create(const Properties& p, std::uint64_t seed);
  ~CoreWorkload();
  CoreWorkload(CoreWorkload&&) noexcept;
  CoreWorkload& operator=(CoreWorkload&&) noexcept;

  const Properties& properties() const;

  // YCSB's buildKeyName: "user" + (ordered ? keynum : fnvhash64(keynum)), zero-padded
  // to zeropadding digits.
  std::string key_name(std::uint64_t keynum) const;
  // "field0" .. "field{fieldcount-1}".
  const std::vector<std::string>& field_names() const;

  // The record YCSB's load phase inserts for `key`: every field, in order, each at a
  // length the field length distribution draws (from `rng`). With dataintegrity each
  // value is deterministic_value(key, field, length), else random bytes.
  storh::KvRecord build_record(std::string_view key, Rng& rng) const;

  // Whether a read of `key` that asked for `asked` (empty: every field) answered
  // right: every field asked for present, no field twice or not asked for, and with
  // dataintegrity each value generation_value(key, field, g, its length) for the
  // generation g it claims (0: the loaded value; values.h) at a length the field
  // length distribution allows (fieldlength exactly when constant). Any generation
  // passes: a read racing updates of other clients cannot know which it will see.
  // Returns an empty string when right, else what is wrong, e.g.
  //   field3 of user123: expected 100 bytes starting "user123:field3:-1093...", got ...
  std::string verify(std::string_view key, const storh::KvRecord& got,
                     const std::vector<std::string>& asked) const;

  // One client thread's view of the workload: its own Rng and generators, the shared
  // key sequences. Not thread-safe: one thread only.
  class Client {
   public:
    ~Client();
    Client(Client&&) noexcept;
    Client& operator=(Client&&) noexcept;

    // The next operation, with the workload's proportions.
    Op next_op();
    // The key number for a read, update, scan or read-modify-write: a draw from the
    // request distribution, redrawn until it is at most the highest acknowledged
    // insert (YCSB's nextKeynum); for exponential, that highest key minus the draw.
    std::uint64_t next_keynum();
    // A run-phase insert's key number (recordcount, recordcount + 1, ...). Pass each
    // one to acknowledge_insert once the insert is done, succeeded or not: a key never
    // acknowledged holds every later one back from next_keynum().
    std::uint64_t next_insert_keynum();
    // Returns false if more than AcknowledgedCounterGenerator::kWindowSize inserts
    // are unacknowledged (the acknowledgement is then lost).
    bool acknowledge_insert(std::uint64_t keynum);
    // The load phase's next key number (insertstart, insertstart + 1, ...; shared by
    // every client). The caller stops after effective_insertcount() of them.
    std::uint64_t next_load_keynum();
    // A scan's length, from the scan length distribution.
    std::uint32_t next_scan_length();
    // The fields a read, scan or read-modify-write asks for: empty (every field) when
    // readallfields, else one field chosen uniformly.
    std::vector<std::string> read_fields();
    // The fields an update or read-modify-write writes: every field if writeallfields,
    // else one chosen uniformly; lengths as build_record's. With dataintegrity each
    // value is generation_value(key, field, g, length) for a generation g > 0 no other
    // call of any client takes, so an update always changes the stored bytes (when the
    // length holds "g<g>:"). Without it, random bytes as build_record's.
    storh::KvRecord update_values(std::string_view key);
    // This client's random source (for build_record and the caller's own draws).
    Rng& rng();

   private:
    friend class CoreWorkload;
    struct State;
    explicit Client(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
  };

  // Client `index` (0 .. clients - 1), its Rng seeded from (seed, index).
  Client client(std::uint32_t index);

 private:
  struct Shared;
  std::unique_ptr<Shared> shared_;
};

}  // namespace storh::ycsb
