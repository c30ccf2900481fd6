#include "log/log_state.h"

#include <cstdio>
#include <cstring>

namespace storh::engines::log {
namespace {

std::uint64_t load64(const char* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::uint64_t mix(std::uint64_t a, std::uint64_t b) noexcept {
  std::uint64_t h = (a ^ 0x9e3779b97f4a7c15ULL) * 0xbf58476d1ce4e5b9ULL;
  h ^= (b + 0xd1b54a32d192ed03ULL + (h << 6) + (h >> 2));
  h ^= h >> 31;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 29);
}

std::size_t hash_id(std::string_view id) noexcept {
  // 36 bytes: the timestamp (first 13 chars) and the random tail both feed the hash.
  const char* p = id.data();
  const std::uint64_t h = mix(load64(p) ^ load64(p + 28), load64(p + 8) ^ load64(p + 20));
  return static_cast<std::size_t>(mix(h, load64(p + 14)));
}

const std::vector<Location> kNoAliases;

}  // namespace

IdKey make_key(std::string_view id) noexcept {
  IdKey key{};
  std::memcpy(key.data(), id.data(), std::min(id.size(), key.size()));
  return key;
}

std::size_t IdKeyHash::operator()(const IdKey& key) const noexcept {
  return hash_id(key_view(key));
}

std::size_t StateIndex::slot_of(std::string_view id) const noexcept {
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = hash_id(id) & mask;
  while (used_[i] && key_view(slots_[i].id) != id) i = (i + 1) & mask;
  return i;
}

const StateEntry* StateIndex::find(std::string_view id) const noexcept {
  if (size_ == 0 || id.size() != 36) return nullptr;
  const std::size_t i = slot_of(id);
  return used_[i] ? &slots_[i] : nullptr;
}

StateEntry& StateIndex::upsert(std::string_view id, bool& inserted) {
  if ((size_ + 1) * 4 > slots_.size() * 3) grow();
  const std::size_t i = slot_of(id);
  inserted = !used_[i];
  if (inserted) {
    used_[i] = true;
    slots_[i] = StateEntry{make_key(id), {}, false};
    ++size_;
  }
  return slots_[i];
}

bool StateIndex::erase(std::string_view id) {
  if (size_ == 0) return false;
  const std::size_t mask = slots_.size() - 1;
  std::size_t hole = slot_of(id);
  if (!used_[hole]) return false;
  aliases_.erase(make_key(id));
  used_[hole] = false;
  --size_;
  // Backward-shift deletion keeps every probe chain unbroken without tombstones.
  for (std::size_t next = (hole + 1) & mask; used_[next]; next = (next + 1) & mask) {
    const std::size_t home = hash_id(key_view(slots_[next].id)) & mask;
    const bool movable =
        hole <= next ? (home <= hole || home > next) : (home <= hole && home > next);
    if (movable) {
      slots_[hole] = slots_[next];
      used_[hole] = true;
      used_[next] = false;
      hole = next;
    }
  }
  return true;
}

void StateIndex::clear() {
  slots_.clear();
  used_.clear();
  size_ = 0;
  aliases_.clear();
}

void StateIndex::reserve(std::size_t count) {
  while (slots_.size() * 3 < count * 4) grow();
}

void StateIndex::grow() {
  std::vector<StateEntry> old_slots = std::move(slots_);
  std::vector<bool> old_used = std::move(used_);
  const std::size_t capacity = old_slots.empty() ? 64 : old_slots.size() * 2;
  slots_.assign(capacity, StateEntry{});
  used_.assign(capacity, false);
  for (std::size_t i = 0; i < old_slots.size(); ++i) {
    if (!old_used[i]) continue;
    const std::size_t slot = slot_of(key_view(old_slots[i].id));
    slots_[slot] = old_slots[i];
    used_[slot] = true;
  }
}

void StateIndex::add_alias(std::string_view id, Location location) {
  aliases_[make_key(id)].push_back(location);
}

const std::vector<Location>& StateIndex::aliases(std::string_view id) const {
  if (aliases_.empty() || id.size() != 36) return kNoAliases;
  const auto found = aliases_.find(make_key(id));
  return found == aliases_.end() ? kNoAliases : found->second;
}

void SegmentState::add_line(std::string_view id, std::uint64_t offset, std::uint64_t size,
                            std::uint64_t interval) {
  if (entry.records % interval == 0) sparse.push_back({std::string(id), offset});
  if (entry.records == 0 || entry.min.empty()) {
    entry.min.assign(id);
    entry.max.assign(id);
  } else {
    // While ordered, max is the previous id: a smaller one breaks the order.
    if (id < std::string_view(entry.max)) entry.ordered = false;
    if (id < std::string_view(entry.min)) entry.min.assign(id);
    if (id > std::string_view(entry.max)) entry.max.assign(id);
  }
  ++entry.records;
  bytes = offset + size;
}

void SegmentState::reset_stats() {
  entry.min.clear();
  entry.max.clear();
  entry.records = 0;
  entry.ordered = true;
  bytes = 0;
  sparse.clear();
}

std::string counter_key(const Json& value) {
  switch (value.type()) {
    case Json::value_t::string:
      return "s:" + value.get_ref<const std::string&>();
    case Json::value_t::number_integer:
      return "i:" + std::to_string(value.get<std::int64_t>());
    case Json::value_t::number_unsigned:
      return "i:" + std::to_string(value.get<std::uint64_t>());
    case Json::value_t::boolean:
      return value.get<bool>() ? "b:1" : "b:0";
    case Json::value_t::number_float: {
      double number = value.get<double>();
      if (number == 0) number = 0;  // -0.0 and 0.0 are the same value (json_values.h)
      char text[40];
      std::snprintf(text, sizeof text, "f:%.17G", number);
      return text;
    }
    case Json::value_t::null:
      return "n:";
    default:
      return {};
  }
}

void EqualityCounters::add_value(std::string_view field, const Json& value) {
  auto found = fields_.find(field);
  if (found == fields_.end()) found = fields_.emplace(std::string(field), Field{}).first;
  Field& counter = found->second;
  if (counter.disabled) return;
  std::string key = counter_key(value);
  if (key.empty()) return;
  auto slot = counter.counts.find(key);
  if (slot != counter.counts.end()) {
    ++slot->second;
    return;
  }
  if (counter.counts.size() >= kMaxDistinct) {
    counter.disabled = true;
    counter.counts.clear();
    return;
  }
  counter.counts.emplace(std::move(key), 1);
}

void EqualityCounters::add(const Json& data) {
  if (!valid_) return;
  if (data.is_object()) {
    for (const auto& [field, value] : data.items()) add_value(field, value);
  } else if (data.is_array()) {
    // List data has the fields "0", "1", ... (json_values.h find_field).
    std::size_t index = 0;
    for (const Json& value : data) add_value(std::to_string(index++), value);
  }
}

std::int64_t EqualityCounters::count(const std::string& field, const Json& value) const {
  if (!valid_) return -1;
  const std::string key = counter_key(value);
  if (key.empty()) return -1;
  const auto found = fields_.find(field);
  if (found == fields_.end()) return 0;
  if (found->second.disabled) return -1;
  const auto slot = found->second.counts.find(key);
  return slot == found->second.counts.end() ? 0 : static_cast<std::int64_t>(slot->second);
}

}  // namespace storh::engines::log
