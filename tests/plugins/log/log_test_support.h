// Helpers for the log engine's tests: the shared scratch directories and whole-file
// access (tests/support/scratch_dir.h) under the names these tests use.
#pragma once

#include "scratch_dir.h"

namespace log_test {

using Scratch = storh::test::ScratchDir;
using storh::test::append_text;
using storh::test::read_text;
using storh::test::write_text;

}  // namespace log_test
