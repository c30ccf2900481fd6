// ycsb/kv_transactions.h: a plugin's KeyValueStore seen as host-side Transactions,
// so load/driver.h runs YCSB's two phases (docs/ycsb.md).
//
// Type kLoadType inserts the next record of the load sequence; type kRunType runs
// one operation of the mix (read, update, insert, scan or read-modify-write), each
// read and scan row verified with CoreWorkload::verify. A wrong answer, a not-found
// for a key the workload says exists, or an engine error is a failed transaction
// whose message says which operation, which key and what was wrong.
//
// A read-modify-write is one run-phase transaction (timed whole, under its own kind);
// as YCSB's DB layer does, its read and its update are also timed on their own (from
// their own start, also under a target rate) and kept apart for rmw_parts().
//
// Ownership and threading: `store` and `workload` outlive this object. open_client
// is called concurrently for distinct client indices, each of which keeps one
// CoreWorkload::Client (its random stream) across both phases. A KvClient is used by
// its thread only; it holds the engine session, dropped when the client is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "load/client_loop.h"
#include "load/outcome.h"
#include "storh/key_value.h"
#include "storh/transactions.h"
#include "ycsb/core_workload.h"

namespace storh::ycsb {

inline constexpr std::size_t kLoadType = 0;
inline constexpr std::size_t kRunType = 1;
// Kinds of the run phase as load::KindSplit counts them: static_cast<size_t>(Op).
inline constexpr std::size_t kKindCount = 5;

class KvTransactions final : public Transactions {
 public:
  KvTransactions(KeyValueStore& store, CoreWorkload& workload, std::uint32_t clients);

  std::vector<TransactionSpec> describe() const noexcept override;
  Status open_client(const RunContext& ctx, const ClientInfo& client,
                     std::unique_ptr<Client>& out) noexcept override;

  // Splits run-phase transactions by Op (load::KindSplit for load::PhaseShape).
  static const load::KindSplit& kinds();

  // The reads and updates that read-modify-writes made since the last call, merged
  // over the clients, indexed by Op (only read and update filled; kKindCount long),
  // then forgotten. Call between phases, when no client runs.
  std::vector<load::KindOutcome> take_rmw_parts();

  // One client's read-modify-write parts (indexed by Op).
  using RmwParts = std::vector<load::KindOutcome>;

 private:
  KeyValueStore& store_;
  CoreWorkload& workload_;
  // One per client index, made by that client's first open_client.
  std::vector<std::unique_ptr<CoreWorkload::Client>> generators_;
  // One per client index, written by that client's thread only.
  std::vector<std::unique_ptr<RmwParts>> rmw_parts_;
};

}  // namespace storh::ycsb
