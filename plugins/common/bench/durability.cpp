#include "common/bench/durability.h"

namespace storh::engines::bench {

Sync durability(const Lookup& param) {
  return parse_sync(text(param, durability_param({})));
}

BulkSync bulk_sync(const Lookup& param) {
  return parse_bulk_sync(text(param, bulk_sync_param({})));
}

}  // namespace storh::engines::bench
