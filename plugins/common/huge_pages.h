// huge_pages.h: zeroed memory for an engine's large in-memory tables, mapped in 2 MiB
// blocks advised as transparent huge pages (MADV_HUGEPAGE).
//
// Why: a table built inside a timed call is fresh memory, and every 4 KiB page of it is
// a page fault on first touch. On the 2-vCPU VMs this project measures on, one such
// fault costs about 10 us, against 0.05-1.8 us a 4 KiB page under a 2 MiB huge page
// (2026-12-05, docs/engines/queue.md): a 10,000-job enqueue_many made about 1,100
// faults, more time than its work. PostgreSQL maps its buffer pool in huge pages for
// the same reason.
//
// Contract: the memory is zero-filled, aligned to kHugePageBytes and at least `bytes`
// long (rounded up to whole huge pages); it is unmapped when the last shared_ptr to it
// goes. Where the kernel has no transparent huge pages (or they are off) the advice is
// ignored and the block is ordinary anonymous memory: the same contents, 4 KiB faults.
// Throws std::bad_alloc when the mapping fails. Thread-safe.
#pragma once

#include <cstddef>
#include <memory>

namespace storh::engines {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// Whether a table of `bytes` is worth a huge block: at least half a huge page. A huge
// page costs 0.1 ms to fault in where the guest used that memory before, but 3.5-4 ms
// where it did not (the hypervisor backs all of it at the first write), against about
// 10 us for each 4 KiB page used (docs/engines/queue.md, "Huge pages"). So a block must
// be well filled to win on a machine with much untouched memory, a fresh CI machine
// above all: at 256 KiB a 10,000-job batch ran 1.5-3x slower in a whole suite.
constexpr bool worth_huge_block(std::size_t bytes) noexcept {
  return bytes >= kHugePageBytes / 2;
}

std::shared_ptr<char[]> allocate_huge_block(std::size_t bytes);

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
// block is one, smaller ones come from operator new. Stateless; any two compare equal.
template <class T>
struct HugePageAllocator {
  using value_type = T;

  HugePageAllocator() = default;
  // Implicit, as rebinding an allocator to another type converts it.
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>& /*other*/) noexcept {}

  T* allocate(std::size_t n) {
    if (!worth_huge_block(n * sizeof(T))) return std::allocator<T>().allocate(n);
    return reinterpret_cast<T*>(map_huge_block(n * sizeof(T)));
  }
  void deallocate(T* at, std::size_t n) noexcept {
    if (!worth_huge_block(n * sizeof(T))) {
      std::allocator<T>().deallocate(at, n);
      return;
    }
    unmap_huge_block(reinterpret_cast<char*>(at), n * sizeof(T));
  }
  friend bool operator==(const HugePageAllocator& /*a*/, const HugePageAllocator& /*b*/) noexcept {
    return true;
  }
};

}  // namespace storh::engines
