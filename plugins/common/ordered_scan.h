// ordered_scan.h: the scan of the ordered byte stores (leveldb::Store, rocksdb::Store):
// up to `count` entries in key order from the first key >= a start key, each handed to
// a ScanRow. LevelDB's and RocksDB's iterators have the same shape (Seek, Valid, Next,
// key, value, status, over their own Slice and Status types), so one loop serves both.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

namespace storh::engines {

// Called once per entry of a scan, in key order. The views are valid during the call.
using ScanRow = std::function<void(std::string_view key, std::string_view value)>;

// Seeks `it` to `start`, calls `row` for up to `count` entries, and returns the
// iterator's status (the caller turns a failed one into its StoreError).
template <typename Iterator, typename Slice>
auto scan_ordered(Iterator& it, const Slice& start, std::size_t count, const ScanRow& row) {
  std::size_t seen = 0;
  for (it.Seek(start); seen < count && it.Valid(); it.Next(), ++seen) {
    row(std::string_view(it.key().data(), it.key().size()),
        std::string_view(it.value().data(), it.value().size()));
  }
  return it.status();
}

}  // namespace storh::engines
