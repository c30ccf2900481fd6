// The recency list holds the entries (least recent first); the index maps a key (a view
// into the entry's own string, stable because list nodes never move) to its node.
#include "common/memory_cache.h"

#include <algorithm>
#include <chrono>
#include <list>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

namespace storh::engines {
namespace {

struct Entry {
  std::string key;
  CacheValue value;
  std::size_t bytes = 0;
  std::optional<std::int64_t> expires_at;
};

// Bookkeeping per entry beyond key and value: the list node and the index node.
constexpr std::size_t kEntryOverhead = sizeof(Entry) + 2 * sizeof(void*) + 48;

std::int64_t system_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

struct MemoryCache::State {
  mutable std::mutex mutex;
  std::list<Entry> entries;
  std::unordered_map<std::string_view, std::list<Entry>::iterator> index;
  std::size_t bytes = 0;
  Clock clock;

  void erase(std::list<Entry>::iterator it) {
    bytes -= it->bytes;
    index.erase(std::string_view(it->key));
    entries.erase(it);
  }
};

MemoryCache::MemoryCache(std::size_t max_entries, std::optional<std::size_t> max_bytes, Clock clock)
    : max_entries_(max_entries), max_bytes_(max_bytes), state_(std::make_unique<State>()) {
  if (max_entries_ < 1) throw std::invalid_argument("MemoryCache max_entries must be >= 1");
  if (max_bytes_ && *max_bytes_ < 1) {
    throw std::invalid_argument("MemoryCache max_bytes must be >= 1");
  }
  state_->clock = clock ? std::move(clock) : Clock(system_seconds);
}

MemoryCache::~MemoryCache() = default;

CacheValue MemoryCache::get(std::string_view key) {
  std::lock_guard lock(state_->mutex);
  auto found = state_->index.find(key);
  if (found == state_->index.end()) return nullptr;
  auto it = found->second;
  if (it->expires_at && state_->clock() >= *it->expires_at) {
    state_->erase(it);
    return nullptr;
  }
  state_->entries.splice(state_->entries.end(), state_->entries, it);
  return it->value;
}

void MemoryCache::set(std::string_view key, CacheValue value,
                      std::optional<std::int64_t> ttl_seconds) {
  if (!value) {
    remove(key);
    return;
  }
  const std::size_t value_bytes = estimate_bytes(*value);
  std::lock_guard lock(state_->mutex);
  State& s = *state_;
  std::optional<std::int64_t> expires;
  if (ttl_seconds) expires = s.clock() + std::max<std::int64_t>(1, *ttl_seconds);
  auto found = s.index.find(key);
  std::list<Entry>::iterator it;
  if (found != s.index.end()) {
    it = found->second;
    s.bytes -= it->bytes;
    s.entries.splice(s.entries.end(), s.entries, it);
  } else {
    s.entries.push_back(Entry{std::string(key), nullptr, 0, std::nullopt});
    it = std::prev(s.entries.end());
    s.index.emplace(std::string_view(it->key), it);
  }
  it->value = std::move(value);
  it->expires_at = expires;
  it->bytes = kEntryOverhead + it->key.capacity() + value_bytes;
  s.bytes += it->bytes;
  // Evict from the least recent end; the key just set (at the back) goes last.
  while (s.entries.size() > 1 &&
         (s.entries.size() > max_entries_ || (max_bytes_ && s.bytes > *max_bytes_))) {
    s.erase(s.entries.begin());
  }
  if (max_bytes_ && s.bytes > *max_bytes_ && s.entries.size() == 1) s.erase(s.entries.begin());
}

bool MemoryCache::remove(std::string_view key) {
  std::lock_guard lock(state_->mutex);
  auto found = state_->index.find(key);
  if (found == state_->index.end()) return false;
  state_->erase(found->second);
  return true;
}

std::size_t MemoryCache::clear_prefix(std::string_view prefix) {
  std::lock_guard lock(state_->mutex);
  std::size_t removed = 0;
  for (auto it = state_->entries.begin(); it != state_->entries.end();) {
    auto next = std::next(it);
    if (std::string_view(it->key).starts_with(prefix)) {
      state_->erase(it);
      ++removed;
    }
    it = next;
  }
  return removed;
}

void MemoryCache::clear() {
  std::lock_guard lock(state_->mutex);
  state_->index.clear();
  state_->entries.clear();
  state_->bytes = 0;
}

std::size_t MemoryCache::size() const {
  std::lock_guard lock(state_->mutex);
  return state_->entries.size();
}

std::size_t MemoryCache::bytes() const {
  std::lock_guard lock(state_->mutex);
  return state_->bytes;
}

std::size_t MemoryCache::estimate_bytes(const Json& value) noexcept {
  std::size_t total = sizeof(Json);
  switch (value.type()) {
    case Json::value_t::string:
      total += sizeof(std::string) + value.get_ref<const std::string&>().capacity();
      break;
    case Json::value_t::array:
      total += sizeof(Json::array_t);
      for (const Json& element : value) total += estimate_bytes(element);
      break;
    case Json::value_t::object:
      total += sizeof(Json::object_t);
      for (const auto& [key, element] : value.items()) {
        total += sizeof(std::string) + key.capacity() + estimate_bytes(element);
      }
      break;
    default:
      break;
  }
  return total;
}

}  // namespace storh::engines
