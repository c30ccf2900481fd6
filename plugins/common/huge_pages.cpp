#include "common/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>
#include <new>

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

}  // namespace storh::engines
