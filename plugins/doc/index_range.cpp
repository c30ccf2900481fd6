// Range-file reads (engine-spec.md 4.7.4, 4.7.7). See index_range.h for the window rules.
#include "doc/index_range.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <unordered_set>

#include "common/durable_io.h"
#include "common/query/json_values.h"
#include "common/store_error.h"
#include "doc/index_keys.h"
#include "doc/index_lines.h"

namespace storh::engines::doc {
namespace {

constexpr std::size_t kEdgeRead = 4096;

std::int64_t mtime_of(const struct stat& st) {
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// The key regions of range keys, in key order: b- < n-<digit> < n-m < s- < z-.
enum class Region { boolean, positive, negative, string, other };

Region region_of(std::string_view key) {
  if (key.size() >= 2 && key[0] == 'n' && key[1] == '-') {
    return key.size() > 2 && key[2] == 'm' ? Region::negative : Region::positive;
  }
  if (!key.empty() && key[0] == 'b') return Region::boolean;
  if (!key.empty() && key[0] == 's') return Region::string;
  return Region::other;
}

// Opens `path` read-only; an invalid fd when it does not exist.
UniqueFd open_if_exists(const std::filesystem::path& path) {
  const int fd = open_for_reading_at(AT_FDCWD, path.c_str());
  if (fd < 0 && errno != ENOENT) throw_errno("open", path);
  return UniqueFd(fd);
}

[[noreturn]] void malformed_line(const std::filesystem::path& path) {
  throw StoreError("Malformed range index line in " + path.string());
}

bool value_matches(const RangeLine& line, const QueryCondition& condition) {
  const Json value = line.value();
  if (condition.op() == QueryOperator::eq) return strict_equal(value, condition.value());
  return condition.matches_value(&value);
}

}  // namespace

struct RangeIndex::Window {
  bool trusted = false;       // base lines outside [lo, hi] cannot match
  bool edges_exact = false;   // lines on the edges match without a value check (prefix)
  bool always_check = false;  // every line needs a value check (eq)
  bool prefix = false;        // hi is exclusive
  std::optional<std::string> lo, hi;

  bool below(std::string_view key) const { return lo && key < *lo; }
  bool above(std::string_view key) const { return hi && (prefix ? key >= *hi : key > *hi); }
  bool interior(std::string_view key) const {
    if (always_check) return false;
    if (edges_exact) return true;
    return (!lo || key > *lo) && (!hi || key < *hi);
  }
};

RangePaths RangePaths::in(const std::filesystem::path& range_dir, const std::string& field) {
  const std::string hex = hex_bytes(field);
  return {range_dir / (hex + ".jsonl"), range_dir / (hex + ".delta.jsonl"),
          range_dir / (hex + ".idx.jsonc")};
}

bool RangeIndex::has_delta() {
  const IndexWatchTicks watch = ticks();
  if (watch.vouches(delta_seen_)) return delta_exists_;
  struct stat st {};
  delta_exists_ = ::stat(paths_.delta.c_str(), &st) == 0;
  delta_seen_ = watch.now;
  return delta_exists_;
}

void RangeIndex::changed(std::string_view path, IndexChange change) {
  if (path == paths_.base.native() || path == paths_.checkpoints.native()) {
    info_ = {};
    base_seen_ = 0;
  } else if (path == paths_.delta.native() && change != IndexChange::content) {
    // Events come in order, so the last name event says whether it exists now.
    delta_exists_ = change == IndexChange::appeared;
  }
}

void RangeIndex::own_delta_append() {
  delta_exists_ = true;
  delta_seen_ = ticks().now;
}

void RangeIndex::revalidate() {
  refresh_base();
  has_delta();
}

bool RangeIndex::supports(const QueryCondition& condition) {
  switch (condition.op()) {
    case QueryOperator::eq:
    case QueryOperator::gt:
    case QueryOperator::gte:
    case QueryOperator::lt:
    case QueryOperator::lte:
      return is_indexable(condition.value());
    case QueryOperator::between:
      return is_indexable(condition.value()) && is_indexable(condition.second_value());
    case QueryOperator::prefix:
      return true;  // non-strings match nothing, which the scan confirms
    default:
      return false;
  }
}

bool RangeIndex::has_ordered_window(const QueryCondition& condition) {
  switch (condition.op()) {
    case QueryOperator::gt:
    case QueryOperator::gte:
    case QueryOperator::lt:
    case QueryOperator::lte:
      return is_ordered(condition.value());
    case QueryOperator::between:
      return is_ordered(condition.value()) && is_ordered(condition.second_value()) &&
             region_of(range_key(condition.value())) ==
                 region_of(range_key(condition.second_value()));
    case QueryOperator::prefix:
      return condition.value().is_string();
    default:
      return false;
  }
}

bool RangeIndex::refresh_base() {
  const IndexWatchTicks watch = ticks();
  if (watch.vouches(base_seen_)) return info_.valid;
  base_seen_ = 0;
  struct stat st {};
  if (::stat(paths_.base.c_str(), &st) != 0) {
    info_ = {};
    base_seen_ = watch.now;
    return false;
  }
  if (info_.valid && info_.ino == st.st_ino &&
      info_.size == static_cast<std::uint64_t>(st.st_size) && info_.mtime_ns == mtime_of(st)) {
    base_seen_ = watch.now;
    return true;
  }
  // The stamp is taken from the descriptor read, so the cached text matches it even when
  // the file was replaced after the stat above.
  UniqueFd fd = open_if_exists(paths_.base);
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0) {
    info_ = {};
    return false;
  }
  BaseInfo info;
  info.ino = st.st_ino;
  info.size = static_cast<std::uint64_t>(st.st_size);
  info.mtime_ns = mtime_of(st);
  std::string text;
  if (read_file_if_exists(paths_.checkpoints, text)) {
    if (auto checkpoints = parse_checkpoints(text)) info.checkpoints = std::move(*checkpoints);
  }
  // The first line's key from the file's head, the last line's from its tail: two
  // kEdgeRead blocks (one buffer, so the head's key is taken before the tail overwrites
  // it). The whole text is read later, by cache_text(), once queries have read as much.
  char edge[kEdgeRead];
  const std::string_view head(edge, pread_some(fd.get(), edge, sizeof edge, 0, paths_.base));
  if (auto key = range_line_key(head)) info.first_key = *key;
  const std::uint64_t tail_at = info.size > kEdgeRead ? info.size - kEdgeRead : 0;
  std::string_view tail(edge, pread_some(fd.get(), edge, sizeof edge, tail_at, paths_.base));
  if (!tail.empty() && tail.back() == '\n') tail.remove_suffix(1);
  const std::size_t nl = tail.rfind('\n');
  if (nl != std::string_view::npos) tail.remove_prefix(nl + 1);
  if (auto key = range_line_key(tail)) info.last_key = *key;
  info.valid = true;
  info_ = std::move(info);
  base_seen_ = watch.now;
  return true;
}

void RangeIndex::cache_text() {
  if (info_.text || !info_.valid || info_.size > kMaxCachedBase || info_.bytes_read < info_.size) {
    return;
  }
  UniqueFd fd = open_if_exists(paths_.base);
  if (!fd.valid()) return;
  // Only the version refresh_base() described: a file replaced since is left to the
  // next refresh. NOTIFY vouching for it: a change since would have dropped info_ (a
  // change not drained yet is dropped with it by the next drain).
  if (!ticks().vouches(base_seen_)) {
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || info_.ino != st.st_ino ||
        info_.size != static_cast<std::uint64_t>(st.st_size) || info_.mtime_ns != mtime_of(st)) {
      return;
    }
  }
  auto text = std::make_shared<std::string>(info_.size, '\0');
  if (pread_full(fd.get(), text->data(), text->size(), 0, paths_.base) != text->size()) {
    return;  // shrank under us: not the described version
  }
  info_.text = std::move(text);
}

RangeIndex::Window RangeIndex::window_for(const QueryCondition& condition) {
  Window window;
  const Json& value = condition.value();
  switch (condition.op()) {
    case QueryOperator::eq:
      window.lo = window.hi = range_key(value);
      window.always_check = true;
      window.trusted = true;
      return window;
    case QueryOperator::prefix:
      if (!value.is_string()) return window;  // matches nothing; confirmed by the scan
      window.lo = range_key(value);
      window.hi = *window.lo + "g";
      window.prefix = true;
      window.edges_exact = true;
      window.trusted = true;
      return window;
    default:
      break;
  }
  if (!has_ordered_window(condition)) return window;
  switch (condition.op()) {
    case QueryOperator::gt:
    case QueryOperator::gte:
      window.lo = range_key(value);
      break;
    case QueryOperator::lt:
    case QueryOperator::lte:
      window.hi = range_key(value);
      break;
    default:
      window.lo = range_key(value);
      window.hi = range_key(condition.second_value());
      break;
  }
  // Trust the window only when every base line shares the bounds' region: then key
  // order is value order for all of them (index_keys.h is_ordered).
  const Region region = region_of(window.lo ? *window.lo : *window.hi);
  window.trusted = info_.valid && !info_.first_key.empty() &&
                   region_of(info_.first_key) == region && region_of(info_.last_key) == region;
  return window;
}

std::uint64_t RangeIndex::seek_offset(const Window& window) const {
  if (!window.trusted || !window.lo) return 0;
  std::uint64_t offset = 0;
  for (const Checkpoint& checkpoint : info_.checkpoints) {
    if (checkpoint.key < *window.lo) {
      offset = checkpoint.offset;
    } else {
      break;
    }
  }
  return offset < info_.size ? offset : 0;
}

template <typename Visit>
void RangeIndex::scan_base(const Window& window, Visit&& visit, bool with_ids) {
  RangeLine line;
  const auto each = [&](std::string_view text) {
    const std::optional<std::string_view> key = range_line_key(text);
    if (!key) malformed_line(paths_.base);
    if (window.trusted) {
      if (window.above(*key)) return false;
      if (window.below(*key)) return true;
    }
    if (!parse_range_line(text, line, with_ids)) malformed_line(paths_.base);
    return visit(line, window.trusted && window.interior(*key));
  };
  cache_text();
  std::uint64_t offset = seek_offset(window);
  if (info_.text) {
    // A checkpoint file written for another base (a rebuild in between) must not send
    // us into the middle of a line.
    if (offset > 0 && (*info_.text)[offset - 1] != '\n') offset = 0;
    text_lines_forward(*info_.text, offset, each);
    return;
  }
  UniqueFd fd = open_if_exists(paths_.base);
  if (!fd.valid()) return;
  if (offset > 0) {
    char before = 0;
    if (pread_some(fd.get(), &before, 1, offset - 1, paths_.base) != 1 || before != '\n') {
      offset = 0;
    }
  }
  info_.bytes_read += read_lines_forward(fd.get(), offset, paths_.base, each);
}

template <typename Visit>
void RangeIndex::scan_delta(Visit&& visit) {
  UniqueFd fd = open_if_exists(paths_.delta);
  if (!fd.valid()) return;
  RangeLine line;
  read_lines_forward(fd.get(), 0, paths_.delta, [&](std::string_view text) {
    if (!parse_range_line(text, line)) malformed_line(paths_.delta);
    visit(line);
    return true;
  });
}

std::vector<std::string> RangeIndex::ids(const QueryCondition& condition) {
  refresh_base();
  const Window window = window_for(condition);
  std::vector<std::string> out;
  scan_base(window, [&](const RangeLine& line, bool interior) {
    if (interior || value_matches(line, condition)) {
      for (std::string_view id : line.ids) out.emplace_back(id);
    }
    return true;
  });
  if (has_delta()) {
    std::unordered_set<std::string> set(out.begin(), out.end());
    scan_delta([&](const RangeLine& line) {
      if (!value_matches(line, condition)) return;
      for (std::string_view id : line.ids) set.emplace(id);
      for (std::string_view id : line.remove) set.erase(std::string(id));
    });
    out.assign(set.begin(), set.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::optional<std::vector<std::string>> RangeIndex::ordered_ids(const QueryCondition& condition,
                                                                bool descending,
                                                                std::size_t limit) {
  if (!has_ordered_window(condition) || has_delta()) return std::nullopt;
  if (!refresh_base()) return std::vector<std::string>{};
  const Window window = window_for(condition);
  if (!window.trusted) return std::nullopt;
  std::vector<std::string> out;
  if (!descending) {
    scan_base(window, [&](const RangeLine& line, bool interior) {
      if (interior || value_matches(line, condition)) {
        for (std::string_view id : line.ids) {
          if (out.size() < limit) out.emplace_back(id);
        }
      }
      return out.size() < limit;
    });
    return out;
  }
  // Backwards from the first checkpoint past the upper edge (or the end).
  std::uint64_t end = info_.size;
  if (window.hi) {
    for (const Checkpoint& checkpoint : info_.checkpoints) {
      if (window.above(checkpoint.key) && checkpoint.offset < info_.size) {
        end = checkpoint.offset;
        break;
      }
    }
  }
  // (key, id) in descending key order; ties are completed past the limit so each tie
  // group can be put in ascending id order (the order of the sort path).
  std::vector<std::pair<std::string, std::string>> found;
  RangeLine line;
  const auto each = [&](std::string_view text) {
    const std::optional<std::string_view> key = range_line_key(text);
    if (!key) malformed_line(paths_.base);
    if (window.above(*key)) return true;
    if (window.below(*key)) return false;
    if (found.size() >= limit && *key != found.back().first) return false;
    if (!parse_range_line(text, line)) malformed_line(paths_.base);
    if (window.interior(*key) || value_matches(line, condition)) {
      for (auto id = line.ids.rbegin(); id != line.ids.rend(); ++id) {
        found.emplace_back(std::string(*key), std::string(*id));
      }
    }
    return true;
  };
  cache_text();
  if (info_.text) {
    if (end < info_.size && end > 0 && (*info_.text)[end - 1] != '\n') end = info_.size;
    text_lines_backward(*info_.text, end, each);
  } else {
    UniqueFd fd = open_if_exists(paths_.base);
    if (!fd.valid()) return out;
    if (end < info_.size && end > 0) {
      char before = 0;
      if (pread_some(fd.get(), &before, 1, end - 1, paths_.base) != 1 || before != '\n') {
        end = info_.size;
      }
    }
    info_.bytes_read += read_lines_backward(fd.get(), end, paths_.base, each);
  }
  for (std::size_t start = 0; start < found.size();) {
    std::size_t stop = start + 1;
    while (stop < found.size() && found[stop].first == found[start].first) ++stop;
    std::reverse(found.begin() + static_cast<std::ptrdiff_t>(start),
                 found.begin() + static_cast<std::ptrdiff_t>(stop));
    start = stop;
  }
  for (std::size_t i = 0; i < found.size() && out.size() < limit; ++i) {
    out.push_back(std::move(found[i].second));
  }
  return out;
}

std::size_t RangeIndex::count(const QueryCondition& condition, std::size_t limit) {
  refresh_base();
  const Window window = window_for(condition);
  const bool delta = has_delta();
  std::int64_t total = 0;
  const auto reached = [&] {
    return limit != 0 && !delta && total >= static_cast<std::int64_t>(limit);
  };
  scan_base(
      window,
      [&](const RangeLine& line, bool interior) {
        if (interior || value_matches(line, condition)) total += line.count;
        return !reached();
      },
      /*with_ids=*/false);
  if (delta) {
    scan_delta([&](const RangeLine& line) {
      if (value_matches(line, condition)) total += line.count;
    });
  }
  if (total < 0) total = 0;
  const auto counted = static_cast<std::size_t>(total);
  return limit != 0 ? std::min(counted, limit) : counted;
}

}  // namespace storh::engines::doc
