// The huge-page blocks engines keep large tables in (huge_pages.h), and the tables that
// take them once reserved: the queue's payload arena and IdMap's slot chunks; the
// populated blocks of mid-sized buffers; and the spare a huge block lends to another
// table (a chunk buffer's to payload texts, IdMap's slots' to its index).
#include <catch2/catch.hpp>

#include <cstdint>
#include <memory_resource>
#include <string>
#include <vector>

#include "common/flat_index.h"
#include "common/huge_pages.h"
#include "common/id_map.h"
#include "common/shared_text.h"

namespace {

using storh::engines::kHugePageBytes;

bool huge_aligned(const void* at) {
  return reinterpret_cast<std::uintptr_t>(at) % kHugePageBytes == 0;
}

std::string huge_test_id(std::size_t i) {
  return "01890a5d-ac96-7abc-8def-" + std::to_string(100000000000 + i);
}

}  // namespace

TEST_CASE("huge pages: a block is aligned, zeroed, whole huge pages, and writable to its end",
          "[huge_pages]") {
  using storh::engines::huge_block_size;
  CHECK(huge_block_size(0) == kHugePageBytes);
  CHECK(huge_block_size(1) == kHugePageBytes);
  CHECK(huge_block_size(kHugePageBytes) == kHugePageBytes);
  CHECK(huge_block_size(kHugePageBytes + 1) == 2 * kHugePageBytes);
  CHECK_FALSE(storh::engines::worth_huge_block(kHugePageBytes / 2 - 1));
  CHECK(storh::engines::worth_huge_block(kHugePageBytes / 2));

  const std::size_t bytes = kHugePageBytes + 100;
  const std::shared_ptr<char[]> block = storh::engines::allocate_huge_block(bytes);
  REQUIRE(block != nullptr);
  CHECK(huge_aligned(block.get()));
  const std::size_t size = huge_block_size(bytes);
  std::size_t nonzero = 0;
  for (std::size_t at = 0; at < size; at += 4096) nonzero += block.get()[at] != 0 ? 1 : 0;
  CHECK(nonzero == 0);
  block[0] = 'a';
  block[size - 1] = 'z';
  CHECK(block[size - 1] == 'z');
}

TEST_CASE("huge pages: the allocator maps large buffers and leaves small ones to new",
          "[huge_pages]") {
  using Text =
      std::basic_string<char, std::char_traits<char>, storh::engines::HugePageAllocator<char>>;
  Text small;
  small.reserve(1000);
  CHECK_FALSE(huge_aligned(small.data()));
  Text large;
  large.reserve(kHugePageBytes);
  CHECK(huge_aligned(large.data()));
  large.assign(kHugePageBytes + 10, 'x');  // grows past the block: a new one, contents kept
  CHECK(large.size() == kHugePageBytes + 10);
  CHECK(large.back() == 'x');
  large.clear();
  large.shrink_to_fit();
  CHECK(large.capacity() < 100);
}

TEST_CASE("huge pages: an arena reserved for a large batch puts its texts in one block",
          "[huge_pages][shared_text]") {
  using storh::engines::SharedText;
  using storh::engines::SharedTextArena;
  std::vector<SharedText> texts;
  {
    SharedTextArena arena;
    arena.reserve(kHugePageBytes);
    for (int i = 0; i < 20000; ++i) texts.push_back(arena.copy("payload-" + std::to_string(i)));
  }
  CHECK(huge_aligned(texts.front().data()));
  // All in the one block, one after another; past it texts go on in ordinary blocks.
  CHECK(texts[19999].data() - texts[0].data() < static_cast<std::ptrdiff_t>(kHugePageBytes));
  CHECK(texts[1].data() == texts[0].data() + texts[0].size());
  for (int i = 0; i < 20000; i += 997) {
    CHECK(texts[static_cast<std::size_t>(i)] == "payload-" + std::to_string(i));
  }
  // A small reservation changes nothing: texts keep their 16 KiB blocks.
  SharedTextArena small;
  small.reserve(100);
  CHECK_FALSE(huge_aligned(small.copy("x").data()));
}

TEST_CASE(
    "huge pages: an id map reserved for many ids keeps its slots in a block, stable "
    "through erase, reuse, growth past the block and clear",
    "[huge_pages][id_map]") {
  using storh::engines::IdMap;
  IdMap<std::string> map;
  constexpr std::size_t kIds = 10000;
  map.reserve(kIds);
  CHECK(map.slots().size() == 0);  // chunks made, no slot yet
  std::vector<std::string*> held;
  for (std::size_t i = 0; i < kIds; ++i) {
    auto placed = map.emplace(huge_test_id(i));
    REQUIRE(placed.made);
    placed.slot->value = "value-" + std::to_string(i);  // a value that owns memory
    held.push_back(&placed.slot->value);
  }
  CHECK(huge_aligned(&map.at(0)));
  for (std::size_t i = 0; i < kIds; i += 2) REQUIRE(map.erase(huge_test_id(i)));
  // Past the reservation: new chunks of their own, the reserved slots stay where they were.
  for (std::size_t i = kIds; i < kIds + 8000; ++i) map.emplace(huge_test_id(i)).slot->value = "v";
  CHECK(map.slots().size() > kIds);
  for (std::size_t i = 1; i < kIds; i += 2) {
    REQUIRE(map.find(huge_test_id(i)) == held[i]);
    REQUIRE(*held[i] == "value-" + std::to_string(i));
  }
  CHECK(map.size() == kIds / 2 + 8000);
  map.clear();
  CHECK(map.find(huge_test_id(1)) == nullptr);
  map.reserve(kIds);  // reserving again after clear works the same
  CHECK(map.emplace(huge_test_id(3)).made);
}

TEST_CASE("huge pages: mid-sized buffers are mapped populated, zeroed and writable",
          "[huge_pages]") {
  using storh::engines::worth_populated_block;
  CHECK_FALSE(worth_populated_block((std::size_t{64} << 10) - 1));
  CHECK(worth_populated_block(std::size_t{64} << 10));
  CHECK(worth_populated_block(kHugePageBytes / 2 - 1));
  CHECK_FALSE(worth_populated_block(kHugePageBytes / 2));  // a huge block instead

  std::vector<std::uint64_t, storh::engines::HugePageAllocator<std::uint64_t>> values(40000);
  CHECK(reinterpret_cast<std::uintptr_t>(values.data()) % 4096 == 0);  // its own mapping
  CHECK_FALSE(huge_aligned(values.data()));
  std::size_t nonzero = 0;
  for (const std::uint64_t value : values) nonzero += value != 0 ? 1 : 0;
  CHECK(nonzero == 0);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = i;
  values.resize(200000);  // grows into a huge block, contents kept
  CHECK(huge_aligned(values.data()));
  CHECK(values[39999] == 39999);
  CHECK(values[199999] == 0);
}

TEST_CASE(
    "huge pages: a buffer's resource lends the rest of its huge block once, and what "
    "was lent outlives the buffer",
    "[huge_pages][shared_text]") {
  using storh::engines::SharedText;
  using storh::engines::SharedTextArena;
  std::vector<SharedText> texts;
  {
    storh::engines::SpareLendingResource memory;  // declared first: outlives the strings
    std::pmr::string small(&memory);
    small.reserve(1000);
    CHECK(memory.take_spare().bytes == 0);  // no huge block, nothing to lend

    std::pmr::string lines(&memory);
    lines.reserve(std::size_t{1} << 20);
    REQUIRE(huge_aligned(lines.data()));
    storh::engines::LentMemory spare = memory.take_spare();
    REQUIRE(spare.chars != nullptr);
    // The rest of the block, past the buffer's capacity, from a cache-line boundary.
    const char* const block = lines.data();
    CHECK(spare.chars.get() >= block + lines.capacity() + 1);
    CHECK(reinterpret_cast<std::uintptr_t>(spare.chars.get()) % 64 == 0);
    CHECK(spare.chars.get() + spare.bytes == block + kHugePageBytes);
    CHECK(spare.bytes >= kHugePageBytes - (std::size_t{1} << 20) - 64);
    CHECK(memory.take_spare().bytes == 0);  // lent once

    SharedTextArena arena;
    arena.adopt(std::move(spare));
    for (int i = 0; i < 1000; ++i) texts.push_back(arena.copy("lent-" + std::to_string(i)));
    CHECK(texts.front().data() > lines.data() + lines.capacity());
    CHECK(texts.back().data() < block + kHugePageBytes);
    // The buffer keeps working beside the texts, and grows into a new block.
    lines.assign(lines.capacity(), 'x');
    lines.append(kHugePageBytes, 'y');
    CHECK_FALSE(lines.data() == block);
    CHECK(memory.take_spare().bytes > 0);  // the new block's rest
  }
  // The buffer, the arena and the resource are gone; the texts hold their block.
  for (int i = 0; i < 1000; i += 111) {
    CHECK(texts[static_cast<std::size_t>(i)] == "lent-" + std::to_string(i));
  }
}

TEST_CASE("huge pages: an index reserved in lent memory uses it when it fits, and keeps it",
          "[huge_pages][flat_index]") {
  using storh::engines::FlatIndex;
  using storh::engines::LentMemory;
  const auto matches_any = [](std::uint32_t /*slot*/) { return true; };
  FlatIndex index;
  const char* lent_at = nullptr;
  {
    const std::shared_ptr<char[]> block = storh::engines::allocate_huge_block(kHugePageBytes);
    const std::size_t offset = kHugePageBytes / 2;
    lent_at = block.get() + offset;
    // 10,000 keys need 32,768 buckets (256 KiB): too many for 64 KiB, room in 1 MiB.
    FlatIndex too_small;
    too_small.reserve(10000, LentMemory{std::shared_ptr<char[]>(block, block.get() + offset),
                                        std::size_t{64} << 10});
    CHECK(too_small.bucket_base() != reinterpret_cast<std::uintptr_t>(lent_at));
    index.reserve(10000, LentMemory{std::shared_ptr<char[]>(block, block.get() + offset),
                                    kHugePageBytes - offset});
    CHECK(index.bucket_base() == reinterpret_cast<std::uintptr_t>(lent_at));
    CHECK(index.bucket_mask() == 32767);
  }
  // The block's first owner is gone: the index holds it.
  for (std::uint32_t slot = 0; slot < 10000; ++slot)
    index.insert(FlatIndex::hash(std::to_string(slot)), slot);
  CHECK(index.size() == 10000);
  CHECK(index.find(FlatIndex::hash("777"), [](std::uint32_t slot) { return slot == 777; }) == 777);
  CHECK(index.bucket_base() == reinterpret_cast<std::uintptr_t>(lent_at));  // no growth
  // Growing past it moves to memory of its own, every key kept.
  for (std::uint32_t slot = 10000; slot < 20000; ++slot) {
    index.insert(FlatIndex::hash(std::to_string(slot)), slot);
  }
  CHECK(index.bucket_base() != reinterpret_cast<std::uintptr_t>(lent_at));
  for (std::uint32_t slot = 0; slot < 20000; slot += 999) {
    CHECK(index.find(FlatIndex::hash(std::to_string(slot)),
                     [slot](std::uint32_t found) { return found == slot; }) == slot);
  }
  CHECK(index.find(FlatIndex::hash("absent"), matches_any) == FlatIndex::kNone);
  FlatIndex moved = std::move(index);
  CHECK(moved.size() == 20000);
  CHECK(index.size() == 0);  // NOLINT(bugprone-use-after-move): moving leaves it empty
  CHECK(index.find(FlatIndex::hash("1"), matches_any) == FlatIndex::kNone);
}

TEST_CASE("huge pages: a container's first allocation goes into lent memory, which it keeps",
          "[huge_pages]") {
  using Allocator = storh::engines::LentFirstAllocator<std::uint64_t>;
  using Values = std::vector<std::uint64_t, Allocator>;
  const char* lent_at = nullptr;
  Values values;
  {
    const std::shared_ptr<char[]> block = storh::engines::allocate_huge_block(kHugePageBytes);
    lent_at = block.get() + 4096;
    Values placed(Allocator(storh::engines::LentMemory{
        std::shared_ptr<char[]>(block, block.get() + 4096), std::size_t{1} << 20}));
    placed.reserve(1000);
    CHECK(reinterpret_cast<const char*>(placed.data()) == lent_at);
    for (std::uint64_t i = 0; i < 1000; ++i) placed.push_back(i * 3);
    const Values copied = placed;  // a copy allocates its own memory
    CHECK(reinterpret_cast<const char*>(copied.data()) != lent_at);
    CHECK(copied == placed);
    values = std::move(placed);  // the allocator moves along, with the memory
    CHECK(reinterpret_cast<const char*>(values.data()) == lent_at);
  }
  // The lender is gone; the values hold the block.
  CHECK(values[999] == 2997);
  // Lent memory is used once: growing past it moves to memory of the allocator's own.
  values.resize(200000, 7);
  CHECK(reinterpret_cast<const char*>(values.data()) != lent_at);
  CHECK(values[999] == 2997);
  CHECK(values[199999] == 7);
  // Too little lent memory for the first allocation: it is not used.
  const std::shared_ptr<char[]> small(new char[64]);
  Values other(Allocator(storh::engines::LentMemory{small, 64}));
  other.reserve(100);
  CHECK(reinterpret_cast<const char*>(other.data()) != small.get());
}

TEST_CASE("huge pages: lent memory goes back once its user is done with it",
          "[huge_pages][flat_index]") {
  using Allocator = storh::engines::LentFirstAllocator<std::uint64_t>;
  using storh::engines::LentMemory;
  std::weak_ptr<char[]> block_seen;
  std::vector<std::uint64_t, Allocator> values;
  storh::engines::FlatIndex index;
  {
    const std::shared_ptr<char[]> block = storh::engines::allocate_huge_block(kHugePageBytes);
    block_seen = block;
    Allocator lending(LentMemory(std::shared_ptr<char[]>(block, block.get()), 1 << 20));
    // NOLINTNEXTLINE(performance-move-const-arg): the point is that a move copies
    Allocator moved = std::move(lending);
    CHECK(moved == lending);  // NOLINT(bugprone-use-after-move): a move copies an allocator
    values = std::vector<std::uint64_t, Allocator>(moved);
    values.reserve(1000);
    REQUIRE(reinterpret_cast<const char*>(values.data()) == block.get());
    index.reserve(10000,
                  LentMemory(std::shared_ptr<char[]>(block, block.get() + (1 << 20)), 1 << 20));
    REQUIRE(index.bucket_base() == reinterpret_cast<std::uintptr_t>(block.get() + (1 << 20)));
  }
  CHECK_FALSE(block_seen.expired());  // held by the values and by the index
  values.resize(200000);              // out of the lent memory
  CHECK_FALSE(block_seen.expired());  // the index still holds it
  index.insert(storh::engines::FlatIndex::hash("a"), 1);
  index.clear();  // lent buckets are let go
  CHECK(block_seen.expired());
  CHECK(index.bucket_base() == 0);
  index.insert(storh::engines::FlatIndex::hash("b"), 2);
  CHECK(index.find(storh::engines::FlatIndex::hash("b"),
                   [](std::uint32_t slot) { return slot == 2; }) == 2);

  // A buffer's spare nobody took goes with the buffer's block.
  storh::engines::SpareLendingResource memory;
  {
    std::pmr::string lines(&memory);
    lines.reserve(std::size_t{1} << 20);
  }
  CHECK(memory.take_spare().bytes == 0);
}
