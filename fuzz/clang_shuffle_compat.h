// fuzz/clang_shuffle_compat.h: GCC's __builtin_shuffle(a, b, mask) for clang, which has
// only __builtin_shufflevector (constant indices). plugins/common/csprng.cpp uses the GCC
// builtin; the STORH_FUZZ build (clang) force-includes this header into that one file so
// the engine libraries build unchanged. Same result as GCC's: lane i is element
// mask[i] mod 2N of the concatenation a ++ b.
#pragma once

#if defined(__clang__)
template <class Vec>
[[gnu::always_inline]] inline Vec storh_fuzz_shuffle(Vec a, Vec b, Vec mask) noexcept {
  constexpr unsigned kLanes = sizeof(Vec) / sizeof(a[0]);
  Vec out = a;
  for (unsigned i = 0; i < kLanes; ++i) {
    const unsigned at = static_cast<unsigned>(mask[i]) % (2 * kLanes);
    out[i] = at < kLanes ? a[at] : b[at - kLanes];
  }
  return out;
}
#define __builtin_shuffle(a, b, mask) storh_fuzz_shuffle(a, b, mask)
#endif
