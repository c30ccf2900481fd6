#include "ycsb/kv_transactions.h"

#include <fmt/format.h>

namespace storh::ycsb {
namespace {

class KvClient final : public Client {
 public:
  KvClient(std::unique_ptr<KeyValueSession> session, CoreWorkload& workload,
           CoreWorkload::Client& generator, KvTransactions::RmwParts& rmw_parts)
      : session_(std::move(session)),
        workload_(workload),
        generator_(generator),
        rmw_parts_(rmw_parts) {}

  Status run_transaction(std::size_t type, std::uint64_t sequence) noexcept override {
    static_cast<void>(sequence);
    return guarded("ycsb", [&] { return type == kLoadType ? load_one() : run_one(); });
  }

  std::size_t last_kind() const { return last_kind_; }

 private:
  Status load_one() {
    const std::string key = workload_.key_name(generator_.next_load_keynum());
    const KvRecord record = workload_.build_record(key, generator_.rng());
    const Status status = session_->insert(key, record);
    if (!status.ok()) return Status::error(fmt::format("insert {}: {}", key, status.message()));
    return {};
  }

  Status run_one() {
    const Op op = generator_.next_op();
    last_kind_ = static_cast<std::size_t>(op);
    switch (op) {
      case Op::read:
        return read(workload_.key_name(generator_.next_keynum()), "read");
      case Op::update:
        return update(workload_.key_name(generator_.next_keynum()), "update");
      case Op::insert:
        return insert();
      case Op::scan:
        return scan();
      case Op::read_modify_write: {
        const std::string key = workload_.key_name(generator_.next_keynum());
        if (Status status = timed_part(Op::read, [&] { return read(key, "read_modify_write"); });
            !status.ok()) {
          return status;
        }
        return timed_part(Op::update, [&] { return update(key, "read_modify_write"); });
      }
    }
    return Status::error("unknown YCSB operation");
  }

  // Runs one part of a read-modify-write and, when it succeeds, records its time under
  // `kind` too (YCSB's DBWrapper measures every call it passes on).
  template <typename F>
  Status timed_part(Op kind, F&& part) {
    const std::int64_t begin = load::now_ns();
    Status status = part();
    const std::int64_t end = load::now_ns();
    load::KindOutcome& outcome = rmw_parts_[static_cast<std::size_t>(kind)];
    if (status.ok()) {
      ++outcome.processed;
      outcome.latency.record(static_cast<double>(end - begin) / 1e9);
    } else {
      ++outcome.failed;
    }
    return status;
  }

  Status read(const std::string& key, std::string_view what) {
    const std::vector<std::string> fields = generator_.read_fields();
    KvCode code = KvCode::ok;
    const Status status = session_->read(key, fields, record_, code);
    if (!status.ok()) return Status::error(fmt::format("{} {}: {}", what, key, status.message()));
    if (code == KvCode::not_found) {
      return Status::error(fmt::format("{} {}: not found, but the key was loaded", what, key));
    }
    if (std::string wrong = workload_.verify(key, record_, fields); !wrong.empty()) {
      return Status::error(fmt::format("{} {}: wrong answer: {}", what, key, wrong));
    }
    return {};
  }

  Status update(const std::string& key, std::string_view what) {
    const KvRecord values = generator_.update_values(key);
    KvCode code = KvCode::ok;
    const Status status = session_->update(key, values, code);
    if (!status.ok()) return Status::error(fmt::format("{} {}: {}", what, key, status.message()));
    if (code == KvCode::not_found) {
      return Status::error(
          fmt::format("{} {}: update found no record, but the key was loaded", what, key));
    }
    return {};
  }

  Status insert() {
    const std::uint64_t keynum = generator_.next_insert_keynum();
    const std::string key = workload_.key_name(keynum);
    const KvRecord record = workload_.build_record(key, generator_.rng());
    const Status status = session_->insert(key, record);
    // Acknowledged whatever the outcome: an unacknowledged key would hold every later
    // one back from the reads (YCSB's transaction insert does the same).
    generator_.acknowledge_insert(keynum);
    if (!status.ok()) return Status::error(fmt::format("insert {}: {}", key, status.message()));
    return {};
  }

  Status scan() {
    const std::string start = workload_.key_name(generator_.next_keynum());
    const std::uint32_t length = generator_.next_scan_length();
    const std::vector<std::string> fields = generator_.read_fields();
    const Status status = session_->scan(start, length, fields, rows_);
    if (!status.ok()) return Status::error(fmt::format("scan {}: {}", start, status.message()));
    if (rows_.size() > length) {
      return Status::error(fmt::format("scan {}: wrong answer: {} rows for a scan of {}", start,
                                       rows_.size(), length));
    }
    for (const KvRow& row : rows_) {
      if (std::string wrong = workload_.verify(row.key, row.fields, fields); !wrong.empty()) {
        return Status::error(fmt::format("scan {}: wrong answer: {}", start, wrong));
      }
    }
    return {};
  }

  std::unique_ptr<KeyValueSession> session_;
  CoreWorkload& workload_;
  CoreWorkload::Client& generator_;
  KvTransactions::RmwParts& rmw_parts_;
  std::size_t last_kind_ = 0;
  // Reused between calls, so the timed path does not allocate their buffers again.
  KvRecord record_;
  std::vector<KvRow> rows_;
};

}  // namespace

KvTransactions::KvTransactions(KeyValueStore& store, CoreWorkload& workload, std::uint32_t clients)
    : store_(store), workload_(workload), generators_(clients), rmw_parts_(clients) {}

std::vector<TransactionSpec> KvTransactions::describe() const noexcept {
  return {{"load", "YCSB load phase: insert the next record", false},
          {"run", "YCSB run phase: one operation of the mix", false}};
}

Status KvTransactions::open_client(const RunContext& ctx, const ClientInfo& client,
                                   std::unique_ptr<Client>& out) noexcept {
  static_cast<void>(ctx);
  return guarded("open_session", [&]() -> Status {
    if (client.index >= generators_.size()) {
      return Status::error(fmt::format("client {} of {}", client.index, generators_.size()));
    }
    std::unique_ptr<KeyValueSession> session;
    if (Status status = store_.open_session(client.index, session); !status.ok()) return status;
    if (!session) return Status::error("open_session returned no session");
    std::unique_ptr<CoreWorkload::Client>& generator = generators_[client.index];
    if (!generator) {
      generator = std::make_unique<CoreWorkload::Client>(workload_.client(client.index));
    }
    std::unique_ptr<RmwParts>& parts = rmw_parts_[client.index];
    if (!parts) parts = std::make_unique<RmwParts>(kKindCount);
    out = std::make_unique<KvClient>(std::move(session), workload_, *generator, *parts);
    return {};
  });
}

std::vector<load::KindOutcome> KvTransactions::take_rmw_parts() {
  std::vector<load::KindOutcome> merged(kKindCount);
  for (std::unique_ptr<RmwParts>& parts : rmw_parts_) {
    if (!parts) continue;
    for (std::size_t kind = 0; kind < kKindCount; ++kind) merged[kind].merge((*parts)[kind]);
    *parts = RmwParts(kKindCount);  // in place: a client may still point at it
  }
  return merged;
}

const load::KindSplit& KvTransactions::kinds() {
  static const load::KindSplit split{kKindCount, [](const Client& client) {
                                       return static_cast<const KvClient&>(client).last_kind();
                                     }};
  return split;
}

}  // namespace storh::ycsb
