// Transactions of the doc engine for load runs (docs/load.md): clients sharing one
// collection, each with its own DocStore (the "connection": opening it is untimed).
//
//   put_get  put a new record {"client", "seq", ...bench row}, read it back, compare
//            (read-write; one durable put: temp file, fsync, rename, directory fsync)
//   get      read one of the dataset's records (the scale, loaded by prepare) and
//            compare it with the row it was written from (read-only)
//
// finish() checks the collection holds the dataset plus one record per successful
// put_get.
#include <cstdint>
#include <string>
#include <vector>

#include "common/bench/bench_row.h"
#include "common/durable_io.h"
#include "common/uuid_v7.h"
#include "doc/bench/doc_params.h"
#include "doc/doc_store.h"
#include "storh/transactions.h"

namespace {

using storh::Status;
namespace engines = storh::engines;
namespace doc = storh::engines::doc;

constexpr const char* kCollection = "load";
constexpr std::size_t kPutGet = 0;

doc::DocStoreOptions options_of(const storh::RunContext& ctx) {
  doc::DocStoreOptions options;
  options.sync = doc::durability(ctx);
  return options;
}

class DocClient final : public storh::Client {
 public:
  DocClient(const storh::RunContext& ctx, std::uint32_t index,
            const std::vector<std::string>& dataset_ids)
      : store_(ctx.work_dir(), kCollection, options_of(ctx)), index_(index), ids_(dataset_ids) {}

  Status run_transaction(std::size_t type, std::uint64_t sequence) noexcept override {
    return storh::guarded(type == kPutGet ? "put_get" : "get", [&]() -> Status {
      return type == kPutGet ? put_get(sequence) : get(sequence);
    });
  }

 private:
  Status put_get(std::uint64_t sequence) {
    engines::Json data = engines::bench_row(sequence);
    data["client"] = index_;
    const engines::Record stored = store_.put(data);
    const std::optional<engines::Record> read = store_.get(stored.id);
    if (!read || read->data != data) {
      return Status::error("put_get: record " + stored.id + " read back " +
                           (read ? read->data.dump() : std::string("nothing")) + ", expected " +
                           data.dump());
    }
    return {};
  }

  Status get(std::uint64_t sequence) {
    if (ids_.empty()) return Status::error("get: the dataset is empty");
    // Spread the clients over the dataset; any record, any order.
    const std::uint64_t i = (sequence * 7919 + std::uint64_t{index_} * 104729) % ids_.size();
    const std::optional<engines::Record> read = store_.get(ids_[i]);
    if (!read || read->data != engines::bench_row(i)) {
      return Status::error("get: record " + ids_[i] + " (row " + std::to_string(i) +
                           ") read back " + (read ? read->data.dump() : std::string("nothing")));
    }
    return {};
  }

  doc::DocStore store_;
  std::uint32_t index_;
  const std::vector<std::string>& ids_;
};

class DocTransactions final : public storh::Transactions {
 public:
  std::vector<storh::TransactionSpec> describe() const noexcept override {
    return {{"put_get", "put one durable record, read it back and compare", false},
            {"get", "read one record of the dataset and compare it", true}};
  }

  // The scale: dataset_size() bench rows, written once with the bulk protocol. The
  // ids are kept here; thread clients share them, process clients inherit a copy.
  Status prepare(storh::RunContext& ctx) noexcept override {
    return storh::guarded("prepare", [&] {
      const std::uint64_t n = ctx.dataset_size();
      std::vector<engines::Json> rows;
      rows.reserve(n);
      ids_.clear();
      for (std::uint64_t i = 0; i < n; ++i) {
        ids_.push_back(
            engines::uuid_v7::generate(engines::kBenchStartMs + static_cast<std::int64_t>(i)));
        rows.push_back(engines::Json{{"id", ids_.back()}, {"data", engines::bench_row(i)}});
      }
      doc::DocStore store(ctx.work_dir(), kCollection, options_of(ctx));
      store.put_stream(std::move(rows));
    });
  }

  Status open_client(const storh::RunContext& ctx, const storh::ClientInfo& client,
                     std::unique_ptr<storh::Client>& out) noexcept override {
    return storh::guarded("open_client",
                          [&] { out = std::make_unique<DocClient>(ctx, client.index, ids_); });
  }

  Status finish(storh::RunContext& ctx, std::uint64_t succeeded, std::uint64_t) noexcept override {
    return storh::guarded("finish", [&]() -> Status {
      doc::DocStore store(ctx.work_dir(), kCollection, options_of(ctx));
      const std::size_t records = store.record_ids().size();
      // Every successful put_get added a record; gets add none. So the count is the
      // dataset plus at most `succeeded` (gets count as successes too).
      if (records < ids_.size() || records > ids_.size() + succeeded) {
        return Status::error("finish: the collection has " + std::to_string(records) +
                             " records, expected " + std::to_string(ids_.size()) + " to " +
                             std::to_string(ids_.size() + succeeded));
      }
      return {};
    });
  }

 private:
  std::vector<std::string> ids_;
};

}  // namespace

STORH_TRANSACTIONS(DocTransactions)
