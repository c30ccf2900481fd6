// answers.h: how an adapter checks a step's answer and hands a failure back.
//
// Every timed step checks what it computed against what the rows it was built from
// predict; a wrong answer is a failed operation (Status::error naming the operation,
// what it got and what was expected), never a number in the results.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/record.h"
#include "storh/engine.h"

namespace storh::engines::bench {

// "<op>: counted <got>, expected <want>" unless got == want. Compares any two integer
// types by value (a negative count never equals an unsigned one).
template <typename Got, typename Want>
Status expect_count(std::string_view op, Got got, Want want) {
  if (std::cmp_equal(got, want)) return {};
  return Status::error(std::string(op) + ": counted " + std::to_string(got) + ", expected " +
                       std::to_string(want));
}

// The records must be the benchmark rows `rows` (bench_row indices), in that order. A
// row is told by its "publishedAt" (kBenchStartMs + i). Fails with "<op>: got N records,
// expected M" or "<op>: record k has publishedAt X, expected Y" (-1: none).
Status expect_rows(std::string_view op, const std::vector<Record>& records,
                   const std::vector<std::int64_t>& rows);
Status expect_rows(std::string_view op, const std::vector<SharedRecord>& records,
                   const std::vector<std::int64_t>& rows);
// The same for rows first, first + 1, ..., first + count - 1, with no vector built: the
// form for a check inside a timed step.
Status expect_row_run(std::string_view op, const std::vector<Record>& records, std::uint64_t first,
                      std::uint64_t count);

}  // namespace storh::engines::bench

// STORH_EXPECT(op, ok, got, want): {} when `ok`, else "<op>: got <got>, expected <want>".
// A macro so `got` and `want` are formatted only on failure: a check must cost nothing
// in a step that itself takes a microsecond. Needs <fmt/format.h> for the message.
#define STORH_EXPECT(op, ok, got, want) \
  ((ok) ? ::storh::Status{}             \
        : ::storh::Status::error(fmt::format("{}: got {}, expected {}", op, got, want)))

// STORH_TRY(expr): returns the Status `expr` yields from the enclosing function unless it
// is ok. The scenario's steps run in order and the first failure ends the run.
#define STORH_TRY(expr)                          \
  do {                                           \
    if (::storh::Status s_ = (expr); !s_.ok()) { \
      return s_;                                 \
    }                                            \
  } while (false)
