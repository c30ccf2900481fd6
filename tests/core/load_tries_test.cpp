// The host's side of a transaction's report (storh/transactions.h, SDK 1.7): each
// transaction counted under the part it names, conflicts given up on counted by kind
// without ending the client, retries summed, and the counts carried through the
// outcome JSON and the cell's summary.
#include <catch2/catch.hpp>

#include "fake_run_context.h"
#include "load/driver.h"
#include "load/summary.h"
#include "storh/transactions.h"

namespace {

using storh::FailureKind;
using storh::Status;
using storh::TransactionReport;

// Transaction `sequence` of every client, by sequence % 4: 0 a serialization failure
// after 2 retries, 1 a success after 1 retry, 2 a deadlock at once, 3 a success; even
// sequences are part 0, odd ones part 1. With `fail_at` set, that transaction fails
// with another error.
class ReportingClient final : public storh::Client {
 public:
  explicit ReportingClient(std::optional<std::uint64_t> fail_at) : fail_at_(fail_at) {}

  Status run_transaction(std::size_t, std::uint64_t) noexcept override { return {}; }

  Status run_reported(std::size_t, std::uint64_t sequence,
                      TransactionReport& report) noexcept override {
    report.part = sequence % 2;
    if (fail_at_ && sequence == *fail_at_) {
      report.failure = FailureKind::other;
      return Status::error("a constraint");
    }
    switch (sequence % 4) {
      case 0:
        report.retries = 2;
        report.failure = FailureKind::serialization;
        return Status::error("could not serialize access");
      case 1:
        report.retries = 1;
        return {};
      case 2:
        report.failure = FailureKind::deadlock;
        return Status::error("deadlock detected");
      default:
        return {};
    }
  }

 private:
  std::optional<std::uint64_t> fail_at_;
};

class ReportingTransactions final : public storh::Transactions {
 public:
  explicit ReportingTransactions(std::optional<std::uint64_t> fail_at = std::nullopt)
      : fail_at_(fail_at) {}

  std::vector<storh::TransactionSpec> describe() const noexcept override {
    return {{"mix", "two parts that conflict", false}};
  }
  Status open_client(const storh::RunContext&, const storh::ClientInfo&,
                     std::unique_ptr<storh::Client>& out) noexcept override {
    out = std::make_unique<ReportingClient>(fail_at_);
    return {};
  }

 private:
  std::optional<std::uint64_t> fail_at_;
};

storh::load::LoadConfig two_clients(std::uint64_t transactions) {
  storh::load::LoadConfig config;
  config.clients = 2;
  config.transactions = transactions;
  config.progress_seconds = 0;
  return config;
}

storh::load::PhaseShape reported_parts() {
  storh::load::PhaseShape shape;
  shape.reported = true;
  shape.parts = 2;
  return shape;
}

}  // namespace

TEST_CASE("load: conflicts are counted by kind and part, and their clients go on",
          "[load][tries]") {
  ReportingTransactions transactions;
  const storh_test::FakeRunContext ctx(1);
  const auto outcome =
      storh::load::run_phase(transactions, ctx, 0, two_clients(8), {}, reported_parts());
  REQUIRE(outcome.ok());
  // Per client: successes at 1, 3, 5, 7; serialization failures at 0, 4 (2 retries
  // each); deadlocks at 2, 6; one retry at 1 and 5.
  CHECK(outcome->processed == 8);
  CHECK(outcome->failed == 0);
  CHECK(outcome->first_error.empty());
  CHECK(outcome->tries.serialization_failures == 4);
  CHECK(outcome->tries.deadlock_failures == 4);
  CHECK(outcome->tries.retried == 8);
  CHECK(outcome->tries.retries == 12);
  REQUIRE(outcome->kinds.size() == 2);
  CHECK(outcome->kinds[0].processed == 0);
  CHECK(outcome->kinds[0].tries.serialization_failures == 4);
  CHECK(outcome->kinds[0].tries.deadlock_failures == 4);
  CHECK(outcome->kinds[0].tries.retries == 8);
  CHECK(outcome->kinds[1].processed == 8);
  CHECK(outcome->kinds[1].tries.retried == 4);
  CHECK(outcome->kinds[1].tries.retries == 4);
  CHECK(outcome->kinds[1].latency.histogram.count() == 8);

  // A part as an outcome of its own, and the counts through JSON and the summary.
  const storh::load::LoadOutcome part = storh::load::kind_outcome(*outcome, outcome->kinds[0]);
  CHECK(part.run_seconds == outcome->run_seconds);
  CHECK(part.tries.deadlock_failures == 4);
  const auto back = storh::load::load_outcome_from_json(storh::load::to_json(*outcome));
  REQUIRE(back.ok());
  CHECK(back->tries.retries == 12);
  CHECK(back->tries.serialization_failures == 4);
  const storh::result::LoadResult summary =
      storh::load::summarize_load(two_clients(8), {*back, *back});
  CHECK(summary.retried == 16);
  CHECK(summary.retries == 24);
  CHECK(summary.serialization_failures == 8);
  CHECK(summary.deadlock_failures == 8);
  CHECK(summary.failed == 0);
  CHECK_FALSE(summary.connection_mean.has_value());
  CHECK(storh::load::part_operations("custom", {"transfer", "audit"}) ==
        std::vector<std::string>{"custom.transfer", "custom.audit"});
}

TEST_CASE("load: any other failure still ends its client and is the first error", "[load][tries]") {
  ReportingTransactions transactions(5);
  const storh_test::FakeRunContext ctx(1);
  const auto outcome =
      storh::load::run_phase(transactions, ctx, 0, two_clients(8), {}, reported_parts());
  REQUIRE(outcome.ok());
  // Each client: successes at 1 and 3, conflicts at 0, 2 and 4, then the error at 5.
  CHECK(outcome->processed == 4);
  CHECK(outcome->failed == 2);
  CHECK(outcome->first_error == "client 0: a constraint");
  CHECK(outcome->kinds[1].failed == 2);
  CHECK(outcome->tries.serialization_failures == 4);
}

TEST_CASE("load: a plugin before SDK 1.7 is never asked for a report", "[load][tries]") {
  ReportingTransactions transactions;
  const storh_test::FakeRunContext ctx(1);
  // What the worker makes for an ABI 1.6 plugin: no report, no parts.
  const auto outcome = storh::load::run_phase(transactions, ctx, 0, two_clients(8), {}, {});
  REQUIRE(outcome.ok());
  // run_transaction: every call a success.
  CHECK(outcome->processed == 16);
  CHECK(outcome->tries.empty());
  CHECK(outcome->kinds.empty());
}
