// fuzz/log_manifest_fuzz.cpp: the log engine's manifest and sparse index readers
// (decode_manifest, decode_sparse_index) on arbitrary text. StoreError from
// decode_manifest and nullopt from decode_sparse_index are data; anything else is a
// finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/store_error.h"
#include "log/manifest.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace log = storh::engines::log;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)log::decode_manifest(text, "fuzz/manifest.jsonc");
  } catch (const storh::engines::StoreError&) {
  }
  (void)log::decode_sparse_index(text);
  return 0;
}
