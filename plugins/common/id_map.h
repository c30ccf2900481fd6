// id_map.h: a hash map from record and job ids (UUIDv7 text, always 36 characters) to
// values, for the tables engines look ids up in between syscalls: the DocStore's record
// cache and the queue's job table.
//
// Why not std::unordered_map<std::string, V>: there a lookup hashes, walks a bucket chain
// of heap nodes and compares a heap key, several cache misses each, a large part of a
// warm STAT get. Here the id sits inline in its 64-byte aligned slot, the slots live in
// chunks of kChunkSlots (stable addresses; erased slots are reused) and a FlatIndex finds
// them: a lookup reads one bucket and the slot. Not a std::deque: its 512-byte blocks
// hold four such slots, and each block was an aligned allocation of its own on the cold
// read path.
//
// Contract: ids are exactly 36 characters; find() of another length finds nothing and
// emplace() of one throws std::invalid_argument (callers validate ids before). A Value*,
// a Slot* and a slot's index stay valid until its id is erased or the map cleared; after
// that the index may hold another id (check it, or something else the value keeps, such
// as the queue's sequence numbers). Iteration (slots(), skipping !live) is in no
// particular order. Not thread-safe.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "common/flat_index.h"
#include "common/huge_pages.h"

namespace storh::engines {

template <class Value>
class IdMap {
 public:
  static constexpr std::size_t kIdSize = 36;

  struct alignas(64) Slot {
    std::array<char, kIdSize> id_text{};
    bool live = false;
    Value value{};

    std::string_view id() const noexcept { return {id_text.data(), id_text.size()}; }
  };

  // Every slot made so far, live or free, in index order; a forward range.
  class Slots {
   public:
    static constexpr std::size_t kChunkSlots = 256;
    struct Chunk {
      std::array<Slot, kChunkSlots> slots;
    };

    template <class Owner, class Item>
    class Iterator {
     public:
      using value_type = Slot;
      using difference_type = std::ptrdiff_t;
      Iterator() = default;
      Iterator(Owner* owner, std::size_t index) : owner_(owner), index_(index) {}
      Item& operator*() const { return (*owner_)[index_]; }
      Item* operator->() const { return &(*owner_)[index_]; }
      Iterator& operator++() {
        ++index_;
        return *this;
      }
      Iterator operator++(int) {
        Iterator before = *this;
        ++index_;
        return before;
      }
      bool operator==(const Iterator& other) const { return index_ == other.index_; }

     private:
      Owner* owner_ = nullptr;
      std::size_t index_ = 0;
    };
    using iterator = Iterator<Slots, Slot>;
    using const_iterator = Iterator<const Slots, const Slot>;

    Slot& operator[](std::size_t index) {
      return chunks_[index / kChunkSlots]->slots[index % kChunkSlots];
    }
    const Slot& operator[](std::size_t index) const {
      return chunks_[index / kChunkSlots]->slots[index % kChunkSlots];
    }
    std::size_t size() const noexcept { return size_; }
    iterator begin() { return {this, 0}; }
    iterator end() { return {this, size_}; }
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size_}; }

    // A new, value-initialised slot at index size() - 1.
    void grow() {
      if (size_ == chunks_.size() * kChunkSlots) {
        chunks_.push_back(ChunkPtr(new Chunk(), ChunkDeleter{true}));
      }
      ++size_;
    }
    // Makes the chunks for `slots` slots in all now, in one huge-page block, when those
    // still to make are worth one (huge_pages.h: on a VM, a chunk's eight 4 KiB page
    // faults cost more than filling its 256 slots); otherwise grow() makes them. Returns
    // the rest of that block's last huge page, for another table (IdMap's index).
    LentMemory reserve(std::size_t slots) {
      const std::size_t made = chunks_.size() * kChunkSlots;
      if (slots <= made) return {};
      const std::size_t more = (slots - made + kChunkSlots - 1) / kChunkSlots;
      if (!worth_huge_block(more * sizeof(Chunk))) return {};
      const std::size_t used = more * sizeof(Chunk);
      std::shared_ptr<char[]> block = allocate_huge_block(used);
      LentMemory spare = lend_rest(block, used, huge_block_size(used));
      chunks_.reserve(chunks_.size() + more);
      for (std::size_t i = 0; i < more; ++i) {
        chunks_.push_back(
            ChunkPtr(new (block.get() + i * sizeof(Chunk)) Chunk(), ChunkDeleter{false}));
      }
      blocks_.push_back(std::move(block));
      return spare;
    }
    void clear() noexcept {
      chunks_.clear();
      blocks_.clear();
      size_ = 0;
    }

   private:
    // A chunk of its own (grow) is deleted; one in a huge block (reserve) is destroyed in
    // place and its memory goes with the block.
    struct ChunkDeleter {
      bool owns_memory = true;
      void operator()(Chunk* chunk) const noexcept {
        if (owns_memory) {
          delete chunk;
        } else {
          chunk->~Chunk();
        }
      }
    };
    using ChunkPtr = std::unique_ptr<Chunk, ChunkDeleter>;

    std::vector<std::shared_ptr<char[]>> blocks_;  // declared first: outlives chunks_
    std::vector<ChunkPtr> chunks_;
    std::size_t size_ = 0;
  };

  struct Emplaced {
    Slot* slot;
    std::uint32_t index;
    bool made;
  };

  // The hash an id is indexed by. A caller making several calls for one id (a prefetch,
  // then find()) computes it once and passes it to the overloads that take it.
  static std::uint64_t hash(std::string_view id) noexcept { return FlatIndex::hash(id); }

  Value* find(std::string_view id) { return find(id, hash(id)); }
  const Value* find(std::string_view id) const { return find(id, hash(id)); }
  Value* find(std::string_view id, std::uint64_t id_hash) {
    const std::uint32_t slot = index_of(id, id_hash);
    return slot == FlatIndex::kNone ? nullptr : &slots_[slot].value;
  }
  const Value* find(std::string_view id, std::uint64_t id_hash) const {
    const std::uint32_t slot = index_of(id, id_hash);
    return slot == FlatIndex::kNone ? nullptr : &slots_[slot].value;
  }
  // Two steps that start loading what find(id) reads, for a caller that overlaps those
  // cache misses with other work (a syscall): prefetch_bucket() returns at once;
  // prefetch_slot() reads the bucket and starts loading the slot it names. It returns
  // whether a slot's hash matches `id`'s: then `id` is most likely here (find() decides).
  void prefetch_bucket(std::uint64_t id_hash) const { index_.prefetch(id_hash); }
  bool prefetch_slot(std::string_view id, std::uint64_t id_hash) const {
    if (id.size() != kIdSize) return false;
    const std::uint32_t slot =
        index_.find(id_hash, [](std::uint32_t /*candidate*/) { return true; });
    if (slot == FlatIndex::kNone) return false;
    const char* lines = reinterpret_cast<const char*>(&slots_[slot]);
    for (std::size_t at = 0; at < sizeof(Slot); at += 64) __builtin_prefetch(lines + at);
    return true;
  }
  // The index of the slot of `id`, or FlatIndex::kNone.
  std::uint32_t index_of(std::string_view id) const { return index_of(id, hash(id)); }
  std::uint32_t index_of(std::string_view id, std::uint64_t id_hash) const {
    if (id.size() != kIdSize) return FlatIndex::kNone;
    return index_.find(id_hash, matcher(id));
  }
  // The slot at an index emplace() or index_of() returned (live or not, see above).
  Slot& at(std::uint32_t index) { return slots_[index]; }
  const Slot& at(std::uint32_t index) const { return slots_[index]; }

  // The slot of `id`, made (with a value-initialised Value) when absent.
  Emplaced emplace(std::string_view id) { return emplace(id, hash(id)); }
  // The same with `id_hash` = hash(id), for a caller that looked the id up before.
  Emplaced emplace(std::string_view id, std::uint64_t id_hash) {
    if (id.size() != kIdSize) {
      throw std::invalid_argument("IdMap: an id is 36 characters (a UUIDv7)");
    }
    const std::uint64_t hash = id_hash;
    std::uint32_t slot = index_.find(hash, matcher(id));
    if (slot != FlatIndex::kNone) return {&slots_[slot], slot, false};
    if (free_slots_.empty()) {
      slot = static_cast<std::uint32_t>(slots_.size());
      slots_.grow();
    } else {
      slot = free_slots_.back();
      free_slots_.pop_back();
    }
    Slot& made = slots_[slot];
    std::copy(id.begin(), id.end(), made.id_text.begin());
    made.live = true;
    index_.insert(hash, slot);
    return {&made, slot, true};
  }

  // Returns whether `id` was there.
  bool erase(std::string_view id) {
    if (id.size() != kIdSize) return false;
    const std::uint64_t hash = FlatIndex::hash(id);
    const std::uint32_t slot = index_.find(hash, matcher(id));
    if (slot == FlatIndex::kNone) return false;
    index_.erase(hash, slot);
    slots_[slot] = Slot{};
    free_slots_.push_back(slot);
    return true;
  }

  void clear() noexcept {
    slots_.clear();
    free_slots_.clear();
    index_.clear();
  }
  // Room for `ids` ids in all. The index goes into the slots' huge block when it fits
  // in what the slots leave of it: one huge page instead of a huge page and up to 256
  // KiB of 4 KiB pages (10,000 queue jobs: 1.25 MiB of slots, 256 KiB of index).
  // Returns what is left of that block's last huge page, for the caller to lend on
  // (huge_pages.h); nothing when no block was made.
  LentMemory reserve(std::size_t ids) { return index_.reserve(ids, slots_.reserve(ids)); }
  std::size_t size() const noexcept { return index_.size(); }

  // Every slot, live or free (skip !live).
  Slots& slots() noexcept { return slots_; }
  const Slots& slots() const noexcept { return slots_; }

 private:
  auto matcher(std::string_view id) const {
    return [this, id](std::uint32_t slot) { return slots_[slot].id() == id; };
  }

  Slots slots_;
  std::vector<std::uint32_t> free_slots_;
  FlatIndex index_;
};

}  // namespace storh::engines
