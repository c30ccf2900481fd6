#include "filter/row_table.h"

#include <algorithm>
#include <array>
#include <deque>
#include <limits>
#include <stdexcept>
#include <string>

#include "filter/columns.h"

namespace storh::engines {
namespace {

using columnar::Column;
using columnar::FieldPredicate;
using columnar::StringIndex;

// An id's first 16 bytes as big-endian words (zero-padded), and where its text is.
// Word order agrees with byte order, so equal words are the only case that needs the
// text.
struct IdRef {
  std::uint64_t high;
  std::uint64_t low;
  std::uint32_t offset;
  std::uint32_t size;
};

std::uint64_t prefix_word(std::string_view text, std::size_t from) noexcept {
  std::uint64_t word = 0;
  for (std::size_t i = from; i < from + 8; ++i) {
    word = (word << 8) | (i < text.size() ? static_cast<unsigned char>(text[i]) : 0u);
  }
  return word;
}

struct IdBound {
  std::uint64_t high;
  std::uint64_t low;
  std::string text;
  int min_sign;  // a row passes when sign(compare(row id, text)) >= min_sign ...
  int max_sign;  // ... and <= max_sign
};

constexpr std::size_t kBlockRows = 1024;
using Mask = std::array<std::uint8_t, kBlockRows>;

struct CompiledScan {
  std::vector<IdBound> id_bounds;
  const QueryCondition* id_condition = nullptr;
  std::vector<FieldPredicate> fields;
};

}  // namespace

struct RowTable::Impl {
  std::string id_text;
  std::vector<IdRef> ids;
  StringIndex column_ids;
  std::deque<Column> columns;  // a deque: Column::strings points into its own map

  const Column* find_column(std::string_view field) const {
    const auto it = column_ids.find(field);
    return it == column_ids.end() ? nullptr : &columns[it->second];
  }

  Column& column_for(std::string_view field, std::size_t rows_before) {
    auto it = column_ids.find(field);
    if (it == column_ids.end()) {
      it = column_ids.emplace(std::string(field), static_cast<std::uint32_t>(columns.size())).first;
      columns.emplace_back().cells.resize(rows_before);  // earlier rows lack the field
    }
    return columns[it->second];
  }

  IdBound bound(std::string_view text, int min_sign, int max_sign) const {
    return {prefix_word(text, 0), prefix_word(text, 8), std::string(text), min_sign, max_sign};
  }

  CompiledScan compile(const RecordQuery& query) const {
    CompiledScan scan;
    if (query.after_id()) scan.id_bounds.push_back(bound(*query.after_id(), 1, 1));
    if (query.lower_id()) scan.id_bounds.push_back(bound(*query.lower_id(), 0, 1));
    if (query.upper_id()) scan.id_bounds.push_back(bound(*query.upper_id(), -1, 0));
    for (const auto& [field, value] : query.equals()) {
      scan.fields.push_back(columnar::compile_equal(find_column(field), value));
    }
    return scan;
  }

  CompiledScan compile(const QueryCondition& condition) const {
    CompiledScan scan;
    if (condition.targets_id()) {
      scan.id_condition = &condition;
    } else {
      scan.fields.push_back(columnar::compile_condition(find_column(condition.field()), condition));
    }
    return scan;
  }

  std::string_view id_at(std::size_t row) const {
    return std::string_view(id_text).substr(ids[row].offset, ids[row].size);
  }

  // sign(compare(row id, bound)) without branches in the common case: the words decide
  // unless both tie, which needs the text (rare: a bound's own millisecond).
  int id_sign(std::size_t row_index, const IdBound& bound) const {
    const IdRef& row = ids[row_index];
    const int high = (row.high > bound.high) - (row.high < bound.high);
    const int low = (row.low > bound.low) - (row.low < bound.low);
    if ((high | low) == 0) [[unlikely]] {
      const int c = id_at(row_index).compare(bound.text);
      return (c > 0) - (c < 0);
    }
    return high != 0 ? high : low;
  }

  void apply_bound(const IdBound& bound, std::size_t begin, std::size_t rows, Mask& mask) const {
    for (std::size_t j = 0; j < rows; ++j) {
      const int sign = id_sign(begin + j, bound);
      mask[j] &= static_cast<std::uint8_t>((sign >= bound.min_sign) & (sign <= bound.max_sign));
    }
  }

  // Calls sink(begin, rows, mask) for consecutive blocks; mask[j] is row begin+j's answer.
  template <typename Sink>
  void scan(const CompiledScan& compiled, Sink&& sink) const {
    Mask mask;
    for (std::size_t begin = 0; begin < ids.size(); begin += kBlockRows) {
      const std::size_t rows = std::min(kBlockRows, ids.size() - begin);
      std::fill_n(mask.begin(), rows, std::uint8_t{1});
      for (const IdBound& bound : compiled.id_bounds) apply_bound(bound, begin, rows, mask);
      if (compiled.id_condition != nullptr) {
        for (std::size_t j = 0; j < rows; ++j) {
          mask[j] &=
              static_cast<std::uint8_t>(compiled.id_condition->matches_value(id_at(begin + j)));
        }
      }
      for (const FieldPredicate& field : compiled.fields) {
        columnar::apply(field, begin, rows, mask.data());
      }
      sink(begin, rows, mask);
    }
  }

  std::uint64_t count(const CompiledScan& compiled) const {
    std::uint64_t total = 0;
    scan(compiled, [&](std::size_t, std::size_t rows, const Mask& mask) {
      std::uint32_t block = 0;
      for (std::size_t j = 0; j < rows; ++j) block += mask[j];
      total += block;
    });
    return total;
  }

  std::vector<bool> matches(const CompiledScan& compiled) const {
    std::vector<bool> result(ids.size());
    scan(compiled, [&](std::size_t begin, std::size_t rows, const Mask& mask) {
      for (std::size_t j = 0; j < rows; ++j) result[begin + j] = mask[j] != 0;
    });
    return result;
  }
};

RowTable::RowTable() : impl_(std::make_unique<Impl>()) {}
RowTable::~RowTable() = default;
RowTable::RowTable(RowTable&&) noexcept = default;
RowTable& RowTable::operator=(RowTable&&) noexcept = default;

std::size_t RowTable::size() const noexcept {
  return impl_->ids.size();
}

void RowTable::append(std::string_view id, const Json& data) {
  Impl& t = *impl_;
  const std::size_t row = t.ids.size();
  if (t.id_text.size() + id.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error("RowTable: more than 4 GiB of id text");
  }
  t.ids.push_back({prefix_word(id, 0), prefix_word(id, 8),
                   static_cast<std::uint32_t>(t.id_text.size()),
                   static_cast<std::uint32_t>(id.size())});
  t.id_text.append(id);
  try {
    if (data.is_object()) {
      for (const auto& [key, value] : data.get_ref<const Json::object_t&>()) {
        Column& column = t.column_for(key, row);
        columnar::append_cell(column, value);
      }
    } else if (data.is_array()) {
      // A list's fields are "0", "1", ... (find_field's PHP key rule).
      for (std::size_t i = 0; i < data.size(); ++i) {
        Column& column = t.column_for(std::to_string(i), row);
        columnar::append_cell(column, data[i]);
      }
    }
    for (Column& column : t.columns) {
      if (column.cells.size() == row) column.cells.emplace_back();  // missing in this row
    }
  } catch (...) {
    // Leave the table as it was (columns and strings added on the way stay, unused).
    for (Column& column : t.columns) column.cells.resize(row);
    t.ids.pop_back();
    t.id_text.resize(t.id_text.size() - id.size());
    throw;
  }
}

std::uint64_t RowTable::count(const RecordQuery& query) const {
  return impl_->count(impl_->compile(query));
}

std::uint64_t RowTable::count(const QueryCondition& condition) const {
  return impl_->count(impl_->compile(condition));
}

std::vector<bool> RowTable::matches(const RecordQuery& query) const {
  return impl_->matches(impl_->compile(query));
}

std::vector<bool> RowTable::matches(const QueryCondition& condition) const {
  return impl_->matches(impl_->compile(condition));
}

}  // namespace storh::engines
