// report/format.h: how numbers look to people, in every report and in compare's
// output, so the same quantity reads the same everywhere.
//
// All functions are pure and locale-independent (fmt), so output is byte-stable.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace storh::report {

// A duration with 4 significant digits in the largest unit of ns, us, ms, s that
// keeps the number >= 1: "412.3 us", "1.234 ms", "411.3 ms", "12.00 s", "4000 s".
// Rounding happens first, so 999.96 us is "1.000 ms". 0 is "0 s".
std::string format_seconds(double seconds);

// A rate with 3 significant digits and an SI prefix (k, M, G, T) written as its own
// word before the unit: "2.43 M ids/s", "7.21 k records/s", "512 rows/s",
// "0.500 jobs/s". An empty unit reads "items".
std::string format_rate(double per_second, std::string_view unit);

// A byte count in binary units with one decimal: "512 B", "1.5 KiB", "23.5 GiB".
std::string format_bytes(std::uint64_t bytes);

}  // namespace storh::report
