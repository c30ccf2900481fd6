// row_table.h: records held in a compact, columnar form so that RecordQuery and
// QueryCondition run over many rows at memory speed.
//
// Answers are exactly those of RecordQuery::matches_data and
// QueryCondition::matches_data on the original (id, data) pairs; the tests check both
// paths against each other on mixed data (integers and floats, strings that look like
// numbers, null, missing fields, arrays, objects, list data).
//
// How: each data field is a column of 16-byte typed cells (missing, null, boolean,
// integer, float, string, array/object); strings are interned per column, so equality
// is a compare of (kind, payload) and a condition on strings is evaluated once per
// distinct string. Ids keep their first 16 bytes as two big-endian words, so bounds
// compare with two integer compares. A scan evaluates blocks of rows one predicate at
// a time into a byte mask.
//
// Cost: about 16 bytes per field per row plus 24 bytes and the id text per row, plus
// one copy of each distinct string; rows without a field still pay for its cell, so
// suits rows that share their fields. Not copyable (it can be large); movable.
//
// Thread safety: const members may run concurrently; append() must not overlap
// anything else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "common/query/query_condition.h"
#include "common/query/record_query.h"
#include "common/record.h"

namespace storh::engines {

class RowTable {
 public:
  RowTable();
  ~RowTable();
  RowTable(RowTable&&) noexcept;
  RowTable& operator=(RowTable&&) noexcept;
  RowTable(const RowTable&) = delete;
  RowTable& operator=(const RowTable&) = delete;

  // Adds record (id, data) as the next row; `data` is not referenced afterwards.
  // Throws std::length_error beyond 4 GiB of id text or 2^32 distinct strings in a
  // field.
  void append(std::string_view id, const Json& data);
  std::size_t size() const noexcept;

  // How many rows satisfy query.matches_data (the limit does not apply) or
  // condition.matches_data. Throws what matches_data would throw.
  std::uint64_t count(const RecordQuery& query) const;
  std::uint64_t count(const QueryCondition& condition) const;

  // Per row, in append order: whether it satisfies the query or condition.
  std::vector<bool> matches(const RecordQuery& query) const;
  std::vector<bool> matches(const QueryCondition& condition) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace storh::engines
