#include "log/record_cache.h"

#include <algorithm>

namespace storh::engines::log {

std::size_t CachedSegment::index_of(std::uint64_t offset) const noexcept {
  if (offset >= end) return lines.size();
  const auto it =
      std::lower_bound(lines.begin(), lines.end(), offset,
                       [](const CachedLine& line, std::uint64_t at) { return line.offset < at; });
  if (it == lines.end() || it->offset != offset) return lines.size();
  return static_cast<std::size_t>(it - lines.begin());
}

const CachedLine* RecordCache::line_at(std::uint32_t file, std::uint64_t offset) const noexcept {
  const CachedSegment* segment = find(file);
  if (segment == nullptr) return nullptr;
  const std::size_t index = segment->index_of(offset);
  return index < segment->lines.size() ? &segment->lines[index] : nullptr;
}

bool RecordCache::extends(std::uint32_t file, std::uint64_t offset) const noexcept {
  const CachedSegment* segment = find(file);
  return segment != nullptr ? segment->end == offset : offset == 0;
}

void RecordCache::append(std::uint32_t file, std::uint64_t offset, std::uint64_t size,
                         std::string_view id, bool is_delete, Json data) {
  if (!extends(file, offset)) return;
  if (file >= files_.size()) files_.resize(file + 1);
  if (!files_[file]) files_[file] = std::make_unique<CachedSegment>();
  CachedSegment& segment = *files_[file];
  segment.lines.push_back({offset, size, make_key(id), is_delete, std::move(data)});
  segment.end = offset + size;
  bytes_ += size;
  if (bytes_ > kMaxLineBytes) evict_for(file);
}

void RecordCache::terminate_last(std::uint32_t file, std::uint64_t end) noexcept {
  CachedSegment* segment = find_mutable(file);
  if (segment == nullptr || segment->end != end || segment->lines.empty()) return;
  ++segment->lines.back().size;
  ++segment->end;
  ++bytes_;
}

void RecordCache::install(std::uint32_t file, CachedSegment segment) {
  drop(file);
  if (file >= files_.size()) files_.resize(file + 1);
  bytes_ += segment.end;
  files_[file] = std::make_unique<CachedSegment>(std::move(segment));
  if (bytes_ > kMaxLineBytes) evict_for(file);
}

void RecordCache::drop(std::uint32_t file) noexcept {
  if (file >= files_.size() || !files_[file]) return;
  bytes_ -= files_[file]->end;
  files_[file].reset();
}

void RecordCache::clear() noexcept {
  files_.clear();
  bytes_ = 0;
}

void RecordCache::evict_for(std::uint32_t keep) noexcept {
  for (std::uint32_t file = 0; file < files_.size() && bytes_ > kMaxLineBytes; ++file) {
    if (file != keep) drop(file);
  }
  if (bytes_ > kMaxLineBytes) drop(keep);
}

}  // namespace storh::engines::log
