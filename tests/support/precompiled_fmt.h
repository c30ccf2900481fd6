// fmt, as the test drivers' precompiled header holds it (tests/CMakeLists.txt).
//
// Unoptimised, fmt's core.h raises the optimisation level of its own code between
// `#pragma GCC push_options` and `pop_options`, and GCC 12's precompiled header then
// leaves __OPTIMIZE__ defined in every file that uses it: a -O0 test driver would take
// itself for an optimised build. Defining FMT_GCC_PRAGMA empty, which core.h leaves alone
// when it is defined, drops those pragmas; fmt's code in a driver is then compiled at the
// driver's own level, like the rest of it.
#pragma once

#define FMT_GCC_PRAGMA(arg)
#include <fmt/format.h>
