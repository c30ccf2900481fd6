// The write-boundary hook of common/fault_injection.h: it counts, fails once with the
// armed errno (ENOSPC after writing half), and is inert when disarmed.
#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>

#include "common/durable_io.h"
#include "common/fault_injection.h"
#include "common/store_error.h"
#include "scratch_dir.h"

namespace engines = storh::engines;
namespace fault = storh::engines::fault;
namespace fs = std::filesystem;
using storh::test::read_text;
using storh::test::ScratchDir;

namespace {

std::size_t files_in(const fs::path& dir) {
  std::size_t count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) count += entry.is_regular_file() ? 1 : 0;
  return count;
}

}  // namespace

TEST_CASE("fault hook: write_atomic crosses write, fsync, rename and directory sync",
          "[common][fault]") {
  ScratchDir dir;
  fault::count_only();
  engines::write_atomic(dir / "m", "one\n");
  CHECK(fault::crossed() == 4);
  engines::durable_append(dir / "log", "a\n");
  CHECK(fault::crossed() == 6);
  engines::write_atomic(dir / "n", "x", engines::Sync::none);  // no syncs: one write, one rename
  CHECK(fault::crossed() == 8);
  CHECK_FALSE(fault::fired());
  fault::disarm();
  engines::write_atomic(dir / "m", "two\n");
  CHECK(fault::crossed() == 8);  // disarmed: nothing counted
}

TEST_CASE("fault hook: an armed boundary fails once with its errno", "[common][fault]") {
  ScratchDir dir;
  engines::write_atomic(dir / "m", "old\n");
  for (std::uint64_t k = 1; k <= 3; ++k) {  // write, fsync, rename
    INFO("boundary " << k);
    fault::arm(k, fault::Action::fail, EIO);
    CHECK_THROWS_WITH(engines::write_atomic(dir / "m", "new\n"), Catch::Contains("Input/output"));
    CHECK(fault::fired());
    CHECK(read_text(dir / "m") == "old\n");
    CHECK(files_in(dir.path()) == 1);           // the temp file is gone
    engines::write_atomic(dir / "m", "old\n");  // the next boundaries proceed
    fault::disarm();
  }
  // The directory sync's errors are ignored, as in storh: the replace stands.
  fault::arm(4, fault::Action::fail, EIO);
  engines::write_atomic(dir / "m", "new\n");
  CHECK(fault::fired());
  fault::disarm();
  CHECK(read_text(dir / "m") == "new\n");
}

TEST_CASE("fault hook: ENOSPC on a write writes half of the bytes first", "[common][fault]") {
  ScratchDir dir;
  fault::arm(1, fault::Action::fail, ENOSPC);
  CHECK_THROWS_WITH(engines::durable_append(dir / "log", "abcdefgh"),
                    Catch::Contains("No space left"));
  fault::disarm();
  CHECK(read_text(dir / "log") == "abcd");
}
