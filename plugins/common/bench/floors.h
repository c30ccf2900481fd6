// floors.h: what a durable append costs with no engine at all, so an engine's own
// append reads against this machine's floor (the `append_floor` operation).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string_view>

#include "common/durable_io.h"
#include "storh/engine.h"

namespace storh::engines::bench {

// Times `append_floor`: n x (write line(i) to `path`, opened for appending before the
// clock starts, then fdatasync unless sync is Sync::none). Afterwards, untimed, the file
// must hold every byte written. `line(i)` is called inside the timed loop, so it should
// only hand out a line built beforehand. Errors (I/O, a short file) are the Status.
Status measure_append_floor(RunContext& ctx, const std::filesystem::path& path, std::uint64_t n,
                            Sync sync, const std::function<std::string_view(std::uint64_t)>& line);

// Times `bulk_floor`: the batched append protocol with no engine. `bytes` (every line of
// the batch, built beforehand) is written to `path` (opened for appending before the
// clock starts) in writes of `chunk` bytes or more, each ending at a line end, then one
// fdatasync (none for Sync::none). `items` is the number of lines, the rate's unit.
// Afterwards, untimed, the file must hold every byte. Errors are the Status.
Status measure_bulk_append_floor(RunContext& ctx, const std::filesystem::path& path,
                                 std::uint64_t items, std::string_view bytes, std::size_t chunk,
                                 Sync sync);

// The same append, timed as `operation` after `build_input()` runs inside the timer:
// the floor of an engine call whose caller builds its input as it goes (a row source),
// so that the engine is judged against the same input work plus the I/O alone.
Status measure_bulk_append_floor(RunContext& ctx, std::string_view operation,
                                 const std::filesystem::path& path, std::uint64_t items,
                                 std::string_view bytes, std::size_t chunk, Sync sync,
                                 const std::function<void()>& build_input);

}  // namespace storh::engines::bench
