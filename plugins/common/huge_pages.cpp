#include "common/huge_pages.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <new>

// Linux 5.14's value, for C library headers older than the flag (glibc before 2.35): the
// kernel decides whether it knows the flag, not the headers.
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace storh::engines {

char* map_huge_block(std::size_t bytes) {
  const std::size_t size = huge_block_size(bytes);
  // Map one huge page more than needed, then unmap what lies before the first 2 MiB
  // boundary and after the block: mmap itself only aligns to 4 KiB.
  const std::size_t mapped = size + kHugePageBytes;
  void* const raw =
      ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const std::size_t misalignment = reinterpret_cast<std::uintptr_t>(raw) % kHugePageBytes;
  const std::size_t lead = misalignment == 0 ? 0 : kHugePageBytes - misalignment;
  char* const block = static_cast<char*>(raw) + lead;
  if (lead != 0) ::munmap(raw, lead);
  const std::size_t tail = mapped - lead - size;
  if (tail != 0) ::munmap(block + size, tail);
  // Advice only: without transparent huge pages this fails or does nothing, and the
  // block still works with 4 KiB pages.
  ::madvise(block, size, MADV_HUGEPAGE);
  return block;
}

void unmap_huge_block(char* block, std::size_t bytes) noexcept {
  ::munmap(block, huge_block_size(bytes));
}

std::shared_ptr<char[]> allocate_huge_block(std::size_t bytes) {
  return std::shared_ptr<char[]>(map_huge_block(bytes),
                                 [bytes](char* block) { unmap_huge_block(block, bytes); });
}

char* map_populated_block(std::size_t bytes) {
  void* const block =
      ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (block == MAP_FAILED) throw std::bad_alloc();
  // Only a speed-up: where the kernel refuses (before 5.14), pages fault in on first touch.
  ::madvise(block, bytes, MADV_POPULATE_WRITE);
  return static_cast<char*>(block);
}

void unmap_populated_block(char* block, std::size_t bytes) noexcept {
  ::munmap(block, bytes);
}

LentMemory lend_rest(const std::shared_ptr<char[]>& block, std::size_t used,
                     std::size_t block_bytes) {
  constexpr std::size_t kLine = 64;
  const std::size_t taken = (used + kLine - 1) / kLine * kLine;
  if (taken >= block_bytes) return {};
  return {std::shared_ptr<char[]>(block, block.get() + taken), block_bytes - taken};
}

void* SpareLendingResource::do_allocate(std::size_t bytes, std::size_t alignment) {
  if (worth_huge_block(bytes)) {
    std::shared_ptr<char[]> block = allocate_huge_block(bytes);
    blocks_.push_back(block);
    spare_ = lend_rest(block, bytes, huge_block_size(bytes));
    return block.get();
  }
  // Huge and populated blocks are page-aligned; operator new aligns to its default.
  if (alignment <= __STDCPP_DEFAULT_NEW_ALIGNMENT__)
    return HugePageAllocator<char>().allocate(bytes);
  return ::operator new (bytes, std::align_val_t{alignment});
}

void SpareLendingResource::do_deallocate(void* at, std::size_t bytes, std::size_t alignment) {
  if (worth_huge_block(bytes)) {
    // What was lent keeps the block mapped; this only drops the buffer's hold on it, and
    // the hold of a spare nobody took.
    const auto freed = [at](const std::shared_ptr<char[]>& block) { return block.get() == at; };
    const auto block = std::find_if(blocks_.begin(), blocks_.end(), freed);
    if (block == blocks_.end()) return;
    const bool spare_of_block = spare_.chars != nullptr && !spare_.chars.owner_before(*block) &&
                                !block->owner_before(spare_.chars);
    if (spare_of_block) spare_ = {};
    blocks_.erase(block);
  } else if (alignment <= __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
    HugePageAllocator<char>().deallocate(static_cast<char*>(at), bytes);
  } else {
    ::operator delete (at, std::align_val_t{alignment});
  }
}

}  // namespace storh::engines
