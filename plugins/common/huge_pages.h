// huge_pages.h: zeroed memory for an engine's large in-memory tables, mapped in 2 MiB
// blocks advised as transparent huge pages (MADV_HUGEPAGE).
//
// Why: a table built inside a timed call is fresh memory, and every 4 KiB page of it is
// a page fault on first touch. On a virtual machine a 4 KiB fault costs many times its
// share of a 2 MiB huge page's, so a large batch can spend more time in faults than in
// its work (docs/engines/queue.md, "Huge pages", has the measurements). PostgreSQL maps
// its buffer pool in huge pages for the same reason.
//
// Contract: the memory is zero-filled, aligned to kHugePageBytes and at least `bytes`
// long (rounded up to whole huge pages); it is unmapped when the last shared_ptr to it
// goes. Where the kernel has no transparent huge pages (or they are off) the advice is
// ignored and the block is ordinary anonymous memory: the same contents, 4 KiB faults.
// Throws std::bad_alloc when the mapping fails. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <memory_resource>
#include <utility>
#include <vector>

namespace storh::engines {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// Whether a table of `bytes` is worth a huge block: at least half a huge page. A huge
// page of memory the guest never wrote costs far more to fault in than one it used
// before (the hypervisor backs all of it at the first write), and far more than the
// 4 KiB pages a small table touches (docs/engines/queue.md, "Huge pages"). So a block
// must be well filled to win on a machine with much untouched memory, a fresh CI
// machine above all; a smaller threshold made whole suites slower there.
constexpr bool worth_huge_block(std::size_t bytes) noexcept {
  return bytes >= kHugePageBytes / 2;
}

std::shared_ptr<char[]> allocate_huge_block(std::size_t bytes);

// Whether a buffer of `bytes` that is no huge block is worth mapping pre-populated: at
// least 64 KiB. On a virtual machine each 4 KiB page fault traps to the hypervisor;
// populating the pages in one madvise(MADV_POPULATE_WRITE) first costs less (docs/
// engines/queue.md, "Touching less new memory"). Smaller buffers come from operator
// new.
constexpr bool worth_populated_block(std::size_t bytes) noexcept {
  return bytes >= std::size_t{64} << 10 && !worth_huge_block(bytes);
}

// Zeroed memory of at least `bytes`, its pages faulted in by one call where the kernel
// can (Linux 5.14+; elsewhere they fault in on first touch as usual). Unmap it with
// unmap_populated_block(block, bytes). Throws std::bad_alloc when the mapping fails.
char* map_populated_block(std::size_t bytes);
void unmap_populated_block(char* block, std::size_t bytes) noexcept;

// The same block without an owner: unmap it with unmap_huge_block(block, bytes), the
// `bytes` it was mapped with.
char* map_huge_block(std::size_t bytes);
void unmap_huge_block(char* block, std::size_t bytes) noexcept;

// `bytes` rounded up to whole huge pages, and at least one: what allocate_huge_block(bytes)
// maps.
constexpr std::size_t huge_block_size(std::size_t bytes) noexcept {
  return bytes <= kHugePageBytes ? kHugePageBytes
                                 : (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
}

// An allocator for buffers that may grow to megabytes (the queue's chunk of event lines,
// the vectors its batch calls return, FlatIndex's buckets): an allocation worth a huge
// block is one, one worth a populated block is one, smaller ones come from operator new.
// Stateless; any two compare equal.
template <class T>
struct HugePageAllocator {
  using value_type = T;

  HugePageAllocator() = default;
  // Implicit, as rebinding an allocator to another type converts it.
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>& /*other*/) noexcept {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (worth_huge_block(bytes)) return reinterpret_cast<T*>(map_huge_block(bytes));
    if (worth_populated_block(bytes)) return reinterpret_cast<T*>(map_populated_block(bytes));
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* at, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (worth_huge_block(bytes)) {
      unmap_huge_block(reinterpret_cast<char*>(at), bytes);
    } else if (worth_populated_block(bytes)) {
      unmap_populated_block(reinterpret_cast<char*>(at), bytes);
    } else {
      std::allocator<T>().deallocate(at, n);
    }
  }
  friend bool operator==(const HugePageAllocator& /*a*/, const HugePageAllocator& /*b*/) noexcept {
    return true;
  }
};

// Memory that one block lends to another owner: `chars` (aliasing the block's reference
// count, so the block stays mapped while it is held) and how many bytes from there.
// Move-only: two copies given to two owners would hand out the same bytes twice.
struct LentMemory {
  LentMemory() = default;
  LentMemory(std::shared_ptr<char[]> lent_chars, std::size_t lent_bytes) noexcept
      : chars(std::move(lent_chars)), bytes(lent_bytes) {}
  LentMemory(LentMemory&&) noexcept = default;
  LentMemory& operator=(LentMemory&&) noexcept = default;
  LentMemory(const LentMemory&) = delete;
  LentMemory& operator=(const LentMemory&) = delete;
  ~LentMemory() = default;

  std::shared_ptr<char[]> chars;
  std::size_t bytes = 0;
};

// What `block` (`block_bytes` long; any pointer that shares an owner's count) leaves past
// its first `used` bytes, from the next cache line on; nothing when that is no byte.
LentMemory lend_rest(const std::shared_ptr<char[]>& block, std::size_t used,
                     std::size_t block_bytes);

// A memory resource for one buffer that grows to a megabyte (the queue's chunk of event
// lines; use it through std::pmr), which lends the unused rest of that buffer's huge
// block to a table that fills it.
//
// Why: a block is mapped in whole huge pages, so a 1 MiB buffer leaves 1 MiB of its 2 MiB
// page zeroed and unused, and a table of about that size (a batch's payload texts) took
// a huge page of its own. On a virtual machine a huge page the hypervisor no longer
// backs costs far more to fault in than one it still backs (docs/engines/queue.md,
// "Touching less new memory"): one page fewer per batch counts.
//
// Contract: allocations are as HugePageAllocator makes them (a huge block, a populated
// block, or operator new, by size). take_spare() hands out the tail of the latest huge
// block past what was allocated from it, once; a later call returns nothing until
// another huge block is allocated. A block is unmapped when the buffer has freed it and
// nothing lent from it is held. Not thread-safe; only equal to itself.
class SpareLendingResource final : public std::pmr::memory_resource {
 public:
  SpareLendingResource() = default;
  SpareLendingResource(const SpareLendingResource&) = delete;
  SpareLendingResource& operator=(const SpareLendingResource&) = delete;
  ~SpareLendingResource() override = default;

  LentMemory take_spare() noexcept { return std::exchange(spare_, {}); }

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override;
  void do_deallocate(void* at, std::size_t bytes, std::size_t alignment) override;
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override {
    return this == &other;
  }

  std::vector<std::shared_ptr<char[]>> blocks_;  // huge blocks allocated and not freed yet
  LentMemory spare_;
};

// HugePageAllocator for a container whose first allocation may go into memory lent to it
// (the rest of a table's huge block, IdMap::reserve): the ids a queue batch returns sit
// in the huge page its job table already took, instead of up to 1 MiB of 4 KiB pages.
//
// Contract: the first allocation goes into the lent memory when it fits there; either
// way that settles it: a first allocation too large lets the lent memory go, and every
// later allocation is HugePageAllocator's. Lent memory that was used, and so the whole
// block it belongs to, stays mapped until that allocation is freed: a container holding
// it keeps the lender's block alive after the lender is gone. A copy-constructed
// container gets a plain allocator (select_on_container_copy_construction), so copies
// never share the lent memory; moves and swaps carry the allocator along, and a
// moved-from allocator stays equal to its copy (moving copies). Not thread-safe (a
// container is not either).
template <class T>
class LentFirstAllocator {
 public:
  using value_type = T;
  using propagate_on_container_copy_assignment = std::false_type;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;
  using is_always_equal = std::false_type;

  LentFirstAllocator() = default;
  explicit LentFirstAllocator(LentMemory lent)
      : lent_(lent.chars == nullptr ? nullptr : std::make_shared<Lent>(Lent{std::move(lent)})) {}
  template <class U>
  friend class LentFirstAllocator;
  // Implicit, as rebinding an allocator to another type converts it.
  template <class U>
  LentFirstAllocator(const LentFirstAllocator<U>& other) noexcept : lent_(other.lent_) {}
  // Declared so that a move copies: the allocator a container moved from must stay equal.
  LentFirstAllocator(const LentFirstAllocator&) noexcept = default;
  LentFirstAllocator& operator=(const LentFirstAllocator&) noexcept = default;
  ~LentFirstAllocator() = default;

  T* allocate(std::size_t n) {
    if (lent_ != nullptr && !lent_->taken) {
      lent_->taken = true;
      if (n * sizeof(T) <= lent_->memory.bytes &&
          reinterpret_cast<std::uintptr_t>(lent_->memory.chars.get()) % alignof(T) == 0) {
        return reinterpret_cast<T*>(lent_->memory.chars.get());
      }
      lent_->memory = {};  // not used: the lender's block may go
    }
    return HugePageAllocator<T>().allocate(n);
  }
  void deallocate(T* at, std::size_t n) noexcept {
    if (lent_ != nullptr && lent_->taken && lent_->memory.chars != nullptr &&
        reinterpret_cast<char*>(at) == lent_->memory.chars.get()) {
      lent_->memory = {};  // the lender's block may go now; `taken` keeps it from reuse
      return;
    }
    HugePageAllocator<T>().deallocate(at, n);
  }
  LentFirstAllocator select_on_container_copy_construction() const { return {}; }

  friend bool operator==(const LentFirstAllocator& a, const LentFirstAllocator& b) noexcept {
    return a.lent_ == b.lent_;
  }

 private:
  struct Lent {
    LentMemory memory;
    bool taken = false;
  };
  std::shared_ptr<Lent> lent_;  // shared by the copies a container makes of its allocator
};

}  // namespace storh::engines
