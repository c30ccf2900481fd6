// Transactions of the queue engine for load runs (docs/load.md): pgbench-style
// clients sharing one LogQueue, each a thread or a process with its own instance.
//
//   enqueue_claim_complete  enqueue a job {"client", "seq"}, claim the oldest pending
//                           job (any client's), complete it. Every client enqueues
//                           before it claims, so a claim always finds a job; a claim
//                           that finds none, or a complete of a job that is not
//                           processing (claimed twice), is a wrong answer.
//
// finish() checks exactly-once across all clients: nothing pending or processing, and
// as many jobs done as transactions succeeded (each completed a different job).
#include <optional>
#include <string>

#include "common/bench/durability.h"
#include "common/durable_io.h"
#include "queue/log_queue.h"
#include "storh/transactions.h"

namespace {

using storh::Status;
namespace engines = storh::engines;

constexpr const char* kQueueName = "load";

class QueueClient final : public storh::Client {
 public:
  QueueClient(const storh::RunContext& ctx, std::uint32_t index)
      : queue_(ctx.work_dir(), kQueueName, engines::bench::durability(ctx)), index_(index) {}

  Status run_transaction(std::size_t, std::uint64_t sequence) noexcept override {
    return storh::guarded("enqueue_claim_complete", [&]() -> Status {
      queue_.enqueue(engines::Json{{"client", index_}, {"seq", sequence}});
      const std::optional<engines::QueueJob> job = queue_.claim();
      if (!job) {
        return Status::error(
            "enqueue_claim_complete: claim found no pending job right after an "
            "enqueue");
      }
      if (!queue_.complete(job->id)) {
        return Status::error("enqueue_claim_complete: job " + job->id.str() +
                             " was not processing when completed (claimed twice?)");
      }
      return {};
    });
  }

 private:
  engines::LogQueue queue_;
  std::uint32_t index_;
};

class QueueTransactions final : public storh::Transactions {
 public:
  std::vector<storh::TransactionSpec> describe() const noexcept override {
    return {{"enqueue_claim_complete",
             "enqueue a job, claim the oldest pending one, complete it (one durable call each)",
             false}};
  }

  Status prepare(storh::RunContext& ctx) noexcept override {
    // Creates the queue once, so clients only open it.
    return storh::guarded("prepare", [&] {
      engines::LogQueue(ctx.work_dir(), kQueueName, engines::bench::durability(ctx));
    });
  }

  Status open_client(const storh::RunContext& ctx, const storh::ClientInfo& client,
                     std::unique_ptr<storh::Client>& out) noexcept override {
    return storh::guarded("open_client",
                          [&] { out = std::make_unique<QueueClient>(ctx, client.index); });
  }

  Status finish(storh::RunContext& ctx, std::uint64_t succeeded, std::uint64_t) noexcept override {
    return storh::guarded("finish", [&]() -> Status {
      engines::LogQueue queue(ctx.work_dir(), kQueueName, engines::bench::durability(ctx));
      const engines::QueueCounts counts = queue.counts();
      if (counts.pending != 0 || counts.processing != 0 || counts.done != succeeded) {
        return Status::error("finish: exactly-once violated: " + std::to_string(succeeded) +
                             " transactions succeeded but the queue has " +
                             std::to_string(counts.done) + " done, " +
                             std::to_string(counts.processing) + " processing, " +
                             std::to_string(counts.pending) + " pending");
      }
      const engines::QueueVerifyReport report = queue.verify();
      if (!report.ok) {
        return Status::error("finish: queue verify failed: " +
                             (report.errors.empty() ? std::string("?") : report.errors.front()));
      }
      return {};
    });
  }
};

}  // namespace

STORH_TRANSACTIONS(QueueTransactions)
